"""A file's staged edits as hunks: regions of the text the agent read.

The review shows the model's edits, not a fresh diff of whole files, so
``StagedText`` keeps each edit as a region of ``base`` (the text the agent
read) from the moment it is staged. The contract:

- ``hunks`` replace ``base[start:end]`` by ``text``; they are in text order
  and never overlap (``hunks[i].end <= hunks[i + 1].start``). Their order in
  the list is their order in the text, also for two insertions at one point.
- ``text()`` is ``base`` with every hunk applied; ``apply(base, subset)`` with
  the hunks of any subset, always well defined: every hunk is independently
  acceptable, and a subset gives ``base`` with exactly its edits applied.
- ``replace(start, end, new, description)`` takes a region of the *current*
  text. It becomes a hunk of its own unless it overlaps a hunk's text (it
  rewrites what an earlier edit wrote) or it inserts at the point where a
  hunk deleted text (with that hunk rejected, before or after the deleted
  lines would be a guess), or it touches a hunk widened past its edit's own
  region (below). Then it and those hunks become one hunk holding all their
  descriptions. Otherwise hunks that only touch stay apart.
- A region is widened to whole lines (a hunk starts at a line start; its
  base region and its text end at a line end or at the end of the file).
  ``change`` gives whole-line regions, which need no widening.
  A hunk that ends up changing nothing (an edit undone) goes, descriptions
  and all.
- ``change(after, description)`` stages a whole new text: its line
  differences from the current text, each one ``replace``.

Lines end at ``"\\n"`` only (as ``rebase.split_lines``), so CRLF files, a
missing final newline and odd separators come through byte for byte. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from editing.line_diff import line_opcodes

_AFTER_NEWLINE = re.compile(r"(?<=\n)")


@dataclass(frozen=True)
class Hunk:
    """``base[start:end]`` becomes ``text``, for the edits ``descriptions`` name."""

    start: int
    end: int
    text: str
    descriptions: tuple[str, ...]
    # Widened to whole lines past the edit's own region: its edges are not the
    # edit's, so an edit touching them joins it (see ``_joins``).
    widened: bool = field(default=False, compare=False)

    @property
    def label(self) -> str:
        return "; ".join(self.descriptions) or "change"


def split_lines(text: str) -> list[str]:
    """``text``'s lines with their endings; only ``"\\n"`` ends a line."""
    lines = _AFTER_NEWLINE.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def apply(base: str, hunks: Iterable[Hunk]) -> str:
    """``base`` with ``hunks`` (in text order, not overlapping) applied."""
    out: list[str] = []
    cursor = 0
    for hunk in hunks:
        if hunk.start < cursor or hunk.end < hunk.start:
            raise ValueError("hunks overlap or are out of order")
        out += [base[cursor : hunk.start], hunk.text]
        cursor = hunk.end
    out.append(base[cursor:])
    return "".join(out)


def line_of(text: str, offset: int) -> int:
    """The 1-based line of ``text`` that ``offset`` is on."""
    return text.count("\n", 0, offset) + 1


@dataclass
class StagedText:
    base: str
    hunks: list[Hunk] = field(default_factory=list)

    def text(self) -> str:
        return apply(self.base, self.hunks)

    def change(
        self, after: str, description: str, spans: Sequence[tuple[int, int]] | None = None
    ) -> None:
        """Stage ``after`` as the new text: each line difference from the current text.

        ``spans`` are the 0-based line spans ``[start, end)`` of the current text
        that the edit replaced (the engine's regions): the differences inside one
        span are one replacement, so one edit is never split into hunks that
        could be accepted apart.
        """
        current = self.text()
        regions = line_regions(current, after, spans)
        for start, end, new in reversed(regions):  # from the end: earlier offsets hold
            self.replace(start, end, new, description)

    def replace(self, start: int, end: int, new: str, description: str) -> None:
        """Replace ``current[start:end]`` by ``new`` (see the module's contract)."""
        current = self.text()
        if not 0 <= start <= end <= len(current):
            raise ValueError(f"region {start}-{end} is outside the text")
        asked = start, end, new
        start, end, new = _whole_lines(current, start, end, new)
        widened = (start, end, new) != asked
        spans = self._spans()
        joined = [
            i
            for i, span in enumerate(spans)
            if _joins(asked[0], asked[1], span, self.hunks[i])
            or _joins(start, end, span, self.hunks[i])
        ]
        t_start, t_end = start, end
        while joined:  # the union may take in more hunks: grow it until it holds
            first, last = joined[0], joined[-1]
            t_start, t_end = min(start, spans[first][0]), max(end, spans[last][1])
            more = [
                i for i, span in enumerate(spans) if _joins(t_start, t_end, span, self.hunks[i])
            ]
            grown = sorted({*joined, *more})
            if grown == joined:
                break
            joined = grown
        if joined:
            first, last = joined[0], joined[-1]
            b_start = (
                self.hunks[first].start
                if t_start == spans[first][0]
                else t_start - self._growth(first)
            )
            b_end = (
                self.hunks[last].end if t_end == spans[last][1] else t_end - self._growth(last + 1)
            )
            descriptions = [d for h in self.hunks[first : last + 1] for d in h.descriptions]
            widened = widened or any(h.widened for h in self.hunks[first : last + 1])
            at, upto = first, last + 1
        else:
            # Before the first hunk whose text ends after the region starts (an insertion
            # at the end of a hunk's text comes after that hunk).
            at = upto = sum(1 for span in spans if span[1] <= start)
            b_start, b_end = start - self._growth(at), end - self._growth(at)
            descriptions = []
        text = current[t_start:start] + new + current[end:t_end]
        labels = tuple(dict.fromkeys([*descriptions, description]))
        merged = _trimmed(self.base, Hunk(b_start, b_end, text, labels, widened))
        self.hunks[at:upto] = [merged] if merged is not None else []

    def _spans(self) -> list[tuple[int, int]]:
        """Where each hunk's text stands in the current text."""
        spans, shift = [], 0
        for hunk in self.hunks:
            start = hunk.start + shift
            spans.append((start, start + len(hunk.text)))
            shift += len(hunk.text) - (hunk.end - hunk.start)
        return spans

    def _growth(self, count: int) -> int:
        """How much the first ``count`` hunks lengthen the text."""
        return sum(len(h.text) - (h.end - h.start) for h in self.hunks[:count])


