"""A proposal's hunks are the staged edits: any subset gives exactly those edits.

The reference model is independent of ``StagedText``: each edit is a region
of the base text and its final text (``Edit``), applied to the base with a
plain sort-and-splice. The edits are staged in a random order, each at its
place in the text as it stands then, and some in two steps (a first text,
then a rewrite of part of it). Then for any subset of the hunks, applying
them to the base must equal the reference applying exactly the edits those
hunks hold; edits a whole untouched line apart never share a hunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from agent.staging.hunks import Hunk, StagedText, apply
from agent.staging.line_cut import split_lines
from agent.staging.workspace import Overlay

PROPERTY = settings(max_examples=400, deadline=None)


@dataclass(frozen=True)
class Edit:
    start: int  # base offsets
    end: int
    text: str
    id: str
    middle: tuple[int, int] | None = None  # staged first with text[a:b] written as "~"


def reference(base: str, edits: list[Edit]) -> str:
    out, cursor = [], 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out += [base[cursor : edit.start], edit.text]
        cursor = edit.end
    return "".join(out) + base[cursor:]


LINES = st.sampled_from(["a\n", "b\n", "\n", "  c\n", "a", "é😀\n", "x\r\n"])
TEXT = st.lists(st.sampled_from(["a", "b", "\n", " ", "é", "😀", "x\n", "\r\n"]), max_size=6).map(
    "".join
)


@st.composite
def scenario(draw: st.DrawFn) -> tuple[str, list[Edit], list[int]]:
    base = "".join(draw(st.lists(LINES, max_size=12)))
    cuts = sorted(draw(st.lists(st.integers(0, len(base)), max_size=10)))
    edits: list[Edit] = []
    index = 0
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        if edits and start == end == edits[-1].end == edits[-1].start:
            continue  # two insertions at one point have no order in the reference
        text = draw(TEXT)
        if text == base[start:end]:
            continue
        middle = None
        if text and draw(st.booleans()):
            a = draw(st.integers(0, len(text)))
            middle = (a, draw(st.integers(a, len(text))))
        edits.append(Edit(start, end, text, f"e{index}", middle))
        index += 1
    order = draw(st.permutations(range(len(edits))))
    return base, edits, list(order)


def stage(base: str, edits: list[Edit], order: list[int]) -> StagedText:
    staged = StagedText(base)
    done: list[Edit] = []
    for i in order:
        edit = edits[i]
        shift = sum(len(e.text) - (e.end - e.start) for e in done if e.end <= edit.start)
        # An earlier edit ending where this one starts comes first, unless both
        # insert at one point (then the reference sorts by id).
        start, end = edit.start + shift, edit.end + shift
        if edit.middle is None:
            staged.replace(start, end, edit.text, edit.id)
        else:
            a, b = edit.middle
            staged.replace(start, end, edit.text[:a] + "~" + edit.text[b:], edit.id)
            staged.replace(start + a, start + a + 1, edit.text[a:b], edit.id)
        done.append(edit)
        assert staged.text() == reference(base, done)
    return staged


def held(hunks: list[Hunk]) -> set[str]:
    return {d for h in hunks for d in h.descriptions}


@pytest.mark.slow
@given(scenario(), st.data())
@PROPERTY
def test_any_subset_of_hunks_is_the_base_with_exactly_their_edits(case, data):
    base, edits, order = case
    staged = stage(base, edits, order)
    hunks = staged.hunks
    assert apply(base, hunks) == staged.text() == reference(base, edits)
    assert apply(base, []) == base
    # Every edit is held by at most one hunk.
    ids = [d for h in hunks for d in h.descriptions]
    assert len(ids) == len(set(ids))
    chosen = data.draw(st.lists(st.booleans(), min_size=len(hunks), max_size=len(hunks)))
    subset = [h for h, keep in zip(hunks, chosen, strict=True) if keep]
    assert apply(base, subset) == reference(base, [e for e in edits if e.id in held(subset)])
    for hunk in hunks:  # each hunk alone
        assert apply(base, [hunk]) == reference(base, [e for e in edits if e.id in held([hunk])])


def _lines_apart(base: str, first: Edit, second: Edit) -> bool:
    """Whether whole lines lie between the edits, even with each widened to whole lines
    (an edit whose text does not end a line takes in the next line: it joins it)."""
    return base[first.end : second.start].count("\n") >= 3


@pytest.mark.slow
@given(scenario())
@PROPERTY
def test_edits_a_line_apart_are_separate_hunks(case):
    base, edits, order = case
    staged = stage(base, edits, order)
    hunk_of = {d: i for i, h in enumerate(staged.hunks) for d in h.descriptions}
    for first, second in pairwise(edits):
        if first.id in hunk_of and second.id in hunk_of and _lines_apart(base, first, second):
            assert hunk_of[first.id] != hunk_of[second.id]


# -- cases ------------------------------------------------------------------------

CALC = (
    "def add(a, b):\n    return a + b\n\n\n"
    "def mul(a, b):\n    return a * b\n\n\n"
    "def sub(a, b):\n    return a - b\n"
)


def test_dropping_one_function_and_adding_another_are_two_hunks():
    staged = StagedText(CALC)
    staged.change(CALC.replace("def mul(a, b):\n    return a * b\n\n\n", ""), "drop mul")
    current = staged.text()
    staged.change(current + "\n\ndef double(x):\n    return 2 * x\n", "add double")
    assert [h.descriptions for h in staged.hunks] == [("drop mul",), ("add double",)]
    drop, add = staged.hunks
    assert apply(CALC, [drop]) == CALC.replace("def mul(a, b):\n    return a * b\n\n\n", "")
    assert apply(CALC, [add]) == CALC + "\n\ndef double(x):\n    return 2 * x\n"


def test_an_edit_rewriting_an_earlier_one_joins_its_hunk():
    staged = StagedText(CALC)
    staged.change(CALC.replace("a * b", "a * b * 1"), "scale mul")
    staged.change(staged.text().replace("a * b * 1", "b * a"), "swap mul")
    staged.change(staged.text().replace("a - b", "b - a"), "swap sub")
    assert [(h.label, h.text) for h in staged.hunks] == [
        ("scale mul; swap mul", "    return b * a\n"),
        ("swap sub", "    return b - a\n"),
    ]


def test_inserting_where_lines_were_deleted_is_one_hunk():
    staged = StagedText(CALC)
    staged.change(CALC.replace("def mul(a, b):\n    return a * b\n", ""), "drop mul")
    staged.change(
        staged.text().replace("\n\n\n\n\n", "\n\n\ndef halve(a):\n    return a // 2\n\n\n"),
        "add halve",
    )
    assert [h.label for h in staged.hunks] == ["drop mul; add halve"]


def test_an_edit_undone_leaves_no_hunk():
    staged = StagedText(CALC)
    staged.change(CALC.replace("a + b", "a+b"), "tighten")
    staged.change(CALC, "loosen")
    assert staged.hunks == []


# -- through the overlay, as the edit tools stage: whole texts and the replaced lines ------

LINE = st.sampled_from(["def f():\n", "    pass\n", "\n", "x = 1\n", "return a\n"])


@st.composite
def line_edits(draw: st.DrawFn) -> tuple[list[str], list[tuple[int, int, list[str], str]]]:
    """Base lines and edits of them (line spans, new lines), each a line apart."""
    lines = draw(st.lists(LINE, min_size=1, max_size=12))
    cuts = sorted(draw(st.lists(st.integers(0, len(lines)), max_size=8)))
    edits: list[tuple[int, int, list[str], str]] = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        if edits and start <= edits[-1][1]:
            continue
        new = draw(st.lists(LINE, max_size=3))
        if new != lines[start:end] and (end > start or new):
            edits.append((start, end, new, f"e{len(edits)}"))
    return lines, edits


def spliced(lines: list[str], edits: list[tuple[int, int, list[str], str]]) -> str:
    out, cursor = [], 0
    for start, end, new, _ in sorted(edits):
        out += lines[cursor:start] + new
        cursor = end
    return "".join(out + lines[cursor:])


@pytest.mark.slow
@given(line_edits(), st.data())
@PROPERTY
def test_an_edit_staged_with_its_replaced_lines_is_one_hunk(tmp_path_factory, case, data):
    lines, edits = case
    root = tmp_path_factory.mktemp("overlay")
    (root / "m.py").write_text("".join(lines), encoding="utf-8")
    overlay = Overlay(root)
    done: list[tuple[int, int, list[str], str]] = []
    for start, end, new, name in data.draw(st.permutations(edits)):
        shift = sum(len(n) - (e - s) for s, e, n, _ in done if e <= start)
        done.append((start, end, new, name))
        overlay.stage("m.py", spliced(lines, done), name, [(start + shift, end + shift)])
    base, hunks = "".join(lines), list(overlay.hunks("m.py"))
    names = [d for h in hunks for d in h.descriptions]
    assert sorted(names) == sorted(e[3] for e in edits), "every edit in exactly one hunk"
    for hunk in hunks:
        assert apply(base, [hunk]) == spliced(
            lines, [e for e in edits if e[3] in hunk.descriptions]
        )


@given(st.text(alphabet="ab\n\r\x0c\u2028\x85", max_size=40))
def test_split_lines_splits_after_each_line_feed_only_and_keeps_everything(text: str):
    lines = split_lines(text)
    assert "".join(lines) == text
    assert all(line.endswith("\n") for line in lines[:-1])
    assert all("\n" not in line[:-1] for line in lines) and "" not in lines
    assert len(lines) == text.count("\n") + (0 if text.endswith("\n") or not text else 1)
