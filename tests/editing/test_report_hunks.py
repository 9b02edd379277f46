"""The report writes its hunks itself: they must be ``difflib.unified_diff``'s.

``unified_hunks.unified_hunks`` groups the opcodes into hunks (``difflib``'s grouping,
in one pass) and writes each run of lines as one piece. Joined, the pieces
must be exactly the hunks ``difflib.unified_diff`` prints for the same two
line lists and the same opcodes, every hunk header included, moved by the
offsets given.
"""

from __future__ import annotations

import difflib
import os
import re

import hypothesis.strategies as st
from hypothesis import given, settings

from editing import unified_hunks

EXAMPLES = settings(
    max_examples=int(os.environ.get("SUREHAND_REPORT_EXAMPLES", "300")),
    deadline=None,
    database=None,
)

lines = st.lists(st.sampled_from(["a", "b", "c", "", "x = 1", "  return"]), max_size=40)

_HEADER = re.compile(r"^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$")


def _moved(line: str, offsets: tuple[int, int]) -> str:
    """A hunk header of ``difflib`` with both lengths always given, moved by ``offsets``."""
    found = re.match(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$", line)
    if found is None:
        return line
    a, b, c, d = found.groups()
    b, d = b if b is not None else "1", d if d is not None else "1"
    return f"@@ -{int(a) + offsets[0]},{b} +{int(c) + offsets[1]},{d} @@"


@st.composite
def edited(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Two line lists: look-alike lines, or distinct ones with a few edits
    (unchanged runs of every length between them)."""
    if draw(st.booleans()):
        return draw(lines), draw(lines)
    old = [f"line {i}" for i in range(draw(st.integers(0, 60)))]
    new = list(old)
    for at in sorted(draw(st.lists(st.integers(0, 60), max_size=6)), reverse=True):
        action = draw(st.sampled_from(["change", "insert", "delete"]))
        if action == "insert" or at >= len(new):
            new.insert(min(at, len(new)), f"added {at}")
        elif action == "change":
            new[at] = f"changed {at}"
        else:
            del new[at]
    return old, new


@EXAMPLES
@given(edited(), st.integers(0, 50), st.integers(0, 50))
def test_the_hunks_are_difflibs(pair: tuple[list[str], list[str]], shift: int, other: int) -> None:
    old, new = pair
    opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    written = "".join(unified_hunks.unified_hunks(old, new, opcodes, (shift, other)))
    expected = [
        _moved(line.rstrip("\n"), (shift, other))
        for line in difflib.unified_diff(old, new, n=unified_hunks.CONTEXT, lineterm="")
    ][2:]
    assert written.split("\n")[:-1] == expected
    for line in written.split("\n"):
        if line.startswith("@@"):
            assert _HEADER.match(line), line


def test_a_long_unchanged_run_splits_the_hunks() -> None:
    old = [f"line {i}" for i in range(20)]
    new = [*old[:2], "changed", *old[3:17], "also", *old[18:]]
    opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    written = "".join(unified_hunks.unified_hunks(old, new, opcodes, (0, 0)))
    assert [line for line in written.split("\n") if line.startswith("@@")] == [
        "@@ -1,6 +1,6 @@",
        "@@ -15,6 +15,6 @@",
    ]
