"""A line diff that keeps the lines both sides share at either end in place.

A diff of repeated lines can align them in several ways; keeping the common
first and last lines where they are keeps their bytes (and line endings)
there. Used by the engine when it writes the model's new lines and by the
agent when it finds an edit's hunk inside the lines it replaced.

Between the common ends it is ``difflib``'s diff. A longer middle (over
2,500 line pairs: 50 lines a side) is first cut at the lines that occur
exactly once on each side, in the same order (as patience diff does), and
each piece between two such lines is diffed on its own: ``difflib`` grows
with the square of the lines that repeat, which a whole block rewritten by
a model, or a file of look-alike functions, has many of (300 such lines
took 55 ms in one ``difflib`` diff).

Long sides (over 2,500 line pairs too) of as many lines, where no changed
line of one side is found anywhere on the other (each line rewritten in
place, the shape of most edits of a long block), are diffed line by line
instead: that keeps every other line where it is, which is as many as any
diff keeps (a changed line of that side cannot be kept), and it needs no
count of the lines.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from itertools import compress
from operator import lt, ne
from typing import Literal

Tag = Literal["replace", "delete", "insert", "equal"]
Opcode = tuple[Tag, int, int, int, int]  # difflib's: tag, old start, old end, new start, new end

# Middles of up to this many line pairs (old lines x new lines) go to difflib whole; two
# sides of as many lines past it may be diffed line by line (``agent.staging.hunks`` asks).
WHOLE = 2_500
# Changed lines looked at for a move before the line-by-line test builds its sets.
_PROBED = 8


def line_opcodes(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """difflib's opcodes of ``old`` -> ``new``, the common head and tail matched directly."""
    if len(old) == 1 and len(new) == 1:
        # One line for one (each match of a one-line replace_all): no diff to run.
        return [("equal" if old[0] == new[0] else "replace", 0, 1, 0, 1)]
    in_place = _in_place(old, new)
    if in_place is not None:
        return in_place
    return merged(_opcodes(old, new, (0, len(old), 0, len(new))))


def _in_place(old: Sequence[str], new: Sequence[str]) -> list[Opcode] | None:
    """The line-by-line diff of two sides of as many lines, or None unless
    the changed lines of one side are all absent from the other.

    Then no diff keeps more lines: a kept line of that side must be one of
    its unchanged lines, and the line-by-line diff keeps them all.
    """
    if len(old) != len(new) or len(old) * len(new) <= WHOLE:
        return None
    changed = list(compress(range(len(old)), map(ne, old, new)))
    if not changed:
        return [("equal", 0, len(old), 0, len(new))]
    if _shifted(old, new, changed):
        return None
    changed_new, changed_old = {new[i] for i in changed}, {old[i] for i in changed}
    if not changed_new.isdisjoint(old) and not changed_old.isdisjoint(new):
        return None
    opcodes: list[Opcode] = []
    kept = 0  # the line after the last run of changed lines
    run_start = previous = changed[0]
    for i in [*changed[1:], -1]:
        if i == previous + 1:
            previous = i
            continue
        if run_start > kept:
            opcodes.append(("equal", kept, run_start, kept, run_start))
        opcodes.append(("replace", run_start, previous + 1, run_start, previous + 1))
        kept = previous + 1
        run_start = previous = i
    if kept < len(old):
        opcodes.append(("equal", kept, len(old), kept, len(new)))
    return opcodes


def _shifted(old: Sequence[str], new: Sequence[str], changed: list[int]) -> bool:
    """Whether the first changed lines already show a changed line of each side
    one line away on the other (lines moved up or down: the common way the
    test above fails), so the sets need not be built to know it fails."""
    found_in_old = found_in_new = False
    for i in changed[:_PROBED]:
        near = [k for k in (i - 1, i + 1) if 0 <= k < len(old)]
        found_in_old = found_in_old or any(new[i] == old[k] for k in near)
        found_in_new = found_in_new or any(old[i] == new[k] for k in near)
        if found_in_old and found_in_new:
            return True
    return False


Span = tuple[int, int, int, int]  # old[a1:a2] against new[b1:b2]


def _opcodes(old: Sequence[str], new: Sequence[str], span: Span) -> list[Opcode]:
    """The opcodes of ``old[a1:a2]`` -> ``new[b1:b2]``, at their offsets."""
    a1, a2, b1, b2 = span
    if a2 - a1 == b2 - b1 and old[a1:a2] == new[b1:b2]:
        # The same lines (most pieces between two unique lines): no loop over them.
        return [("equal", a1, a2, b1, b2)] if a2 > a1 else []
    head, tail = common_ends(old, new, span)
    opcodes: list[Opcode] = [("equal", a1, a1 + head, b1, b1 + head)] if head else []
    m1, m2, n1, n2 = a1 + head, a2 - tail, b1 + head, b2 - tail
    cut = None if (m2 - m1) * (n2 - n1) <= WHOLE else _anchored(old, new, (m1, m2, n1, n2))
    if cut is not None:
        opcodes += cut
    else:
        # Short, or no line to cut at: difflib (on a long middle with its
        # popular-line heuristic, which stays near-linear).
        long = (m2 - m1) * (n2 - n1) > WHOLE
        middle = _difflib(old[m1:m2], new[n1:n2], autojunk=long)
        opcodes += [(t, i1 + m1, i2 + m1, j1 + n1, j2 + n1) for t, i1, i2, j1, j2 in middle]
    if tail:
        opcodes.append(("equal", a2 - tail, a2, b2 - tail, b2))
    return opcodes


