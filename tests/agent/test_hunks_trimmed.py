"""``line_regions`` and ``hunk_diff`` look at the changed lines only, and answer as before.

``line_regions`` cuts off the whole lines both texts share at either end
before it splits them (a one-line edit of a megabyte file splits a few
lines), and ``hunk_diff`` reads the lines around a hunk without splitting
the whole file. Hunks are what a person reviews and accepts, so both must
answer exactly what they answered when they split the whole texts: that
code is kept below as the reference (``ref_*``, as it stood before the cut),
and property tests compare the two on texts made to stress the cut (empty
texts, no final newline, CRLF, a lone ``\r``, lone newlines, changes on the
first and last lines, identical texts, repeated lines, unicode) with the
engine's spans and written spans, made to fit or not. ``StagedText`` makes
its hunks from ``line_regions`` alone, so its hunks are the same too.

Then the overlay's reads: inside one change a file is read once, and a
change made on disk between two steps (same size, mtime set back) is seen.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from itertools import accumulate
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import example, given, settings

from agent.config.settings import Settings
from agent.staging import hunks, line_cut, workspace
from agent.staging.hunk_diff import CONTEXT, NO_NEWLINE, hunk_diff
from agent.staging.hunks import Hunk, StagedText, line_regions
from agent.staging.line_cut import split_lines
from agent.staging.workspace import Overlay, ToolError
from agent.tools.context import ToolContext
from agent.tools.edit import TOOL as EDIT
from editing.disk.workdir import read_text
from editing.line_diff import line_opcodes

PROPERTY = settings(max_examples=400, deadline=None)
Spans = list[tuple[int, int]] | None

# -- the reference: the code as it was before the cut, whole texts split ----------------
# (its helpers that the cut left as they were are the module's own)


def ref_line_regions(
    before: str,
    after: str,
    spans: Sequence[tuple[int, int]] | None = None,
    written: Sequence[tuple[int, int]] | None = None,
) -> list[tuple[int, int, str]]:
    """The line differences of ``before`` -> ``after``: ``(start, end, new text)``, offsets
    of ``before`` in order, the common head and tail matched first; differences that
    fall in one of ``spans`` (line spans of ``before``) are merged into one."""
    old, new = split_lines(before), split_lines(after)
    offsets = [0, *accumulate(map(len, old))]
    # From the records each change is already alone in its span (they never overlap).
    merged = hunks._recorded(old, new, spans, written) if spans and written else None
    if merged is None:
        merged = _ref_merged_by_span(old, new, spans)
    return [(offsets[i1], offsets[i2], "".join(new[j1:j2])) for i1, i2, j1, j2 in merged]


def _ref_merged_by_span(
    old: Sequence[str], new: Sequence[str], spans: Sequence[tuple[int, int]] | None
) -> list[tuple[int, int, int, int]]:
    """The line differences, found inside ``spans`` or by a diff, those in one span merged."""
    changes = hunks._within(old, new, spans) if spans else None
    if changes is None:
        changes = [
            (i1, i2, j1, j2) for tag, i1, i2, j1, j2 in line_opcodes(old, new) if tag != "equal"
        ]
    merged: list[tuple[int, int, int, int]] = []
    within = hunks._SpanIndex(spans) if spans else None
    for change in changes:
        if merged and within is not None and within.share(merged[-1], change):
            i1, _, j1, _ = merged[-1]
            merged[-1] = (i1, change[1], j1, change[3])
        else:
            merged.append(change)
    return merged


def ref_hunk_diff(before: str, hunk: Hunk, context: int = CONTEXT) -> list[str]:
    """The unified diff of one hunk alone: ``before[hunk.start:hunk.end]`` against
    ``hunk.text``, with up to ``context`` lines of ``before`` around it, in one ``@@``
    block whatever hunk is near (the line numbers are as if it alone were applied).

    Lines end at ``"\\n"`` only (as the hunks do). A CRLF ending is a line break,
    unless the lines shown mix endings: then it shows as its ``\\r`` (escaped when
    printed). A last line without a newline is followed by git's
    ``\\ No newline at end of file``. The lines are the file's own text:
    whoever prints them escapes their hidden characters.
    """
    start, old_text, new_text = _ref_whole_lines(before, hunk)
    first = before.count("\n", 0, start)
    lines = split_lines(before)
    old, new = split_lines(old_text), split_lines(new_text)
    head = lines[max(0, first - context) : first]
    tail = lines[first + len(old) : first + len(old) + context]
    endings = {_ref_ending(line) for line in [*head, *old, *new, *tail]} - {""}
    mixed = len(endings) > 1
    at = first - len(head) + 1
    size = len(head) + len(tail)
    out = [f"@@ -{_ref_range(at, size + len(old))} +{_ref_range(at, size + len(new))} @@"]
    out += _ref_marked(" ", head, mixed)
    for tag, i1, i2, j1, j2 in line_opcodes(old, new):
        if tag == "equal":
            out += _ref_marked(" ", old[i1:i2], mixed)
            continue
        out += _ref_marked("-", old[i1:i2], mixed)
        out += _ref_marked("+", new[j1:j2], mixed)
    out += _ref_marked(" ", tail, mixed)
    return out


def _ref_whole_lines(before: str, hunk: Hunk) -> tuple[int, str, str]:
    """The hunk's region widened to whole lines of ``before`` (hunks are already), with
    its old and new text."""
    start = before.rfind("\n", 0, hunk.start) + 1
    end = hunk.end
    if 0 < end < len(before) and before[end - 1] != "\n":
        end = _ref_line_end(before, end)
    new = before[start : hunk.start] + hunk.text + before[hunk.end : end]
    if new and not new.endswith("\n") and end < len(before):
        following = _ref_line_end(before, end)
        new += before[end:following]
        end = following
    return start, before[start:end], new


def _ref_line_end(text: str, offset: int) -> int:
    newline = text.find("\n", offset)
    return len(text) if newline < 0 else newline + 1


def _ref_ending(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    return "\n" if line.endswith("\n") else ""


def _ref_marked(mark: str, lines: Sequence[str], mixed: bool) -> list[str]:
    out = []
    for line in lines:
        ending = _ref_ending(line)
        body = line[: len(line) - len(ending)] if ending != "\r\n" or not mixed else line[:-1]
        out.append(mark + body)
        if not ending:
            out.append(NO_NEWLINE)
    return out


def _ref_range(start: int, count: int) -> str:
    """A unified diff's ``start,count`` (an empty side names the line before it)."""
    return f"{start if count else start - 1},{count}"


