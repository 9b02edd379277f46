"""The line diff of long middles: the quick walk over anchors is the plain one.

``editing.line_diff`` cuts a long middle at its unique common lines and
diffs each piece between two of them. It skips the ordering of the anchors
when they are already in order, and it steps over a run of unchanged pieces
in one compare. ``_reference`` below is the plain algorithm, written out
with neither shortcut (it orders the anchors always, and diffs every piece
on its own before joining them). The two must give the same opcodes on
every input.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

import hypothesis.strategies as st
from hypothesis import HealthCheck, given, settings

from editing import line_diff
from editing.line_diff import Opcode

EXAMPLES = settings(
    max_examples=int(os.environ.get("SUREHAND_LINE_DIFF_EXAMPLES", "120")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.large_base_example, HealthCheck.too_slow],
)


def _reference(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    return line_diff.merged(_pieces(old, new, (0, len(old), 0, len(new))))


def _pieces(old: Sequence[str], new: Sequence[str], span: line_diff.Span) -> list[Opcode]:
    a1, a2, b1, b2 = span
    head = 0
    while head < min(a2 - a1, b2 - b1) and old[a1 + head] == new[b1 + head]:
        head += 1
    tail = 0
    while tail < min(a2 - a1, b2 - b1) - head and old[a2 - 1 - tail] == new[b2 - 1 - tail]:
        tail += 1
    out: list[Opcode] = [("equal", a1, a1 + head, b1, b1 + head)] if head else []
    m1, m2, n1, n2 = a1 + head, a2 - tail, b1 + head, b2 - tail
    anchors = (
        _anchors(old, new, (m1, m2, n1, n2)) if (m2 - m1) * (n2 - n1) > line_diff._WHOLE else []
    )
    if anchors:
        i, j = m1, n1
        for ai, bj in [*anchors, (m2, n2)]:
            out += _pieces(old, new, (i, ai, j, bj))
            if ai < m2:
                out.append(("equal", ai, ai + 1, bj, bj + 1))
            i, j = ai + 1, bj + 1
    else:
        long = (m2 - m1) * (n2 - n1) > line_diff._WHOLE
        middle = line_diff._difflib(old[m1:m2], new[n1:n2], autojunk=long)
        out += [(t, i1 + m1, i2 + m1, j1 + n1, j2 + n1) for t, i1, i2, j1, j2 in middle]
    if tail:
        out.append(("equal", a2 - tail, a2, b2 - tail, b2))
    return out


def _anchors(old: Sequence[str], new: Sequence[str], span: line_diff.Span) -> list[tuple[int, int]]:
    """The longest increasing run (patience sorting's) of the lines found exactly once on each side."""
    a1, a2, b1, b2 = span
    counts_old, counts_new = Counter(old[a1:a2]), Counter(new[b1:b2])
    where_new = {line: b1 + k for k, line in enumerate(new[b1:b2])}
    pairs = [
        (a1 + k, where_new[line])
        for k, line in enumerate(old[a1:a2])
        if counts_old[line] == 1 and counts_new.get(line) == 1
    ]
    return line_diff._increasing(pairs)


@st.composite
def edited_blocks(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A block of several hundred lines, unique ones among repeated ones, and an edit of it."""
    size = draw(st.integers(520, 900))
    kinds = draw(st.integers(1, 40))
    unique_share = draw(st.floats(0.0, 1.0))
    seed = draw(st.randoms(use_true_random=False))
    old = [
        f"u{i}" if seed.random() < unique_share else f"s{seed.randrange(kinds)}"
        for i in range(size)
    ]
    new = list(old)
    for _ in range(draw(st.integers(0, 30))):
        at = seed.randrange(len(new) + 1)
        action = seed.choice(["insert", "delete", "change", "move", "swap"])
        if action == "insert":
            new.insert(
                at,
                seed.choice(["x", "u3", f"s{seed.randrange(kinds)}", f"u{seed.randrange(size)}"]),
            )
        elif at < len(new):
            if action == "delete":
                del new[at]
            elif action == "change":
                new[at] = "changed"
            elif action == "move":
                line = new.pop(at)
                new.insert(seed.randrange(len(new) + 1), line)
            else:
                other = seed.randrange(len(new))
                new[at], new[other] = new[other], new[at]
    return old, new


@EXAMPLES
@given(edited_blocks())
def test_a_long_line_diff_is_the_plain_cut_at_unique_lines(
    block: tuple[list[str], list[str]],
) -> None:
    old, new = block
    assert line_diff.line_opcodes(old, new) == _reference(old, new)


def test_a_long_unchanged_stretch_is_one_equal_run() -> None:
    old = [f"line {i}" for i in range(5_000)]
    new = [*old[:100], "inserted", *old[100:4_000], *old[4_001:]]
    assert line_diff.line_opcodes(old, new) == [
        ("equal", 0, 100, 0, 100),
        ("insert", 100, 100, 100, 101),
        ("equal", 100, 4_000, 101, 4_001),
        ("delete", 4_000, 4_001, 4_001, 4_001),
        ("equal", 4_001, 5_000, 4_001, 5_000),
    ]
