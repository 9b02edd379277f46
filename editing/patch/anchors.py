"""Where a chunk's ``@@`` anchors put it.

Each anchor is the first line at or after the search start whose text is
the anchor (then: that starts with it, at a word boundary), compared
stripped and with typographic look-alikes folded. The chunk is then looked
for after the last anchor, first inside the block that anchor opens (the
lines after it indented deeper than it).
"""

from __future__ import annotations

import functools
import re

from .. import indentation, punctuation
from ..document import Document
from ..errors import NotFound
from . import messages
from .messages import Where
from .model import ADDED, Chunk


def repeats_anchor(chunk: Chunk, first: str | None = None) -> bool:
    """Whether the chunk's first old line (``first``, if given) is its last
    ``@@`` line's text."""
    anchor = chunk.anchors[-1]
    if first is None:
        first = next(text for marker, text in chunk.lines if marker != ADDED)
    if anchor.isascii() and first.isascii():
        key, first = anchor.strip(), first.strip()  # nothing to fold
    else:
        key, first = punctuation.fold(anchor).strip(), punctuation.fold(first).strip()
    return bool(key) and (
        first == key or (first.startswith(key) and _word_ends(key, first[len(key) :]))
    )


def after_anchors(
    doc: Document, chunk: Chunk, start: int, where: Where
) -> tuple[int, int | None, int | None]:
    """Where the chunk's search starts (after its last anchor), the last start
    of a line of the block that anchor opens, and the start of its line (None
    without anchors; no block for an ``End of File`` chunk, which is only
    looked for at the end)."""
    line_start = None
    for anchor in chunk.anchors:
        line = _find_anchor(doc, anchor, start)
        if line is None:
            after = f" after line {doc.line_number(start) - 1}" if start else ""
            raise NotFound(
                where.format(messages.ANCHOR_NOT_FOUND, anchor=anchor, after=after), path=where.path
            )
        line_start, line_end = line
        start = min(line_end + 1, len(doc.view))
    if line_start is None or chunk.end_of_file:
        return start, None, line_start
    return start, _block_last(doc, line_start, start), line_start


def _find_anchor(doc: Document, anchor: str, start: int) -> tuple[int, int] | None:
    """The first line at or after ``start`` that is the anchor (else that begins with it).

    "Begins with" stops at a word boundary: ``def foo`` is not ``def foobar()``.
    Typographic look-alikes are folded when nothing matches as written.
    """
    key = anchor.strip()
    found = _anchor_line(doc.view, key, start)
    if found is None and not (doc.is_ascii and key.isascii()):
        found = _anchor_line_folded(doc, punctuation.fold(key).strip(), start)
    return found


def _anchor_line(view: str, key: str, start: int) -> tuple[int, int] | None:
    beginning = None
    pos = view.find(key, start)
    while pos >= 0:
        line_start = view.rfind("\n", 0, pos) + 1
        line_end = view.find("\n", pos)
        line_end = len(view) if line_end < 0 else line_end
        if not view[line_start:pos].strip():
            rest = view[pos + len(key) : line_end]
            if not rest.strip():
                return line_start, line_end
            if beginning is None and _word_ends(key, rest):
                beginning = line_start, line_end
        pos = view.find(key, line_end)
    return beginning


def _anchor_line_folded(doc: Document, key: str, start: int) -> tuple[int, int] | None:
    beginning = None
    line_start = start
    while line_start < len(doc.view):
        line_end = doc.line_end(line_start)
        text = punctuation.fold(doc.view[line_start:line_end]).strip()
        if text == key:
            return line_start, line_end
        if beginning is None and text.startswith(key) and _word_ends(key, text[len(key) :]):
            beginning = line_start, line_end
        line_start = line_end + 1
    return beginning


def _word_ends(key: str, rest: str) -> bool:
    """Whether ``key`` followed by ``rest`` does not cut a word in two."""
    return not (rest[:1].isalnum() or rest[:1] == "_") or not (
        key[-1:].isalnum() or key[-1:] == "_"
    )


def _block_last(doc: Document, anchor_start: int, body_start: int) -> int | None:
    """The last offset where a line of the block the anchor line opens starts.

    The block is the lines after the anchor that are blank or indented
    deeper than it; None when the next line is not deeper (no block).
    """
    view = doc.view
    indented = view[anchor_start : anchor_start + 1] in (" ", "\t")
    width = indentation.columns(view[anchor_start:body_start]) if indented else 0
    block = view[body_start : _block_end(view, body_start, width + 1)].rstrip()
    # The start of the block's last non-blank line.
    return view.rfind("\n", 0, body_start + len(block)) + 1 if block else None


def _block_end(view: str, pos: int, width: int) -> int:
    """``indentation.block_end``: the start of the first non-blank line from the
    line start ``pos`` on indented less than ``width`` columns (else the end).

    Only the lines a regular expression finds not starting with ``width``
    spaces are looked at one by one (a tab may still make them deep enough);
    it looks for the newline before each line, which it finds fast.
    """
    if pos == 0:
        return indentation.block_end(view, pos, width)
    shallow = _shallow_line(width)
    found = shallow.search(view, pos - 1)
    while found is not None:
        start = found.start() + 1
        if "\t" not in view[start : start + width]:
            return start  # fewer than ``width`` spaces, then text
        end = view.find("\n", start)
        end = len(view) if end < 0 else end
        if indentation.columns(view[start:end]) < width:
            return start
        found = shallow.search(view, end)
    return len(view)


@functools.cache
def _shallow_line(width: int) -> re.Pattern[str]:
    """A newline before a line that does not start with ``width`` spaces and is
    not blank (``\\S`` is what ``str.strip`` keeps)."""
    return re.compile(rf"\n(?! {{{width}}})(?=[^\n]*\S)")