# -- texts that stress the cut ------------------------------------------------------------

# Lines and bits of lines: repeated ones (a cut could be placed in several ways),
# CRLF, a lone "\r", lone newlines, unicode, and pieces without a newline.
PIECES = ["a\n", "a\n", "b\n", "\n", "\r\n", "x\r\n", "\r", "}\n", "é😀\n", "a", "b", "\u2028\n"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=24).map("".join)
BIT = st.lists(st.sampled_from([*PIECES, "c\n", "z", "\r\r\n"]), max_size=4).map("".join)


@st.composite
def pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A text and another: unrelated, or the first with a few places rewritten."""
    before = draw(TEXT)
    if draw(st.integers(0, 4)) == 0:
        return before, draw(TEXT)
    after = before
    for _ in range(draw(st.integers(0, 3))):
        start = draw(st.integers(0, len(after)))
        end = draw(st.integers(start, min(len(after), start + 8)))
        after = after[:start] + draw(BIT) + after[end:]
    return before, after


LINE = st.integers(-2, 30)
LOOSE_SPANS = st.none() | st.lists(st.tuples(LINE, LINE), max_size=4)


@st.composite
def recorded(draw: st.DrawFn) -> tuple[str, str, Spans, Spans]:
    """A text, its lines rewritten in a few spans, with the engine's records of
    them (``spans`` of the old lines, ``written`` of the new), at times nudged."""
    lines = draw(st.lists(st.sampled_from([*PIECES[:-3], "c\n"]), max_size=20))
    unended = draw(st.booleans())
    if lines and unended:
        lines[-1] = lines[-1].rstrip("\n") or "q"  # no newline at the end
    cuts = sorted(draw(st.lists(st.integers(0, len(lines)), max_size=6)))
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    written: list[tuple[int, int]] = []
    cursor = 0
    for s1, s2 in zip(cuts[::2], cuts[1::2], strict=False):
        if spans and s1 == spans[-1][1]:
            continue
        out += lines[cursor:s1]
        # The new lines: some kept as they were (the engine's region is wider than
        # the change), some new.
        new = draw(st.lists(st.sampled_from([*lines[s1:s2], "c\n", "a\n", "w\n"]), max_size=4))
        kept = draw(st.integers(0, s2 - s1))  # lines the region holds unchanged, at an end
        new = (
            [*lines[s1 : s1 + kept], *new]
            if draw(st.booleans())
            else [*new, *lines[s2 - kept : s2]]
        )
        if s2 == len(lines) and lines and not lines[-1].endswith("\n") and new:
            new[-1] = new[-1].rstrip("\n") or "q"
        written.append((len(out), len(out) + len(new)))
        spans.append((s1, s2))
        out += new
        cursor = s2
    out += lines[cursor:]
    if spans and draw(st.integers(0, 4)) == 0:  # records that do not add up
        k = draw(st.integers(0, len(spans) - 1))
        delta = draw(st.sampled_from([-1, 1]))
        bad = draw(st.sampled_from(["span start", "span end", "written end"]))
        s1, s2 = spans[k]
        w1, w2 = written[k]
        if bad == "span start":
            spans[k] = (s1 + delta, s2)
        elif bad == "span end":
            spans[k] = (s1, s2 + delta)
        else:
            written[k] = (w1, w2 + delta)
    return "".join(lines), "".join(out), spans, (written if draw(st.booleans()) else None)


@st.composite
def long_in_place(draw: st.DrawFn) -> tuple[str, str]:
    """Two texts of as many lines, near the length where ``line_opcodes`` diffs line
    by line, from a few lines: a changed line is often a line of the other text
    only outside the lines they do not share."""
    count = draw(st.integers(40, 64))
    pool = st.sampled_from(["a\n", "b\n", "c\n", "d\n"])
    lines = draw(st.lists(pool, min_size=count, max_size=count))
    new = list(lines)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, count - 1))
        new[at] = draw(st.sampled_from(["a\n", "b\n", "c\n", "d\n", "N\n", "M\n"]))
    return "".join(lines), "".join(new)


def outcome(regions: Callable[..., object], *args: object) -> object:
    """What ``regions(*args)`` gives, or the error it raises (nonsense spans can)."""
    try:
        return regions(*args)
    except (IndexError, ValueError) as error:
        return type(error), str(error)


def applied(before: str, regions: list[tuple[int, int, str]]) -> str:
    """``before`` with each region's text in its place."""
    for start, end, new in reversed(regions):
        before = before[:start] + new + before[end:]
    return before


