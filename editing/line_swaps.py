"""``replace_all`` of one line of text by another, every place in one pass.

The general path builds a match, a replacement and a report region for each
place old is found, and throws most of them away. In the commonest
``replace_all`` (exact, old and new one line each, a file whose lines all end
alike) every changed line is one line's text for another, keeps its number,
and is listed both as a region replaced and as a line changed.
``replace_all`` here finds every place old occurs with one ``str.find``
loop, leaves out those inside a copy of new already in the file
(``applied``), those inside a line's indentation and those overlapping the
place kept before (as ``matcher`` and ``edit`` do); one loop over the
changed lines then writes the new text, another the unified diff (as
``report`` writes it). Several such edits (a ``multi_edit``) are written
together when no two change the same line.

The result is the general path's to the byte; the property tests compare
the two. Whatever is not of that shape, or would be refused (old nowhere,
every place already inside a copy of new), is left to the general path:
``replace_all`` gives None.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from operator import itemgetter

from .applied import could_be_inside
from .document import Document
from .matches import Level
from .report import LineRange, lines_after, lines_before
from .unified_hunks import CONTEXT


@dataclass(frozen=True, slots=True)
class LineSwaps:
    """The edits applied: the new file text, the places replaced, the lines
    changed (each both a region replaced and a changed line) and the diff."""

    text: str
    replaced: int
    lines: tuple[LineRange, ...]
    diff: str
    first_at: int  # where the first line changed starts in the file's text


def replace_all(doc: Document, edits: Sequence[tuple[str, str]], path: str) -> LineSwaps | None:
    """Every place of each ``old`` (exact) replaced by its ``new``, or None when
    the general path has to decide.

    ``edits`` are ``(old, new)`` as the model meant them (CRLF read as LF),
    each past the request checks (old is not empty and not new). Edits that
    change the same line are the general path's to refuse.
    """
    swaps: list[Swap] = []
    replaced = 0
    for old, new in edits:
        if not _one_line_each(doc, old, new):
            return None
        offsets = _offsets_in_new(old, new)
        if len(offsets) > _MOST_OFFSETS:
            return None  # the general path pairs places with copies in one sorted pass
        places = _places(doc.view, old, new, offsets)
        if not places:
            return None  # old nowhere (a hint to write) or only inside copies of new (a refusal)
        swaps += _line_swaps(doc.view, places, len(old), new)
        replaced += len(places)
    if len(edits) > 1:
        swaps.sort(key=itemgetter(0))
        if any(a[0] == b[0] for a, b in pairwise(swaps)):
            return None  # two edits change one line
    text = _new_text(doc, swaps)
    if text == doc.original:
        return None
    lines = tuple([LineRange(swap[0], swap[0]) for swap in swaps])
    first_at = doc.original_line_start(swaps[0][1])
    return LineSwaps(text, replaced, lines, _diff(doc.view, swaps, path), first_at)


def _one_line_each(doc: Document, old: str, new: str) -> bool:
    """Whether the edit writes one line's text for another's, lines left as they are.

    A new that is all blanks empties the lines it leaves blank, and a file
    with both endings or a lone CR asks for each line's ending to be looked
    up: the general path does both.
    """
    return (
        "\n" not in old
        and "\n" not in new
        and "\r" not in old
        and "\r" not in new
        and bool(new.strip())
        and "\r" not in doc.view
        and (doc.all_crlf or not doc.has_crlf)
    )


# Places of old in new beyond which each place would be tried against too many copies.
_MOST_OFFSETS = 4


def _offsets_in_new(old: str, new: str) -> list[int]:
    """Where old starts in new, when a place of old can sit inside a copy of
    new at all (``applied``'s test): a place at ``p`` is inside a copy of new
    at ``p - k`` for one of these ``k``."""
    if not could_be_inside(old, new, Level.EXACT):
        return []
    return [k for k in range(len(new) - len(old) + 1) if new.startswith(old, k)]


def _places(view: str, old: str, new: str, offsets: list[int]) -> list[int]:
    """Where old is replaced: every exact occurrence (overlapping ones
    included, none starting inside a line's indentation when old starts with
    a blank) that no copy of new holds (at ``offsets``), less those that
    overlap the place kept before them."""
    size = len(old)
    blank_start = old[0] in " \t"
    new_blank_start = new[0] in " \t"
    indentation = _Indentation(view)
    startswith, find = view.startswith, view.find
    places: list[int] = []
    kept_end = 0
    pos = find(old)
    while pos >= 0:
        if blank_start and indentation.holds(pos):
            pass
        else:
            for k in offsets:
                at = pos - k
                if (
                    at >= 0
                    and startswith(new, at)
                    and not (new_blank_start and indentation.holds(at))
                ):
                    break  # inside a copy of new: already applied there
            else:
                if pos >= kept_end:
                    places.append(pos)
                    kept_end = pos + size
        pos = find(old, pos + 1)
    return places


_TEXT = re.compile(r"[^ \t]")


class _Indentation:
    """Which offsets of a view lie inside a line's indentation, where an
    exact match never starts (``exact_search``'s rule). Each line is read once
    however many offsets on it are asked about, one after the other."""

    def __init__(self, view: str) -> None:
        self._view = view
        self._start = self._end = self._text = 0  # the last line asked about

    def holds(self, pos: int) -> bool:
        """Whether ``pos`` (in a line's text) is past its line's start but
        within its leading blanks."""
        if not self._start <= pos < self._end:
            view = self._view
            self._start = view.rfind("\n", 0, pos) + 1
            end = view.find("\n", pos)
            self._end = len(view) if end < 0 else end
            text = _TEXT.search(view, self._start, self._end)
            self._text = self._end if text is None else text.start()
        return self._start < pos <= self._text


Swap = tuple[int, int, int, str]  # line number, view start and end of its text, new text


def _line_swaps(view: str, places: list[int], size: int, new: str) -> list[Swap]:
    """Each changed line with the text ``new`` at ``places`` gives it."""
    swaps: list[Swap] = []
    number, counted = 1, 0
    index, count = 0, len(places)
    rfind, find, line_count = view.rfind, view.find, view.count
    while index < count:
        pos = places[index]
        start = rfind("\n", 0, pos) + 1
        end = find("\n", pos)
        if end < 0:
            end = len(view)
        number += line_count("\n", counted, start)
        counted = start
        index += 1
        if index == count or places[index] >= end:  # one place on the line (the usual)
            line = view[start:pos] + new + view[pos + size : end]
        else:
            parts = [view[start:pos], new]
            after = pos + size
            while index < count and places[index] < end:
                pos = places[index]
                parts += (view[after:pos], new)
                after = pos + size
                index += 1
            parts.append(view[after:end])
            line = "".join(parts)
        swaps.append((number, start, end, line))
    return swaps


def _new_text(doc: Document, swaps: list[Swap]) -> str:
    """The file's text with each line swapped (endings as they were: all CRLF or all LF)."""
    view = doc.view
    pieces: list[str] = []
    cursor = 0
    for _number, start, end, line in swaps:
        pieces += (view[cursor:start], line)
        cursor = end
    pieces.append(view[cursor:])
    new_view = "".join(pieces)
    return doc.bom + (new_view.replace("\n", "\r\n") if doc.has_crlf else new_view)


def _diff(view: str, swaps: list[Swap], path: str) -> str:
    """The unified diff ``report.describe`` writes for these line swaps: lines
    changed less than twice the context apart share a hunk, each run of
    neighbouring changed lines shows its old lines, then its new ones."""
    out = [f"--- {path}\n", f"+++ {path}\n"]
    hunk = _open_hunk(out, view, swaps[0])
    removed: list[str] = []
    added: list[str] = []
    previous = swaps[0]
    end = previous[1]  # view offset of the line after the previous changed line
    for swap in swaps:
        number, start, line_end, line = swap
        if start != end:
            out += removed
            out += added
            removed, added = [], []
            if number - previous[0] - 1 > 2 * CONTEXT:
                _close_hunk(out, view, hunk, previous)
                hunk = _open_hunk(out, view, swap)
            else:  # the lines between, as context (``start`` is a line start)
                out.append(" " + view[end : start - 1].replace("\n", "\n ") + "\n")
        removed.append(f"-{view[start:line_end]}\n")
        added.append(f"+{line}\n")
        end = line_end + 1
        previous = swap
    out += removed
    out += added
    _close_hunk(out, view, hunk, previous)
    return "".join(out)


_Hunk = tuple[int, int]  # where its header goes in the output, its first line


def _open_hunk(out: list[str], view: str, first: Swap) -> _Hunk:
    """Start a hunk at the changed line ``first``: its header (written when it
    is closed) and the context before it."""
    before = lines_before(view, first[1], CONTEXT)
    hunk = (len(out), first[0] - len(before))
    out.append("")
    out += [f" {line}\n" for line in before]
    return hunk


def _close_hunk(out: list[str], view: str, hunk: _Hunk, last: Swap) -> None:
    """End the hunk at the changed line ``last``: the context after it, and the
    header (old and new lengths alike: no line comes or goes)."""
    at, first_line = hunk
    after = lines_after(view, last[2] + 1, CONTEXT)
    out += [f" {line}\n" for line in after]
    span = f"{first_line},{last[0] - first_line + 1 + len(after)}"
    out[at] = f"@@ -{span} +{span} @@\n"
