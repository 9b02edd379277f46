"""The matcher's search for a one-line old text (no newline) past pass 0.

Such a fragment matches as a substring with its outer blanks ignored at
``TRAILING_WHITESPACE``, and with typographic look-alikes folded to ASCII
on both sides as well at ``PUNCTUATION`` (``INDENTATION`` adds nothing for
one line); one quoted with blanks before it only matches at a line's start.
In a file that is not ASCII the folded view is searched and each hit mapped
back to view offsets (``unfold_span``, which the search for a text starting
inside a line shares).
"""

from __future__ import annotations

from collections.abc import Iterator

from . import punctuation
from .document import Document
from .matches import Level, Match


def _in_range(matches: Iterator[Match], first: int, last: int | None) -> Iterator[Match]:
    """The matches starting in ``[first, last]`` of matches in file order."""
    for match in matches:
        if last is not None and match.start > last:
            return
        if match.start >= first:
            yield match


def _occurrences(text: str, needle: str, first: int = 0, last: int | None = None) -> Iterator[int]:
    """Start of every occurrence of ``needle`` (overlapping ones included) in
    ``[first, last]``."""
    stop = len(text) if last is None else min(len(text), last + len(needle))
    pos = text.find(needle, first, stop)
    while pos >= 0:
        yield pos
        pos = text.find(needle, pos + 1, stop)


def find_fragment(
    doc: Document, old: str, level: Level, first: int, last: int | None
) -> Iterator[Match]:
    """Matches of a one-line old with its outer blanks ignored.

    An old quoted with blanks before it was quoted from a line's start: it
    only matches text that has nothing but blanks before it on its line.
    """
    matches = _fragments(doc, old, level, first, last)
    if old[:1].isspace():
        return (m for m in matches if doc.starts_line(m.start))
    return matches


def _fragments(
    doc: Document, old: str, level: Level, first: int, last: int | None
) -> Iterator[Match]:
    if level == Level.TRAILING_WHITESPACE:
        core = old.strip(" \t")  # odd spaces are punctuation drift
        if not core or core == old:
            return iter(())
        return (
            Match(s, s + len(core), level, fragment=True)
            for s in _occurrences(doc.view, core, first, last)
        )
    if level == Level.PUNCTUATION:
        core = punctuation.fold(old).strip()
        if not core or (core == old.strip() and doc.is_ascii):
            return iter(())
        if doc.is_ascii:
            return (
                Match(s, s + len(core), level, fragment=True)
                for s in _occurrences(doc.view, core, first, last)
            )
        return _in_range(_fragments_in_folded(doc, core), first, last)
    return iter(())


def _fragments_in_folded(doc: Document, core: str) -> Iterator[Match]:
    """Fragment matches found in the folded view, mapped back to view offsets."""
    folded = doc.folded
    line_index = 0
    counted_to = 0
    for pos in _occurrences(folded, core):
        line_index += folded.count("\n", counted_to, pos)
        counted_to = pos
        line_start = doc.line_starts[line_index]
        folded_start = folded.rfind("\n", 0, pos) + 1
        view_line = doc.view[line_start : doc.line_end(line_start)]
        span = unfold_span(view_line, pos - folded_start, pos - folded_start + len(core))
        # Composed accents can shift the folded line against the view: check.
        if span and punctuation.fold(view_line[span[0] : span[1]]).strip() == core:
            yield Match(
                line_start + span[0], line_start + span[1], Level.PUNCTUATION, fragment=True
            )


def unfold_span(line: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of ``line`` whose fold is ``fold(line)[start:end]``, if chars line up."""
    folded_pos = 0
    view_start = None
    for index, char in enumerate(line):
        if folded_pos == start and view_start is None:
            view_start = index
        if folded_pos == end:
            return (view_start, index) if view_start is not None else None
        folded_pos += len(punctuation.fold(char))
    if folded_pos == end and view_start is not None:
        return view_start, len(line)
    return None