def assert_same(before: str, after: str, spans: Spans = None, written: Spans = None) -> None:
    args = (before, after, spans, written)
    assert outcome(line_regions, *args) == outcome(ref_line_regions, *args)


# -- line_regions: the same regions as the whole texts gave --------------------------------


@given(pairs())
@example(("", ""))
@example(("", "a\n"))
@example(("a\n", ""))
@example(("a", "a\n"))
@example(("a\n", "a"))
@example(("a\r\nb\r\n", "a\r\nc\r\n"))
@example(("a\rb\n", "a\rc\n"))
@example(("\n\n\n", "\n\n"))
@example(("a\na\na\n", "a\na\n"))
@example(("a\nb\na\n", "a\na\n"))
@example(("x\na\n", "a\n"))
@example(("a\n", "x\na\n"))
@example(("é😀\n", "é😁\n"))
@PROPERTY
def test_line_regions_of_two_texts_are_the_whole_texts_regions(case: tuple[str, str]) -> None:
    assert_same(*case)


@given(pairs(), LOOSE_SPANS, LOOSE_SPANS)
@example(("a\nb\nc\n", "a\nx\nc\n"), [(0, 3)], [(0, 3)])
@example(("a\nb\nc\n", "a\nx\nc\n"), [(-1, 2)], None)
@example(("a\nb\nc\n", "a\nx\nc\n"), [(1, 2)], [(1, 9)])
@example(("a\nb\n", "a\nb\n"), [(0, 0), (1, 2)], [(0, 1), (2, 2)])
@example(("a\n", ""), [(-1, 1)], None)  # a negative line once counted from the end
@PROPERTY
def test_line_regions_with_any_spans_are_the_whole_texts_regions(
    case: tuple[str, str], spans: Spans, written: Spans
) -> None:
    assert_same(*case, spans, written)
    regions = outcome(line_regions, *case, spans, written)
    if isinstance(regions, list):  # nonsense spans group changes oddly, never change them
        assert applied(case[0], regions) == case[1]


