"""Matches inside lines: whole-line old and new text, and how new's lines are indented.

An exact or fragment match can start or end inside a line; the write side
works on whole lines, so the file's own text around the match is spliced
into old and new. A one-line old with a multi-line new also leaves open how
new's later lines are indented (``one_line_indent``).
"""

from __future__ import annotations

from collections.abc import Sequence

from . import indentation, punctuation
from .document import Document
from .drift import Spans
from .indentation import IndentMap
from .matches import Level, Match


def splice(
    view: str, region: tuple[int, int], matches: Sequence[Match], old: str, new: str
) -> tuple[str, str, tuple[Spans, Spans]]:
    """Whole-line old and new text for matches that start or end inside lines,
    and the spans of each that the model wrote (the rest is the file's)."""
    start, end = region
    old_parts, new_parts = [], []
    old_written: list[tuple[int, int]] = []
    new_written: list[tuple[int, int]] = []
    old_length = new_length = 0
    cursor = start
    for match in matches:
        m_start, m_end, old_piece, new_piece = (
            _fragment_pieces(view, match, old, new)
            if match.fragment
            else (match.start, match.end, old, new)
        )
        old_parts += [view[cursor:m_start], old_piece]
        new_parts += [view[cursor:m_start], new_piece]
        old_length += m_start - cursor
        new_length += m_start - cursor
        old_written.append((old_length, old_length + len(old_piece)))
        new_written.append((new_length, new_length + len(new_piece)))
        old_length += len(old_piece)
        new_length += len(new_piece)
        cursor = m_end
    old_parts.append(view[cursor:end])
    new_parts.append(view[cursor:end])
    # Without the empty parts, a match of whole lines is old and new themselves, not copies.
    return (
        "".join(filter(None, old_parts)),
        "".join(filter(None, new_parts)),
        (tuple(old_written), tuple(new_written)),
    )


def within(spans: Spans, start: int, end: int) -> Spans:
    """The parts of ``spans`` inside ``[start, end)``, counted from ``start``."""
    return tuple(
        (max(a, start) - start, min(b, end) - start) for a, b in spans if a < end and b > start
    )


def outer_blanks(old: str, level: Level) -> tuple[str, str]:
    """The blanks before and after a fragment's text, as its level reads them."""
    chars = " \t" if level == Level.TRAILING_WHITESPACE else None
    return old[: len(old) - len(old.lstrip(chars))], old[len(old.rstrip(chars)) :]


def _fragment_pieces(view: str, match: Match, old: str, new: str) -> tuple[int, int, str, str]:
    """A fragment match's span, old and new, with old's outer blanks settled.

    The match ignored the blanks around old. Those the file has there too
    (typographic spaces aside) are the file's own: the span grows over them
    and new keeps them where the model put them. The others were drift, and
    new loses them as well.
    """
    lead, trail = outer_blanks(old, match.level)
    start, end = match.start, match.end
    old_piece, new_piece = old[len(lead) : len(old) - len(trail)], new
    line_start = view.rfind("\n", 0, start) + 1
    line_end = view.find("\n", end)
    line_end = len(view) if line_end < 0 else line_end
    before = view[max(line_start, start - len(lead)) : start]
    if lead and punctuation.fold(before) == punctuation.fold(lead):
        start -= len(lead)
        old_piece = lead + old_piece
    elif lead:
        new_piece = new_piece[len(lead) :] if new_piece.startswith(lead) else new_piece.lstrip()
    after = view[end : min(line_end, end + len(trail))]
    if trail and punctuation.fold(after) == punctuation.fold(trail):
        end += len(trail)
        old_piece += trail
    elif trail and new_piece.endswith(trail):
        new_piece = new_piece[: -len(trail)]
    elif "\n" not in new_piece:
        new_piece = new_piece.rstrip()
    return start, end, old_piece, new_piece


def one_line_indent(
    doc: Document,
    matches: Sequence[Match],
    old: str,
    new: str,
    *,
    start: int,
    first_line: str,
) -> IndentMap | None:
    """How new lines after the first are indented when old is one line quoted
    from its indentation on: like the file's line (None: as the model wrote them).

    Not when old was quoted without any indentation and new's lines are all
    at least as deep as the file's line: then they were written where they go.
    """
    if len(matches) != 1 or _has_inner_newline(old) or not old.strip():
        return None
    first = matches[0]
    loose = first.level == Level.PUNCTUATION
    prefix = doc.view[start : first.start]
    file_indent = indentation.leading(first_line)
    # A fragment's match starts after its blanks; an exact one includes them.
    matched_lead = "" if first.fragment else indentation.leading(old)
    old_lead = indent_of(old, loose=loose)
    if prefix + matched_lead == file_indent:
        if old_lead == "" and _in_file_columns(new, file_indent, loose=loose):
            return None
        return indentation.infer([(old_lead, file_indent)])
    return None


def _has_inner_newline(text: str) -> bool:
    """Whether ``text`` has a newline before its final newlines (read without a copy of it)."""
    end = len(text)
    while end and text[end - 1] == "\n":
        end -= 1
    return text.find("\n", 0, end) >= 0


def indent_of(line: str, *, loose: bool) -> str:
    return indentation.model_leading(line)[0] if loose else indentation.leading(line)


def _in_file_columns(new: str, file_indent: str, *, loose: bool) -> bool:
    """Whether every non-blank line of ``new`` after its first is indented at
    least as deep as ``file_indent``: written where it goes in the file."""
    rest = [line for line in new.split("\n")[1:] if line.strip()]
    return all(indent_of(line, loose=loose).startswith(file_indent) for line in rest)