def _joins(start: int, end: int, span: tuple[int, int], hunk: Hunk) -> bool:
    """Whether the region must become one hunk with ``hunk`` (its text at ``span``)."""
    t_start, t_end = span
    if start < t_end and t_start < end:
        return True  # overlaps its text, or spans the point where it deleted text
    if hunk.widened and start <= t_end and t_start <= end:
        return True  # touches edges that may lie inside the edit it holds
    deleted_here = t_start == t_end and hunk.start < hunk.end
    return deleted_here and start == end == t_start


def _whole_lines(text: str, start: int, end: int, new: str) -> tuple[int, int, str]:
    """The region widened to whole lines of ``text``, ``new`` widened with it."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = end
    if line_end < len(text) and line_end > 0 and text[line_end - 1] != "\n":
        line_end = _next_line(text, line_end)
    replacement = text[line_start:start] + new + text[end:line_end]
    if replacement and not replacement.endswith("\n") and line_end < len(text):
        line_end = _next_line(text, line_end)  # the new text does not end a line: take the next
    return line_start, line_end, text[line_start:start] + new + text[end:line_end]


def _next_line(text: str, offset: int) -> int:
    """The offset after the end of the line ``offset`` is on (or the end of ``text``)."""
    newline = text.find("\n", offset)
    return len(text) if newline < 0 else newline + 1


def _trimmed(base: str, hunk: Hunk) -> Hunk | None:
    """``hunk``, or None when it changes nothing (its edits undone).

    Lines the two texts share at the ends are not trimmed: a hunk's region
    is where its edits were, and a later edit there must join it (trimming
    would move the point an edit deleted at, and a later insertion there
    would seem to mean somewhere else).
    """
    return None if base[hunk.start : hunk.end] == hunk.text else hunk


def line_regions(
    before: str, after: str, spans: Sequence[tuple[int, int]] | None = None
) -> list[tuple[int, int, str]]:
    """The line differences of ``before`` -> ``after``: ``(start, end, new text)``, offsets
    of ``before`` in order, the common head and tail matched first; differences that
    fall in one of ``spans`` (line spans of ``before``) are merged into one."""
    old, new = split_lines(before), split_lines(after)
    offsets = [0]
    for line in old:
        offsets.append(offsets[-1] + len(line))
    changes = _within(old, new, spans) if spans else None
    if changes is None:
        changes = [
            (i1, i2, j1, j2) for tag, i1, i2, j1, j2 in line_opcodes(old, new) if tag != "equal"
        ]
    merged: list[tuple[int, int, int, int]] = []
    for change in changes:
        if merged and spans and _same_span(merged[-1], change, spans):
            i1, _, j1, _ = merged[-1]
            merged[-1] = (i1, change[1], j1, change[3])
        else:
            merged.append(change)
    return [(offsets[i1], offsets[i2], "".join(new[j1:j2])) for i1, i2, j1, j2 in merged]


def _within(
    old: Sequence[str], new: Sequence[str], spans: Sequence[tuple[int, int]]
) -> list[tuple[int, int, int, int]] | None:
    """The changes of old -> new found only inside ``spans`` (the lines the edit
    replaced; the rest is the same in both), or None when the texts disagree outside.

    One span is one change, trimmed of the whole lines both ends share; several
    are the line differences between the first span's start and the last's end."""
    first = min(start for start, _ in spans)
    last = max(end for _, end in spans)
    tail = len(old) - last
    if last > len(old) or len(new) < first + tail:
        return None
    if old[:first] != new[:first] or old[last:] != new[len(new) - tail :]:
        return None
    middle_old, middle_new = old[first:last], new[first : len(new) - tail]
    if len(spans) > 1:
        return [
            (i1 + first, i2 + first, j1 + first, j2 + first)
            for tag, i1, i2, j1, j2 in line_opcodes(middle_old, middle_new)
            if tag != "equal"
        ]
    head = 0
    while head < min(len(middle_old), len(middle_new)) and middle_old[head] == middle_new[head]:
        head += 1
    end = 0
    while (
        end < min(len(middle_old), len(middle_new)) - head
        and middle_old[-1 - end] == middle_new[-1 - end]
    ):
        end += 1
    if head == len(middle_old) == len(middle_new):
        return []
    return [(first + head, last - end, first + head, len(new) - tail - end)]


def _same_span(
    first: tuple[int, int, int, int],
    second: tuple[int, int, int, int],
    spans: Sequence[tuple[int, int]],
) -> bool:
    """Whether two line differences lie in one replaced span."""

    def inside(start: int, end: int, span: tuple[int, int]) -> bool:
        return span[0] <= start and end <= span[1]

    return any(inside(first[0], first[1], s) and inside(second[0], second[1], s) for s in spans)