@given(recorded())
@PROPERTY
def test_line_regions_of_the_engines_records_are_the_whole_texts_regions(
    case: tuple[str, str, Spans, Spans],
) -> None:
    assert_same(*case)


@st.composite
def anchored(draw: st.DrawFn) -> tuple[str, str, Spans, Spans, tuple[int, int]]:
    """The engine's records and a line of the old text with the offset it starts at."""
    before, after, spans, written = draw(recorded())
    starts = [0, *(at + 1 for at, char in enumerate(before) if char == "\n")]
    line = draw(st.integers(0, len(starts) - 1))
    return before, after, spans, written, (line, starts[line])


@given(anchored())
@example(("a\nb\nc\n", "a\nx\nc\n", [(1, 2)], [(1, 2)], (3, 6)))
@PROPERTY
def test_an_anchor_spares_a_count_and_changes_nothing(
    case: tuple[str, str, Spans, Spans, tuple[int, int]],
) -> None:
    before, after, spans, written, anchor = case
    args = (before, after, spans, written)
    assert outcome(line_regions, *args, anchor) == outcome(ref_line_regions, *args)


@given(recorded(), st.tuples(st.integers(-2, 30), st.integers(-2, 200)))
@PROPERTY
def test_a_wrong_anchor_may_group_changes_otherwise_but_never_changes_them(
    case: tuple[str, str, Spans, Spans], anchor: tuple[int, int]
) -> None:
    before, after, spans, written = case
    regions = outcome(line_regions, before, after, spans, written, anchor)
    if not isinstance(regions, list):
        return  # nonsense spans are refused with or without it
    assert applied(before, regions) == after


@pytest.mark.parametrize("walked", [0, 1, 3])
@given(case=recorded(), loose=st.tuples(pairs(), LOOSE_SPANS, LOOSE_SPANS))
@settings(max_examples=200, deadline=None)
def test_lines_counted_by_a_split_or_stepped_over_give_the_same_regions(
    walked: int, case: tuple[str, str, Spans, Spans], loose: tuple[tuple[str, str], Spans, Spans]
) -> None:
    """The cut reaches a span's far line by stepping over a few lines one by one, or
    by a split when there are more (``_WALKED``): made few here, both ways are taken."""
    (before, after), spans, written = loose
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(line_cut, "_WALKED", walked)
        assert_same(*case)
        assert_same(before, after, spans, written)


def test_spans_far_from_the_change_in_a_long_text() -> None:
    lines = [f"line {i}\n" for i in range(2_000)]
    before = "".join(lines)
    after = before.replace("line 1500\n", "LINE 1500\n")
    for spans in ([(10, 11), (1500, 1501)], [(1400, 1501)], [(1500, 1501), (1990, 1991)]):
        assert_same(before, after, spans, spans)
        assert_same(before, after, spans, None)
    assert_same(before, after, [(1500, 1501), (10**9, 10**9)], [(1500, 1501)])


@pytest.mark.slow
@given(long_in_place(), st.none() | st.just([(0, 1)]))
@PROPERTY
def test_long_texts_of_as_many_lines_diff_as_the_whole_texts_did(
    case: tuple[str, str], spans: Spans
) -> None:
    assert_same(*case, spans)


def test_a_changed_line_found_only_in_the_shared_lines_still_counts() -> None:
    """60 lines of as many: ``line_opcodes`` diffs them line by line unless a changed
    line of each is a line of the other. Here ``u`` of the new text is a line of the
    old one only in its middle, and ``P``... nowhere: line by line, both ways."""
    head = [f"h{i}\n" for i in range(57)]
    for old, new in [
        (["u\n", "u\n", "Z\n"], ["P\n", "u\n", "Q\n"]),  # line by line
        (["u\n", "h1\n", "Z\n"], ["h2\n", "u\n", "Q\n"]),  # h1, h2: shared lines only
        (["u\n", "h1\n", "Z\n"], ["h2\n", "Z\n", "u\n"]),
    ]:
        for tail in ([], ["t\n"] * 5):
            before, after = "".join(head + old + tail), "".join(head + new + tail)
            assert_same(before, after)
            assert_same(before, after, [(57, 60)])


