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

Lines end at ``"\\n"`` only (``line_cut.split_lines``), so CRLF files, a
missing final newline and odd separators come through byte for byte. The
line regions of a change are found between the lines the two texts share
at their ends (``line_cut``): a change costs what it changes, not the file.
Pure.

Its size: ``StagedText`` and the line regions it is made from share one
contract (above), which the property tests check as a whole.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from agent.staging.line_cut import Cut, diff_middles, split_lines
from editing.line_diff import common_ends, line_opcodes


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
        self,
        after: str,
        description: str,
        spans: Sequence[tuple[int, int]] | None = None,
        written: Sequence[tuple[int, int]] | None = None,
        anchor: tuple[int, int] | None = None,
    ) -> None:
        """Stage ``after`` as the new text: each line difference from the current text.

        ``spans`` are the 0-based line spans ``[start, end)`` of the current text
        that the edit replaced (the engine's regions): the differences inside one
        span are one replacement, so one edit is never split into hunks that
        could be accepted apart. ``written`` are the spans of ``after`` the
        engine wrote in their place, one for each: then the hunks come from
        those records, with no diff. ``anchor``: a line of the current text (0-based)
        and the offset it starts at, from the engine too (see ``line_regions``).
        """
        current = self.text()
        regions = line_regions(current, after, spans, written, anchor)
        self._replace_each(current, regions, description)

    def replace(self, start: int, end: int, new: str, description: str) -> None:
        """Replace ``current[start:end]`` by ``new`` (see the module's contract)."""
        self._replace_each(self.text(), [(start, end, new)], description)

    def _replace_each(
        self, current: str, regions: Sequence[tuple[int, int, str]], description: str
    ) -> None:
        """``replace`` each region of ``current`` (in text order, apart), the last first.

        In one pass: a region joins only hunks whose text touches it, so each
        one looks at its neighbours alone, never at every hunk and the whole
        text (one region per match of a ``replace_all`` would cost the square
        of their number). The hunks before the region being placed keep their
        spans in ``current``; those after it are done (``done``, last first).
        When a region's lines reach text that a region after it changed (its
        own lines never do when regions come from ``line_regions``), the text
        is read again as it stands.
        """
        ahead = _Ahead(self.hunks, self._spans())
        done: list[Hunk] = []
        valid = len(current)  # ``current[:valid]`` is the text as it stands
        for start, end, new in reversed(regions):
            if not 0 <= start <= end <= len(current):
                raise ValueError(f"region {start}-{end} is outside the text")
            region = (start, end, new)
            placed = ahead.place(current, region, valid, (self.base, description))
            if placed is None:
                self.hunks = [*ahead.hunks, *reversed(done)]
                current, done = self.text(), []
                ahead = _Ahead(self.hunks, self._spans())
                placed = ahead.place(current, region, len(current), (self.base, description))
                if placed is None:
                    raise AssertionError("a region reaches past the text it was read in")
            hunk, kept, t_start = placed
            done += reversed(kept)
            if hunk is not None:
                done.append(hunk)
            valid = min(valid, t_start)
        self.hunks = [*ahead.hunks, *reversed(done)]

    def _spans(self) -> list[tuple[int, int]]:
        """Where each hunk's text stands in the current text."""
        spans, shift = [], 0
        for hunk in self.hunks:
            start = hunk.start + shift
            spans.append((start, start + len(hunk.text)))
            shift += len(hunk.text) - (hunk.end - hunk.start)
        return spans


