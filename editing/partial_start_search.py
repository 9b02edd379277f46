"""The matcher's search for a multi-line old text that starts inside a line.

In passes 1 to 3 a multi-line text may start after other text on a file
line, as it can in pass 0: its first line is then the end of that line and
its other lines are whole lines at the same level (``line_search``). The
file's lines that end with the first line's text are found with one
``str.find`` over the file and kept for the document, since the passes
after look for the same text.
"""

from __future__ import annotations

from collections.abc import Iterator
from weakref import WeakKeyDictionary

from . import punctuation
from .document import Document
from .fragment_search import unfold_span
from .line_search import find_lines
from .matches import Level, Match


def may_start_inside(old: str) -> bool:
    """Whether old may start inside a line: its first line and some later line have text."""
    head, _, rest = old.partition("\n")
    return bool(head.strip()) and bool(rest.strip())


def find_partial_start(
    doc: Document, old: str, level: Level, first: int, last: int | None
) -> Iterator[Match]:
    """Matches of a multi-line old whose first line is the end of a file line.

    The file line holds other text before it (else it is a whole-line
    match); old's first line equals the rest of that line, outer blanks
    aside (and typographic look-alikes folded at ``PUNCTUATION``), and old's
    other lines match the lines after it as whole lines at ``level`` (their
    ``IndentMap`` is the match's: old's first line has no indentation of its
    own). The match runs from inside the first line to the end of the last
    line's text (its trailing blanks left out), as a fragment: new's first
    line follows the file's own text, the file's blanks after the last
    line's text stay, and old's final newline is no part of it.
    """
    head, _, rest = old.partition("\n")
    if rest.endswith("\n"):
        rest = rest[:-1]
    folded = level == Level.PUNCTUATION
    key = punctuation.fold(head).strip() if folded else head.strip(" \t")
    rest_level = level
    if folded and doc.is_ascii and rest.isascii():
        rest_level = Level.INDENTATION  # the look-alikes are in old's first line only
    view = doc.view
    for line_start, line_end in _lines_ending_with(doc, key, folded=folded and not doc.is_ascii):
        span = _line_tail(view[line_start:line_end], key, folded=folded)
        if span is None:
            continue
        start = line_start + span
        if start < first:
            continue
        if last is not None and start > last:
            return
        below = line_end + 1
        match = next(find_lines(doc, rest, rest_level, below, below), None)
        if match is None or match.start != below:
            continue
        end = match.end
        while view[end - 1] in " \t":
            end -= 1  # the file's blanks after the text are its own, kept (as in pass 0)
        yield Match(start, end, level, match.indent, fragment=True)


def _lines_ending_with(doc: Document, key: str, *, folded: bool) -> list[tuple[int, int]]:
    """``(start, end)`` in the view of each line, followed by another, whose text
    ends with ``key`` (blanks after it aside; read folded with ``folded``).

    One ``str.find`` over the file, so lines that cannot hold a match cost
    nothing; kept for the document, since the passes after look for the same key.
    """
    cache = _TAILS.setdefault(doc, {})
    found = cache.get((key, folded))
    if found is None:
        found = cache[key, folded] = list(_scan_line_ends(doc, key, folded=folded))
    return found


_TAILS: WeakKeyDictionary[Document, dict[tuple[str, bool], list[tuple[int, int]]]] = (
    WeakKeyDictionary()
)


def _scan_line_ends(doc: Document, key: str, *, folded: bool) -> Iterator[tuple[int, int]]:
    text = doc.folded if folded else doc.view
    view = doc.view
    pos = text.find(key)
    line_index, counted_to = 0, 0
    while pos >= 0:
        line_end = text.find("\n", pos + len(key))
        if line_end < 0:
            return  # the last line: no line after it for old's others
        if text[pos:line_end].rstrip().endswith(key):  # its last copy on the line ends it
            if folded:
                line_index += text.count("\n", counted_to, pos)
                counted_to = pos
                start = doc.line_starts[line_index]
                yield start, doc.line_end(start)
            else:
                yield view.rfind("\n", 0, pos) + 1, line_end
        pos = text.find(key, line_end + 1)


def _line_tail(line: str, key: str, *, folded: bool) -> int | None:
    """Where the end of ``line`` that reads as ``key`` starts, when other text is before it."""
    text = line.rstrip()
    if not folded:
        start = len(text) - len(key)
        found = start > 0 and text.endswith(key)
    else:
        folded_text = punctuation.fold(text)
        if not folded_text.endswith(key):
            return None
        span = unfold_span(text, len(folded_text) - len(key), len(folded_text))
        if span is None or punctuation.fold(text[span[0] :]).strip() != key:
            return None
        start, found = span[0], True
    return start if found and text[:start].strip() else None