@pytest.mark.parametrize("found", ["h0\n", "h3\n", "t0\n", "t1\n"])
@pytest.mark.parametrize("rewritten", [0, 4])
def test_a_long_middle_diffed_line_by_line_only_without_the_shared_lines(
    found: str, rewritten: int
) -> None:
    """Middles of 58 lines: the new middle's changed lines are none of the old
    middle's, so alone they would be diffed line by line; but ``found`` is a line
    of the whole old text (first or later in the shared head or tail), and ``u``
    of each: difflib's diff, which keeps the first ``u``. With more lines changed,
    ``found`` is looked up in a set of the shared lines."""
    head = [f"h{i}\n" for i in range(6)]
    same = [f"m{i}\n" for i in range(54)]
    old = ["u\n", "u\n", "Z\n", *same, "E\n"]
    new = [found, "u\n", "Q\n", *same, "F\n"]
    for i in range(rewritten):
        new[10 + 5 * i] = f"x{i}\n"
    tail = ["t0\n", "t1\n", "t2"]
    before, after = "".join(head + old + tail), "".join(head + new + tail)
    assert_same(before, after)
    at = len("".join(head))
    assert line_regions(before, after)[0] == (at, at, found)


def test_many_changed_lines_looked_up_among_the_shared_lines() -> None:
    head = [f"h{i}\n" for i in range(40)]
    old = [f"o{i}\n" for i in range(12)]
    new = [f"h{i}\n" for i in range(12)]  # each a shared line, more than a few
    for new_lines in (new, [f"n{i}\n" for i in range(12)]):
        assert_same("".join(head + old + head), "".join(head + new_lines + head))


def test_only_the_changed_lines_are_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-line change of a 1 MB text splits a few lines, not the whole text."""
    lines = [f"\tint value_{i} = compute({i}, &state);\n" for i in range(25_000)]
    before = "".join(lines)
    after = before.replace("compute(12345,", "compute(54321,", 1)
    split: list[int] = []
    real = line_cut.split_lines

    def counted(text: str) -> list[str]:
        split.append(len(text))
        return real(text)

    monkeypatch.setattr(hunks, "split_lines", counted)
    assert line_regions(before, after, [(12344, 12347)], [(12344, 12347)]) == ref_line_regions(
        before, after, [(12344, 12347)], [(12344, 12347)]
    )
    assert sum(split) < 1_000


def without_anchor(
    before: str, after: str, spans: Spans, written: Spans, anchor: object = None
) -> list[tuple[int, int, str]]:
    """The reference, called as ``StagedText`` calls ``line_regions`` (which it did
    not count from an anchor)."""
    return ref_line_regions(before, after, spans, written)


def staged_hunks(texts: Sequence[str], spans: Spans) -> object:
    """The hunks ``StagedText`` makes of ``texts[0]`` changed to each other text in turn,
    or the error it raises."""
    staged = StagedText(texts[0])
    try:
        for text in texts[1:]:
            staged.change(text, "d", spans)
    except (IndexError, ValueError) as error:
        return type(error), str(error)
    return staged.hunks


@given(pairs(), TEXT, LOOSE_SPANS)
@PROPERTY
def test_staged_hunks_are_the_hunks_of_the_whole_texts(
    case: tuple[str, str], third: str, spans: Spans
) -> None:
    """Through ``StagedText``, over two changes: the hunks are those it made with the
    reference's regions (hunks compare their descriptions and regions)."""
    texts = [*case, third]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hunks, "line_regions", without_anchor)
        expected = staged_hunks(texts, spans)
    got = staged_hunks(texts, spans)
    assert got == expected
    if isinstance(got, list) and isinstance(expected, list):  # ``widened`` is not compared
        assert [h.widened for h in got] == [h.widened for h in expected]


# -- hunk_diff: the lines around a hunk read without splitting the file --------------------


@st.composite
def hunk_cases(draw: st.DrawFn) -> tuple[str, Hunk, int]:
    before = draw(TEXT)
    start = draw(st.integers(0, len(before)))
    end = draw(st.integers(start, len(before)))
    text = draw(BIT)
    return before, Hunk(start, end, text, ("d",)), draw(st.integers(0, 5))


