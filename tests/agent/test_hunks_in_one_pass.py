"""Staging many regions at once is staging them one by one, from the last.

``StagedText.change`` places all the line differences of an edit in one pass
(each region looks only at the hunks near it). ``OneByOne`` below is the
algorithm it replaced, kept verbatim as the reference: every region placed
by ``replace`` on its own, which reads the whole text and every hunk each
time. Both must give the same hunks (widened flags too) for any staged state
and any new text, with and without the engine's replaced spans.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import hypothesis.strategies as st
import pytest
from hypothesis import event, given, settings

from agent.staging import hunks
from agent.staging.hunks import Hunk, StagedText, apply, line_regions
from agent.staging.line_cut import split_lines
from editing import Edit, EditError, apply_edits

EXAMPLES = settings(
    max_examples=int(os.environ.get("SUREHAND_HUNK_EXAMPLES", "300")), deadline=None, database=None
)


class OneByOne(StagedText):
    """The reference: ``change`` as ``replace`` of each region from the last, each
    ``replace`` against the whole current text and every hunk."""

    def change(
        self,
        after: str,
        description: str,
        spans: Sequence[tuple[int, int]] | None = None,
        written: Sequence[tuple[int, int]] | None = None,
        anchor: tuple[int, int] | None = None,
    ) -> None:
        current = self.text()
        for start, end, new in reversed(line_regions(current, after, spans, written, anchor)):
            self.replace(start, end, new, description)

    def replace(self, start: int, end: int, new: str, description: str) -> None:
        """Replace ``current[start:end]`` by ``new`` (see the module's contract)."""
        current = self.text()
        if not 0 <= start <= end <= len(current):
            raise ValueError(f"region {start}-{end} is outside the text")
        asked = start, end, new
        start, end, new = hunks._whole_lines(current, start, end, new)
        widened = (start, end, new) != asked
        spans = self._spans()
        joined = [
            i
            for i, span in enumerate(spans)
            if hunks._joins(asked[0], asked[1], span, self.hunks[i])
            or hunks._joins(start, end, span, self.hunks[i])
        ]
        t_start, t_end = start, end
        while joined:  # the union may take in more hunks: grow it until it holds
            first, last = joined[0], joined[-1]
            t_start, t_end = min(start, spans[first][0]), max(end, spans[last][1])
            more = [
                i
                for i, span in enumerate(spans)
                if hunks._joins(t_start, t_end, span, self.hunks[i])
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
        merged = hunks._trimmed(self.base, Hunk(b_start, b_end, text, labels, widened))
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


def _state(hunks_list: list[Hunk]) -> list[tuple[int, int, str, tuple[str, ...], bool]]:
    return [(h.start, h.end, h.text, h.descriptions, h.widened) for h in hunks_list]


LINE = st.sampled_from(["a\n", "b\n", "\n", "  c\n", "x\r\n", "é😀\n", "a", "b"])


@st.composite
def rewrites(draw: st.DrawFn, lines: list[str]) -> tuple[str, list[tuple[int, int]] | None]:
    """A new text of ``lines`` (several regions rewritten), and maybe the spans it replaced."""
    out, spans, cursor = [], [], 0
    for start in sorted(set(draw(st.lists(st.integers(0, len(lines)), max_size=8)))):
        if start < cursor:
            continue
        end = min(len(lines), start + draw(st.integers(0, 3)))
        new = draw(st.lists(LINE, max_size=3))
        out += lines[cursor:start] + new
        spans.append((start, end))
        cursor = end
    out += lines[cursor:]
    text = "".join(out)
    return text, spans if bool(spans) and draw(st.booleans()) else None


@st.composite
def histories(draw: st.DrawFn) -> tuple[str, list[tuple[str, list[tuple[int, int]] | None]]]:
    """A base text and a few edits of it, each a whole new text (and maybe its spans)."""
    base = "".join(draw(st.lists(LINE, max_size=16)))
    edits, current = [], base
    for _ in range(draw(st.integers(1, 4))):
        text, spans = draw(rewrites(split_lines(current)))
        edits.append((text, spans))
        current = text
    return base, edits


@EXAMPLES
@given(histories())
def test_placing_every_region_in_one_pass_is_placing_them_one_by_one(case) -> None:
    base, edits = case
    batched, reference = StagedText(base), OneByOne(base)
    for index, (text, spans) in enumerate(edits):
        batched.change(text, f"e{index}", spans)
        reference.change(text, f"e{index}", spans)
        assert _state(batched.hunks) == _state(reference.hunks)
        assert batched.text() == reference.text() == text


def test_a_thousand_lines_changed_a_line_apart_are_a_thousand_hunks_of_one_edit() -> None:
    base = "".join(f"value_{i} = compute(a)\nother_{i} = 1\n" for i in range(1_000))
    after = base.replace("compute(a)", "compute(a) or 0")
    staged = StagedText(base)
    staged.change(after, "or 0", [(2 * i, 2 * i + 1) for i in range(1_000)])
    assert len(staged.hunks) == 1_000
    assert {h.descriptions for h in staged.hunks} == {("or 0",)}
    assert staged.text() == after
    assert apply(base, staged.hunks[1:2]) == base.replace(
        "value_1 = compute(a)", "value_1 = compute(a) or 0"
    )


SPAN = st.tuples(st.integers(0, 12), st.integers(0, 4)).map(lambda s: (s[0], s[0] + s[1]))
CHANGE = st.tuples(st.integers(0, 12), st.integers(0, 3)).map(lambda c: (c[0], c[0] + c[1], 0, 0))


@EXAMPLES
@given(st.lists(SPAN, min_size=1, max_size=8), CHANGE, CHANGE)
def test_two_differences_share_a_span_as_asking_every_span_says(spans, first, second) -> None:
    def inside(change: tuple[int, int, int, int], span: tuple[int, int]) -> bool:
        return span[0] <= change[0] and change[1] <= span[1]

    every = any(inside(first, span) and inside(second, span) for span in spans)
    assert hunks._SpanIndex(spans).share(first, second) == every


# -- hunks from the engine's records ----------------------------------------------

WORDS = st.sampled_from(["a = 1", "b = 2", "    pass", "", "x", "a = 1  ", "\tb = 2", "c"])


@st.composite
def engine_edits(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    lines = draw(st.lists(WORDS, min_size=1, max_size=14))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = ending.join(lines) + draw(st.sampled_from(["", ending]))
    edits = []
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(lines) - 1))
        old = "\n".join(lines[start : start + draw(st.integers(1, 3))])
        new = "\n".join(draw(st.lists(WORDS, max_size=3)))
        edits.append(Edit(old + draw(st.sampled_from(["", "\n"])), new, draw(st.booleans())))
    return text, edits


@EXAMPLES
@given(engine_edits())
def test_the_engines_records_give_the_hunks_without_a_diff(case) -> None:
    text, edits = case
    try:
        result = apply_edits(text, edits, path="f.py")
    except EditError:
        return
    spans = [(r.start - 1, r.end) for r in result.regions]
    written = [(w.start - 1, w.end) for w in result.written]
    old, new = split_lines(text), split_lines(result.text)
    # Where the records add up to the two texts, no diff is needed; each
    # change then lies inside one replaced span, trimmed to the lines that differ.
    changes = hunks._recorded(old, new, spans, written)
    event("from the records" if changes is not None else "records do not add up: a diff")
    for i1, i2, j1, j2 in changes or []:
        assert any(s1 <= i1 and i2 <= s2 for s1, s2 in spans)
        assert old[i1:i2] != new[j1:j2]
        if i2 > i1 and j2 > j1:
            assert old[i1] != new[j1] and old[i2 - 1] != new[j2 - 1]
    regions = line_regions(text, result.text, spans, written)
    assert hunks.apply(text, [Hunk(s, e, t, ()) for s, e, t in regions]) == result.text


RECORDED = {
    "one line": ("a = 1\nb = 2\nc = 3\n", [Edit("b = 2", "b = 20")]),
    "a block for a longer one": ("a\nb\nc\nd\n", [Edit("b\nc\n", "x\ny\nz\n")]),
    "lines deleted": ("a\nb\nc\nd\n", [Edit("b\nc\n", "")]),
    "lines inserted": ("a\nd\n", [Edit("a\n", "a\nb\nc\n")]),
    "every place": ("f(x)\ny\nf(x)\ny\nf(x)\n", [Edit("f(x)", "g(x)", replace_all=True)]),
    "several edits": ("a\nb\nc\nd\ne\n", [Edit("a", "A"), Edit("c\nd\n", "C\n")]),
    "crlf": ("a\r\nb\r\nc\r\n", [Edit("b\n", "B\nB2\n")]),
    "no final newline": ("a\nb", [Edit("b", "B")]),
}


@pytest.mark.parametrize("name", RECORDED)
def test_the_engines_records_add_up_for_the_usual_edits(name: str) -> None:
    text, edits = RECORDED[name]
    result = apply_edits(text, edits, path="f.py")
    spans = [(r.start - 1, r.end) for r in result.regions]
    written = [(w.start - 1, w.end) for w in result.written]
    old, new = split_lines(text), split_lines(result.text)
    changes = hunks._recorded(old, new, spans, written)
    assert changes is not None
    regions = line_regions(text, result.text, spans, written)
    assert hunks.apply(text, [Hunk(s, e, t, ()) for s, e, t in regions]) == result.text
    assert len(regions) == len(changes)