class _Ahead:
    """The hunks before the regions still to place, with their text's spans and shifts."""

    def __init__(self, hunks: list[Hunk], spans: list[tuple[int, int]]) -> None:
        self.hunks = list(hunks)
        self.spans = spans
        self.ends = [end for _, end in spans]
        self.shifts = [0]  # shifts[k]: how much the first k hunks lengthen the text
        for hunk in hunks:
            self.shifts.append(self.shifts[-1] + len(hunk.text) - (hunk.end - hunk.start))

    def place(
        self, current: str, region: tuple[int, int, str], valid: int, made: tuple[str, str]
    ) -> tuple[Hunk | None, list[Hunk], int] | None:
        """Place one region for the edit made of ``(base, description)``: the hunk
        it makes (None when it changes nothing), the hunks after it (taken off
        ``self``, in order) and where its text starts. None when its lines
        reach ``current[valid:]``, which no longer is the text.
        """
        base, description = made
        asked = region
        start, end, new = _whole_lines(current, *region)
        if end > valid:
            return None
        widened = (start, end, new) != asked
        spans, hunks = self.spans, self.hunks
        # Only hunks whose text reaches the region, and hunks touching those, can join it.
        lo = bisect_left(self.ends, start)
        while 0 < lo < len(spans) and spans[lo - 1][1] >= spans[lo][0]:
            lo -= 1
        hi = lo
        while hi < len(spans) and (
            spans[hi][0] <= end or (hi > lo and spans[hi][0] <= spans[hi - 1][1])
        ):
            hi += 1
        near = range(lo, hi)
        joined = [
            i
            for i in near
            if _joins(asked[0], asked[1], spans[i], hunks[i])
            or _joins(start, end, spans[i], hunks[i])
        ]
        t_start, t_end = start, end
        while joined:  # the union may take in more hunks: grow it until it holds
            first, last = joined[0], joined[-1]
            t_start, t_end = min(start, spans[first][0]), max(end, spans[last][1])
            more = [i for i in near if _joins(t_start, t_end, spans[i], hunks[i])]
            grown = sorted({*joined, *more})
            if grown == joined:
                break
            joined = grown
        if t_end > valid:
            return None
        if joined:
            first, last = joined[0], joined[-1]
            b_start = (
                hunks[first].start if t_start == spans[first][0] else t_start - self.shifts[first]
            )
            b_end = hunks[last].end if t_end == spans[last][1] else t_end - self.shifts[last + 1]
            descriptions = [d for h in hunks[first : last + 1] for d in h.descriptions]
            widened = widened or any(h.widened for h in hunks[first : last + 1])
            at, upto = first, last + 1
        else:
            # Before the first hunk whose text ends after the region starts (an insertion
            # at the end of a hunk's text comes after that hunk).
            at = upto = bisect_right(self.ends, start)
            b_start, b_end = start - self.shifts[at], end - self.shifts[at]
            descriptions = []
        text = current[t_start:start] + new + current[end:t_end]
        labels = tuple(dict.fromkeys([*descriptions, description]))
        hunk = _trimmed(base, Hunk(b_start, b_end, text, labels, widened))
        kept = hunks[upto:]
        del hunks[at:], spans[at:], self.ends[at:], self.shifts[at + 1 :]
        return hunk, kept, t_start


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
    before: str,
    after: str,
    spans: Sequence[tuple[int, int]] | None = None,
    written: Sequence[tuple[int, int]] | None = None,
    anchor: tuple[int, int] | None = None,
) -> list[tuple[int, int, str]]:
    """The line differences of ``before`` -> ``after``: ``(start, end, new text)``, offsets
    of ``before`` in order, the common head and tail matched first; differences that
    fall in one of ``spans`` (line spans of ``before``) are merged into one.

    Only the lines between the whole lines both texts share at either end are
    split and compared (``Cut``), with the answer the whole texts' lines give:
    a one-line edit of a megabyte file looks at a few lines, not 20,000.
    ``anchor`` (a line of ``before`` and its start) spares the count of the lines
    up to the first change; like ``spans`` it decides how changes are grouped,
    never what they are."""
    cut = Cut.of(before, after, spans or (), written or (), anchor)
    old, new = split_lines(cut.old), split_lines(cut.new)
    spans, written = _moved(spans, -cut.lines), _moved(written, -cut.lines)
    # From the records each change is already alone in its span (they never overlap).
    merged = _recorded(old, new, spans, written) if spans and written else None
    if merged is None:
        merged = _merged_by_span(old, new, spans, cut)
    offsets = list(accumulate(map(len, old), initial=cut.start))
    return [(offsets[i1], offsets[i2], "".join(new[j1:j2])) for i1, i2, j1, j2 in merged]