def common_ends(old: Sequence[str], new: Sequence[str], span: Span) -> tuple[int, int]:
    """How many lines ``old[a1:a2]`` and ``new[b1:b2]`` share at their start, and
    then at their end (not counting those lines twice)."""
    a1, a2, b1, b2 = span
    shorter = min(a2 - a1, b2 - b1)
    head = 0
    while head < shorter and old[a1 + head] == new[b1 + head]:
        head += 1
    tail = 0
    while tail < shorter - head and old[a2 - 1 - tail] == new[b2 - 1 - tail]:
        tail += 1
    return head, tail


def _difflib(old: Sequence[str], new: Sequence[str], *, autojunk: bool) -> list[Opcode]:
    if not old and not new:
        return []
    if not old or not new or set(old).isdisjoint(new):
        # No line in common: one change, as difflib would find (without building its index).
        tag: Tag = "replace" if old and new else "delete" if old else "insert"
        return [(tag, 0, len(old), 0, len(new))]
    return difflib.SequenceMatcher(None, old, new, autojunk=autojunk).get_opcodes()


def _anchored(old: Sequence[str], new: Sequence[str], span: Span) -> list[Opcode] | None:
    """The opcodes of a long middle cut at its unique common lines (at their
    offsets), or None when it has none."""
    a1, a2, b1, b2 = span
    counts_old = Counter(old[a1:a2])
    counts_new = Counter(new[b1:b2])
    # Where each line is last (for a line that occurs once: where it is), built
    # in C; a Counter lists lines in the order they first occur, so the pairs
    # come in old's order without a loop over every line.
    at_old = dict(zip(old[a1:a2], range(a1, a2), strict=True))
    at_new = dict(zip(new[b1:b2], range(b1, b2), strict=True))
    pairs = [
        (at_old[line], at_new[line])
        for line, times in counts_old.items()
        if times == 1 and counts_new.get(line) == 1
    ]
    seconds = [j for _, j in pairs]
    # Most middles keep their unique lines in order: then they all are the anchors.
    anchors = pairs if all(map(lt, seconds, seconds[1:])) else _increasing(pairs)
    if not anchors:
        return None
    opcodes: list[Opcode] = []
    i, j = a1, b1
    at, count = 0, len(anchors)
    while at < count:
        upto = _equal_upto(old, new, (i, j), anchors, at)
        if upto > at:
            # The lines from here to anchor ``upto - 1`` are the same on both sides.
            ai, bj = anchors[upto - 1]
            opcodes.append(("equal", i, ai + 1, j, bj + 1))
            i, j, at = ai + 1, bj + 1, upto
            continue
        ai, bj = anchors[at]
        opcodes += _opcodes(old, new, (i, ai, j, bj))
        opcodes.append(("equal", ai, ai + 1, bj, bj + 1))
        i, j, at = ai + 1, bj + 1, at + 1
    if (i, j) != (a2, b2):
        opcodes += _opcodes(old, new, (i, a2, j, b2))
    return opcodes


def _equal_upto(
    old: Sequence[str],
    new: Sequence[str],
    start: tuple[int, int],
    anchors: list[tuple[int, int]],
    at: int,
) -> int:
    """The end of the run of anchors from ``at`` on reached from ``start`` through
    lines the same on both sides: ``at`` when the lines before ``anchors[at]``
    differ. Found by doubling then halving the run, each step comparing only
    the lines it adds, so a long unchanged stretch costs a few list compares."""
    i, j = start

    def same(good: int, upto: int) -> bool:
        # The lines after anchor ``good - 1`` (or ``start``) up to anchor ``upto - 1``.
        gi, gj = (i, j) if good == at else (anchors[good - 1][0] + 1, anchors[good - 1][1] + 1)
        ai, bj = anchors[upto - 1]
        return ai - gi == bj - gj and old[gi : ai + 1] == new[gj : bj + 1]

    good, step = at, 1
    while good + step <= len(anchors) and same(good, good + step):
        good += step
        step *= 2
    step //= 2
    while step:
        if good + step <= len(anchors) and same(good, good + step):
            good += step
        step //= 2
    return good


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (in order of their first item) whose second
    items increase too (patience sorting)."""
    tails: list[int] = []  # the smallest last second item of a run of each length
    tail_at: list[int] = []  # index in pairs of that last pair
    previous = [-1] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        length = bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            tail_at.append(index)
        else:
            tails[length] = j
            tail_at[length] = index
        previous[index] = tail_at[length - 1] if length else -1
    run = []
    index = tail_at[-1] if tail_at else -1
    while index >= 0:
        run.append(pairs[index])
        index = previous[index]
    run.reverse()
    return run


def merged(opcodes: Sequence[Opcode]) -> list[Opcode]:
    """Opcodes with empty ones dropped and neighbours of one kind joined, as
    difflib gives them: never two equal ones in a row, nor two changes."""
    out: list[Opcode] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if i1 == i2 and j1 == j2:
            continue
        if out and (out[-1][0] == "equal") == (tag == "equal"):
            _, p1, _, q1, _ = out[-1]
            joined = tag
            if tag != "equal":
                joined = "replace" if i2 > p1 and j2 > q1 else "delete" if i2 > p1 else "insert"
            out[-1] = (joined, p1, i2, q1, j2)
        else:
            out.append((tag, i1, i2, j1, j2))
    return out
