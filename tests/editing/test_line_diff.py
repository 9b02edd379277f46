"""The line diff of long middles: the quick walk over anchors is the plain one.

``editing.line_diff`` cuts a long middle at its unique common lines and
diffs each piece between two of them. It skips the ordering of the anchors
when they are already in order, and it steps over a run of unchanged pieces
in one compare. ``_reference`` below is the plain algorithm, written out
with neither shortcut (it orders the anchors always, and diffs every piece
on its own before joining them). The two must give the same opcodes on
every input.

Sides of as many lines whose changed lines on one side are all absent from
the other are diffed line by line; the reference writes that rule out too,
and a test holds it to a longest common subsequence: no diff keeps more.
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
    if len(old) == len(new) and len(old) * len(new) > line_diff.WHOLE:
        changed = [i for i in range(len(old)) if old[i] != new[i]]
        if all(new[i] not in old for i in changed) or all(old[i] not in new for i in changed):
            return _line_by_line(old, new)
    return line_diff.merged(_pieces(old, new, (0, len(old), 0, len(new))))


def _line_by_line(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    return line_diff.merged(
        [
            ("equal" if a == b else "replace", i, i + 1, i, i + 1)
            for i, (a, b) in enumerate(zip(old, new, strict=True))
        ]
    )


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
        _anchors(old, new, (m1, m2, n1, n2)) if (m2 - m1) * (n2 - n1) > line_diff.WHOLE else []
    )
    if anchors:
        i, j = m1, n1
        for ai, bj in [*anchors, (m2, n2)]:
            out += _pieces(old, new, (i, ai, j, bj))
            if ai < m2:
                out.append(("equal", ai, ai + 1, bj, bj + 1))
            i, j = ai + 1, bj + 1
    else:
        long = (m2 - m1) * (n2 - n1) > line_diff.WHOLE
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


def _kept(opcodes: list[Opcode]) -> int:
    return sum(i2 - i1 for tag, i1, i2, _, _ in opcodes if tag == "equal")


def _longest_common(old: Sequence[str], new: Sequence[str]) -> int:
    row = [0] * (len(new) + 1)
    for a in old:
        previous_diagonal = 0
        for j, b in enumerate(new, 1):
            above = row[j]
            row[j] = previous_diagonal + 1 if a == b else max(row[j], row[j - 1])
            previous_diagonal = above
    return row[-1]


@st.composite
def rewritten_in_place(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A block of few distinct lines, just long enough to be diffed line by
    line, some of them rewritten where they stand."""
    old = draw(st.lists(st.sampled_from("abcd"), min_size=51, max_size=70))
    new = list(old)
    for i in draw(st.lists(st.integers(0, len(old) - 1), max_size=6)):
        new[i] = draw(st.sampled_from(["x", "y", *"abcd"]))
    return old, new


@EXAMPLES
@given(rewritten_in_place())
def test_a_line_by_line_diff_keeps_as_many_lines_as_any_diff(
    block: tuple[list[str], list[str]],
) -> None:
    old, new = block
    opcodes = line_diff.line_opcodes(old, new)
    assert opcodes == _reference(old, new)
    if opcodes == _line_by_line(old, new):
        assert _kept(opcodes) == _longest_common(old, new)


def test_lines_rewritten_in_place_stay_in_place() -> None:
    # difflib alone pairs old's second line with new's fourth (its first
    # longest match) and shows the three lines around it as changed. The
    # changed "a" has its twin next to it in new: a changed old line found
    # in new, but every changed new line is absent from old, which is enough.
    old = ["x", "w", "y", "w", "y2", "q", "a", "a"] + [f"line {i}" for i in range(60)] + ["end"]
    new = ["x1", "z", "y1", "w", "y3", "q1", "n", "a"] + [f"line {i}" for i in range(60)]
    new.append("end 1")
    assert line_diff.line_opcodes(old, new) == [
        ("replace", 0, 3, 0, 3),
        ("equal", 3, 4, 3, 4),
        ("replace", 4, 7, 4, 7),
        ("equal", 7, 68, 7, 68),
        ("replace", 68, 69, 68, 69),
    ]
    assert line_diff._difflib(old, new, autojunk=False) != line_diff.line_opcodes(old, new)


def test_lines_moved_by_one_get_the_general_diff() -> None:
    old = [f"line {i}" for i in range(80)]
    new = [*old[1:], "added"]
    assert line_diff.line_opcodes(old, new) == [
        ("delete", 0, 1, 0, 0),
        ("equal", 1, 80, 0, 79),
        ("insert", 80, 80, 79, 80),
    ]