def _moved(spans: Sequence[tuple[int, int]] | None, by: int) -> Sequence[tuple[int, int]] | None:
    """``spans`` with every line moved ``by`` lines."""
    if not spans or not by:
        return spans
    return [(start + by, end + by) for start, end in spans]


def _merged_by_span(
    old: Sequence[str], new: Sequence[str], spans: Sequence[tuple[int, int]] | None, cut: Cut
) -> list[tuple[int, int, int, int]]:
    """The line differences, found inside ``spans`` or by a diff, those in one span merged."""
    changes = _within(old, new, spans) if spans else None
    if changes is None:
        changes = diff_middles(old, new, cut)
    merged: list[tuple[int, int, int, int]] = []
    within = _SpanIndex(spans) if spans else None
    for change in changes:
        if merged and within is not None and within.share(merged[-1], change):
            i1, _, j1, _ = merged[-1]
            merged[-1] = (i1, change[1], j1, change[3])
        else:
            merged.append(change)
    return merged


def _recorded(
    old: Sequence[str],
    new: Sequence[str],
    spans: Sequence[tuple[int, int]],
    written: Sequence[tuple[int, int]],
) -> list[tuple[int, int, int, int]] | None:
    """The changes as the engine recorded them: ``old[s:e]`` became ``new[w1:w2]``
    for each span and its written span, each trimmed of the whole lines both
    ends share; None when the records do not add up to the texts (the lines
    around them must be the same on both sides, which is checked)."""
    if len(spans) != len(written):
        return None
    changes = []
    i = j = 0  # the lines before these are accounted for, on each side
    for (s1, s2), (w1, w2) in sorted(zip(spans, written, strict=True)):
        if not (i <= s1 <= s2 <= len(old) and j <= w1 <= w2 <= len(new)):
            return None  # out of order, or lines the texts do not have
        if w1 - j != s1 - i or old[i:s1] != new[j:w1]:
            return None
        i, j = s2, w2
        if s2 - s1 == 1 == w2 - w1:  # one line for one (each place of a replace_all)
            if old[s1] != new[w1]:
                changes.append((s1, s2, w1, w2))
            continue
        head, tail = common_ends(old, new, (s1, s2, w1, w2))
        if (s2 - s1, w2 - w1) != (head + tail, head + tail):
            changes.append((s1 + head, s2 - tail, w1 + head, w2 - tail))
    if len(old) - i != len(new) - j or old[i:] != new[j:]:
        return None
    return changes


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
    if first < 0 or last > len(old) or len(new) < first + tail:
        return None  # lines the texts do not have (a negative one would count from the end)
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


class _SpanIndex:
    """Which of ``spans`` hold a line range, found by bisection (an edit of a
    ``replace_all`` has a span per match: asking each of them would cost the
    square of their number)."""

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        self.spans = sorted(spans)
        self.starts = [start for start, _ in self.spans]
        self.reach = []  # reach[k]: the furthest end of spans[:k + 1]
        furthest = -1
        for _, end in self.spans:
            furthest = max(furthest, end)
            self.reach.append(furthest)

    def holding(self, start: int, end: int) -> set[int]:
        """The indexes of the spans with ``start``..``end`` inside them."""
        found = set()
        k = bisect_right(self.starts, start) - 1
        while k >= 0 and self.reach[k] >= end:
            if self.spans[k][1] >= end:
                found.add(k)
            k -= 1
        return found

    def share(self, first: tuple[int, int, int, int], second: tuple[int, int, int, int]) -> bool:
        """Whether two line differences lie in one span."""
        return not self.holding(first[0], first[1]).isdisjoint(self.holding(second[0], second[1]))
