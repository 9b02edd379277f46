"""Pass 0 of the matcher (``Level.EXACT``): the quoted text as a substring of the view.

``find_exact`` finds the text anywhere but inside a line's indentation
(there it is indentation drift, for the later passes). ``exact_lines`` and
``exact_line_spans`` find only the matches that cover whole lines, as a
patch quotes them, by looking for the text after a newline, so the text's
copies inside lines are never visited.
"""

from __future__ import annotations

from collections.abc import Iterator

from .document import Document
from .matches import Level, Match


def find_exact(doc: Document, old: str, first: int, last: int | None) -> Iterator[Match]:
    """Substring matches, never starting inside a line's indentation.

    ``    return x`` is one line of the file when the file has it at that
    depth; inside a deeper ``        return x`` it is indentation drift, for
    the later passes to count. An old text ending with a newline also
    matches the last line of a file that has no final newline.
    """
    if not old:
        return
    view = doc.view
    blank_start = old[0] in " \t"
    ends_line = old.endswith("\n")
    size, exact = len(old), Level.EXACT
    # ``fragment_search._occurrences`` written out: one generator per match found, not two.
    stop = len(view) if last is None else min(len(view), last + size)
    start = view.find(old, first, stop)
    while start >= 0:
        if not (blank_start and _inside_indentation(view, start)):
            yield Match(start, start + size, exact, None, False, ends_line)
        start = view.find(old, start + 1, stop)
    body = old[:-1]
    if ends_line and body.strip() and not view.endswith("\n") and view.endswith(body):
        start = len(view) - len(body)
        in_range = first <= start and (last is None or start <= last)
        if in_range and not (blank_start and _inside_indentation(view, start)):
            yield Match(start, len(view), Level.EXACT)


def exact_lines(
    doc: Document, old: str, first: int = 0, last: int | None = None, *, at_end: bool = False
) -> Iterator[Match]:
    """The exact matches a whole-line ``Scope(first, last, True, at_end)`` admits, in order."""
    exact = Level.EXACT
    for start, end, ends_line in exact_line_spans(doc.view, old, first, last, at_end=at_end):
        yield Match(start, end, exact, None, False, ends_line)


def exact_line_spans(
    view: str, old: str, first: int = 0, last: int | None = None, *, at_end: bool = False
) -> Iterator[tuple[int, int, bool]]:
    """``exact_lines`` as ``(start, end, ends_line)`` of each match, no ``Match`` built.

    Only matches at a line start count, so the search looks for old after a
    newline (and at the very start): in a file where old's text also occurs
    inside lines, those are never visited. A match at a line start is never
    inside indentation.
    """
    if not old:
        return
    size = len(old)
    ends_line = old.endswith("\n")
    # A match ends the file when nothing but blanks follows it.
    content_end = len(view.rstrip()) if at_end else 0
    stop = len(view) if last is None else min(len(view), last + size)
    at_start = first == 0 and size <= stop and view.startswith(old)
    if at_start and _admitted_end(view, size, ends_line, content_end):
        yield 0, size, ends_line
    needle = "\n" + old
    # Old at ``start`` is the needle at ``start - 1``.
    at = view.find(needle, max(first - 1, 0), stop)
    while at >= 0:
        start = at + 1
        if _admitted_end(view, start + size, ends_line, content_end):
            yield start, start + size, ends_line
        at = view.find(needle, start, stop)
    if view.endswith("\n") or not ends_line:
        return
    body = old[:-1]
    if body.strip() and view.endswith(body):
        start = len(view) - len(body)
        in_range = first <= start and (last is None or start <= last)
        if in_range and (start == 0 or view[start - 1] == "\n"):
            yield start, len(view), False


def _admitted_end(view: str, end: int, ends_line: bool, content_end: int) -> bool:
    """Whether a match ending at ``end`` ends its line (and the file, if
    ``content_end``: the end of the file's last non-blank text)."""
    if end < content_end:
        return False
    return ends_line or end == len(view) or view[end] == "\n"


def _inside_indentation(view: str, pos: int) -> bool:
    """Whether ``pos`` is past a line's start but within its leading blanks.

    Reads back over the blanks before ``pos`` only, never to the line's start:
    a long line with a match every few characters stays linear.
    """
    start = pos
    while start > 0 and view[start - 1] in " \t":
        start -= 1
    return start < pos and (start == 0 or view[start - 1] == "\n")