@given(hunk_cases())
@example(("a\nb\nc\nd\ne\nf\ng\n", Hunk(6, 8, "x\n", ("d",)), CONTEXT))
@example(("a\nb", Hunk(2, 3, "c", ("d",)), CONTEXT))
@example(("", Hunk(0, 0, "a\n", ("d",)), CONTEXT))
@example(("a\r\nb\nc\r\n", Hunk(3, 5, "x\r\n", ("d",)), 1))
@PROPERTY
def test_hunk_diff_is_the_same_as_from_the_whole_file(case: tuple[str, Hunk, int]) -> None:
    before, hunk, context = case
    assert hunk_diff(before, hunk, context) == ref_hunk_diff(before, hunk, context)


@given(pairs())
@PROPERTY
def test_hunk_diff_of_staged_hunks_is_the_same_as_from_the_whole_file(
    case: tuple[str, str],
) -> None:
    before, after = case
    staged = StagedText(before)
    staged.change(after, "d")
    for hunk in staged.hunks:
        assert hunk_diff(before, hunk) == ref_hunk_diff(before, hunk)


# -- the overlay's reads --------------------------------------------------------------------

FILE = "".join(f"line {i}\n" for i in range(40))


def edit(ctx: ToolContext, old: str, new: str) -> None:
    args = {"path": "f.c", "old": old, "new": new, "replace_all": None, "description": "d"}
    asyncio.run(EDIT.run(args, ctx))


def rewrite_keeping_size_and_mtime(path: Path, text: str) -> None:
    """Write ``text`` (as long as what is there) in place, and put its times back."""
    was = path.stat()
    assert len(text.encode()) == was.st_size
    with path.open("r+", encoding="utf-8") as file:  # same inode
        file.write(text)
    os.utime(path, ns=(was.st_atime_ns, was.st_mtime_ns))
    now = path.stat()
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (was.st_size, was.st_mtime_ns, was.st_ino)


def test_one_step_reads_the_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "f.c").write_text(FILE, encoding="utf-8")
    reads: list[Path] = []

    def counted(path: Path, cap: int) -> str:
        reads.append(path)
        return read_text(path, cap)

    monkeypatch.setattr(workspace, "read_text", counted)
    ctx = ToolContext(Overlay(tmp_path), Settings())
    edit(ctx, "line 7\n", "line seven\n")
    assert len(reads) == 1
    assert ctx.overlay.text("f.c") == FILE.replace("line 7\n", "line seven\n")


def test_a_file_changed_on_disk_between_steps_is_read_again(tmp_path: Path) -> None:
    """Same size, same inode, the mtime set back: the next step sees the new text."""
    path = tmp_path / "f.c"
    path.write_text(FILE, encoding="utf-8")
    ctx = ToolContext(Overlay(tmp_path), Settings())
    edit(ctx, "line 7\n", "line seven\n")
    ctx.overlay.discard("f.c")  # the change rejected: the overlay reads the disk again
    changed = FILE.replace("line 8\n", "LINE 8\n")
    rewrite_keeping_size_and_mtime(path, changed)
    with pytest.raises(ToolError) as refused:
        edit(ctx, "line 8\n", "line eight\n")
    assert refused.value.code == "not_found"  # that text is gone from the file it read
    ctx.views.saw("f.c", changed)  # as a view of the file leaves it
    edit(ctx, "LINE 8\n", "line eight\n")
    assert ctx.overlay.text("f.c") == changed.replace("LINE 8\n", "line eight\n")
    assert ctx.overlay.originals["f.c"] == changed


def test_reads_inside_one_read_hold_only_until_it_ends(tmp_path: Path) -> None:
    path = tmp_path / "f.c"
    path.write_text(FILE, encoding="utf-8")
    overlay = Overlay(tmp_path)
    changed = FILE.replace("line 3\n", "LINE 3\n")
    with overlay.one_read():
        assert overlay.base("f.c") == FILE
        rewrite_keeping_size_and_mtime(path, changed)
        assert overlay.base("f.c") == FILE  # one change sees one text
        with overlay.one_read():
            assert overlay.text("f.c") == FILE
    assert overlay.base("f.c") == changed
    with overlay.one_read():
        assert overlay.base("f.c") == changed
    rewrite_keeping_size_and_mtime(path, FILE)
    assert overlay.base("f.c") == FILE
