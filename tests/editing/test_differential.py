"""Differential property tests: the engine against the file with one region replaced.

1. Edits: a random file (code-like lines in a few languages, blank lines,
   LF/CRLF/mixed endings, BOM, no final newline, tabs, non-ASCII text and
   typographic characters), a random unique region (whole lines or a
   fragment of one) and its new text, quoted with random model drift (up to
   three of: indentation shifted, stripped or in other units, trailing
   blanks, curly quotes, ASCII for the file's typographic characters, dashes,
   no-break spaces, escaping, line-number prefixes). The engine refuses, or
   gives exactly the file with the region replaced and the drift undone; a
   drift-free quote is never refused for its location.
2. Patches: one or two random edits rendered as a patch (context lines or
   none, an ``@@`` anchor or none, ``*** End of File`` where it fits, with
   or without drift), applied, compared the same way.
3. Runs of equal lines in a chunk: blank lines and twin code lines that
   compare equal but differ in line ending or trailing blanks, some kept,
   removed, changed or followed by a new line, quoted as they are, with
   trailing blanks dropped or with trailing blanks added. The result is the chunk applied by position:
   each kept line keeps its own bytes.
4. Whole-file rewrites that carry an edit and are then cut off inside
   something (mid-line, inside a block or brackets) are refused; rewrites
   that carry an edit and drop whole trailing blocks are written (or
   refused for the share of lines they drop).

The number of examples is ``SUREHAND_FUZZ_EXAMPLES`` (default 150 per test);
the equal-run patch test runs at least ``PATCH_EXAMPLES`` (1,000).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import hypothesis.strategies as st
import pytest
from hypothesis import assume, event, given, settings

from editing import EditError, Reason, apply_edit
from editing.patch import apply_patch, parse_patch
from editing.write import MAX_DROPPED_SHARE, check_write
from tests.editing.differential import (
    DRIFTS,
    EXAMPLES,
    FUZZ,
    File,
    Region,
    compact,
    drift_names,
    expected,
    files,
    new_text,
    occurs_once,
    old_text,
    regions,
    uniform_endings,
    unique_enough,
)

pytestmark = pytest.mark.slow

# Refusals that are right even for a drift-free quote of a unique region.
LOCATION_INDEPENDENT = {Reason.ALREADY_APPLIED, Reason.NO_CHANGE, Reason.PLACEHOLDER}


@st.composite
def drifted(draw: st.DrawFn, file: File, region: Region) -> tuple[str, str, list[str]]:
    """Old and new as a drifting model sends them, and the drifts applied."""
    old, new = old_text(file, region), new_text(region)
    names = drift_names(old, whole_lines=region.fragment is None)
    chosen = draw(st.lists(st.sampled_from(names), max_size=3, unique=True)) if names else []
    # Tabs written as spaces and shifted too: with one line of evidence, eight
    # spaces for a tab reads as a plain change of units (the smallest shift).
    assume(not ("tabs_as_spaces" in chosen and {"deeper", "stripped"} & set(chosen)))
    # Escaping and line numbers are what a model adds last, around the rest.
    chosen.sort(key=lambda name: name in ("escaped", "numbered"))
    for name in chosen:
        drifted_old = DRIFTS[name](old, old, region.first + 1)
        drifted_new = DRIFTS[name](new, old, region.first + 1)
        assume(drifted_old is not None and drifted_new is not None)
        old, new = drifted_old, drifted_new  # type: ignore[assignment]
    return old, new, chosen


@FUZZ
@given(st.data())
def test_an_edit_replaces_its_region_or_is_refused(data: st.DataObject) -> None:
    file = data.draw(files(), label="file")
    region = data.draw(regions(file), label="region")
    assume(uniform_endings(file, region))
    old, new, drifts = data.draw(drifted(file, region), label="drift")
    assume(old != new and old.strip())
    assume(unique_enough(file, region, [old]))
    event(f"drifts: {len(drifts)}")
    for name in drifts:
        event(f"drift {name}")
    try:
        result = apply_edit(file.text, old, new)
    except EditError as error:
        event(f"refused {error.reason}")
        if not drifts:
            assert error.reason in LOCATION_INDEPENDENT, error.message
        return
    event("applied")
    assert result.text == expected(file, region), (old, new)


# -- patches --------------------------------------------------------------------


@st.composite
def chunk_lines(draw: st.DrawFn, file: File, region: Region) -> tuple[list[str], int, int]:
    """The region as a chunk: some context lines around its ``-`` and ``+`` lines,
    and the span of file lines the chunk quotes."""
    before = draw(st.integers(0, 3))
    after = draw(st.integers(0, 3))
    start, end = max(0, region.first - before), min(len(file.lines), region.last + after)
    old = file.lines[region.first : region.last]
    lines = [" " + line for line in file.lines[start : region.first]]
    ops = difflib.SequenceMatcher(None, old, region.new_lines, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            lines += [" " + line for line in old[i1:i2]]
        else:
            lines += ["-" + line for line in old[i1:i2]]
            lines += ["+" + line for line in region.new_lines[j1:j2]]
    lines += [" " + line for line in file.lines[region.last : end]]
    if end == len(file.lines) and draw(st.booleans()):
        lines.append("*** End of File")
    return lines, start, end


@st.composite
def patch_regions(draw: st.DrawFn, file: File) -> list[Region]:
    """One or two whole-line regions, in file order and apart."""
    first = draw(regions(file).filter(lambda r: r.fragment is None))
    chosen = [Region(first.first, first.last, first.new_lines)]
    if first.last + 4 < len(file.lines) and draw(st.booleans()):
        second = draw(
            regions(file).filter(lambda r: r.fragment is None and r.first > first.last + 3)
        )
        chosen.append(Region(second.first, second.last, second.new_lines))
    # A patch always quotes whole lines; the last one's ending is the file's.
    return [
        Region(r.first, r.last, r.new_lines, ends_line=bool(file.eols[r.last - 1])) for r in chosen
    ]


PATCH_DRIFTS = ("deeper", "trailing", "curly", "plain")


@FUZZ
@given(st.data())
def test_a_patch_replaces_its_regions_or_is_refused(data: st.DataObject) -> None:
    file = data.draw(files(), label="file")
    chosen = data.draw(patch_regions(file), label="regions")
    for region in chosen:
        assume(uniform_endings(file, region))
        assume(region.new_lines != file.lines[region.first : region.last])
    body = ["*** Begin Patch", "*** Update File: src/file.txt"]
    drift = data.draw(st.sampled_from([None, *PATCH_DRIFTS]), label="drift")
    cursor = 0  # a chunk's anchor is searched from where the previous chunk ended
    for index, region in enumerate(chosen):
        lines, start, end = data.draw(chunk_lines(file, region), label="chunk")
        assume(start >= cursor)  # chunks quote lines in file order, none twice
        anchors = [i for i in range(cursor, start) if file.lines[i].strip()]
        cursor = end
        if bool(anchors) and data.draw(st.booleans()):
            body.append("@@ " + file.lines[data.draw(st.sampled_from(anchors))].strip())
        elif index or data.draw(st.booleans()):
            body.append("@@")
        if drift is not None:
            old = "\n".join(line[1:] for line in lines if line[:1] in " -")
            assume(drift in drift_names(old, whole_lines=True))
            lines = [
                line
                if line.startswith("***")
                else line[0] + (DRIFTS[drift](line[1:], old, 1) or "")
                for line in lines
            ]
        body += lines
    body.append("*** End Patch")
    text = "\n".join(body) + "\n"
    parsed = parse_patch(text)
    view = compact(file.view)
    for chunk in parsed.ops[0].chunks:  # type: ignore[union-attr]
        quoted = compact("\n".join(chunk.old_lines))
        assume(chunk.old_lines and quoted and occurs_once(view, quoted))
    event(f"chunks: {len(chosen)}; drift: {drift}")
    try:
        result = apply_patch(text, {"src/file.txt": file.text}.get)
    except EditError as error:
        event(f"refused {error.reason}")
        if drift is None:
            assert error.reason in LOCATION_INDEPENDENT, error.message
        return
    event("applied")
    assert result.files == {"src/file.txt": expected(file, *chosen)}, text


# -- runs of equal lines in a chunk -----------------------------------------------

PATCH_EXAMPLES = max(EXAMPLES, 1000)
BLANKS = ["", "", " ", "  ", "\t", "    "]
TWINS = ["    total += 1", "  console.log(x);", "\tdefer f.Close()", "- run: make"]


@dataclass(frozen=True)
class RunLine:
    text: str
    eol: str
    op: str  # keep, drop, change or add (kept, and a new line after it)
    new: str = ""  # the changed line, or the line added after it


@st.composite
def equal_runs(draw: st.DrawFn) -> list[RunLine]:
    """A run of lines that compare equal once trailing blanks and endings are
    ignored (blank lines, twin code lines, or both), each with its own ending,
    and what the chunk does with each."""
    twin = draw(st.sampled_from(TWINS))
    kinds = draw(st.sampled_from(["blank", "twin", "both"]))
    count = draw(st.integers(2, 6))
    lines = []
    for index in range(count):
        kind = kinds if kinds != "both" else draw(st.sampled_from(["blank", "twin"]))
        text = (
            draw(st.sampled_from(BLANKS))
            if kind == "blank"
            else twin + draw(st.sampled_from(["", "", " ", "\t", "  "]))
        )
        eol = draw(st.sampled_from(["\n", "\r\n"]))
        op = draw(st.sampled_from(["keep", "keep", "drop", "drop", "change", "add"]))
        lines.append(RunLine(text, eol, op, f"changed_{index}()" if op != "keep" else ""))
    assume(any(line.op != "keep" for line in lines))
    return lines


def _run_chunk(run: list[RunLine], quote: str) -> list[str]:
    """The chunk's lines (markers included) for the run, between its two markers."""
    pad = "  " if quote == "padded" else ""
    lines = [" def start_marker():" + pad]
    for line in run:
        text = line.text.rstrip() if quote == "stripped" else line.text
        text += pad if text.strip() else ""
        if line.op == "keep":
            lines.append(" " + text)
        elif line.op == "add":
            lines += [" " + text, "+" + line.new + pad]
        elif line.op == "drop":
            lines.append("-" + text)
        else:
            lines += ["-" + text, "+" + line.new + pad]
    lines.append(" end_marker()" + pad)
    return lines


def _run_expected(head: list[tuple[str, str]], run: list[RunLine]) -> list[tuple[str, str]]:
    """The run applied by position: kept lines as they are; in each stretch of
    removed and added lines, the k-th added line takes the ending of the k-th
    removed one (the last, if fewer), or of the line before the stretch."""
    out = list(head)
    before = head[-1][1]
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        for k, text in enumerate(added):
            out.append((text, removed[min(k, len(removed) - 1)] if removed else before))
        removed.clear()
        added.clear()

    for line in run:
        if line.op in ("keep", "add"):
            flush()
            out.append((line.text, line.eol))
            before = line.eol
            if line.op == "add":
                added.append(line.new)
        else:
            removed.append(line.eol)
            if line.op == "change":
                added.append(line.new)
    flush()
    return out


@settings(FUZZ, max_examples=PATCH_EXAMPLES)
@given(st.data())
def test_a_chunk_over_equal_lines_changes_the_lines_it_marks(data: st.DataObject) -> None:
    run = data.draw(equal_runs(), label="run")
    # Quoted as in the file, with trailing blanks dropped, or with some added
    # everywhere (then the added lines lose them too).
    quote = data.draw(st.sampled_from(["as is", "stripped", "padded"]), label="quote")
    head_eol = data.draw(st.sampled_from(["\n", "\r\n"]), label="head ending")
    head = [("import os", head_eol), ("def start_marker():", head_eol)]
    tail = [("end_marker()", "\n"), ("done()", data.draw(st.sampled_from(["\n", ""])))]
    text = "".join(t + e for t, e in head + [(r.text, r.eol) for r in run] + tail)
    body = ["*** Begin Patch", "*** Update File: f", "@@", *_run_chunk(run, quote), "*** End Patch"]
    event(f"quote: {quote}")
    result = apply_patch("\n".join(body) + "\n", {"f": text}.get)
    want = "".join(t + e for t, e in _run_expected(head, run) + tail)
    assert result.files == {"f": want}, body


# -- whole-file rewrites cut off after an edit ----------------------------------------


@st.composite
def block_file(draw: st.DrawFn) -> tuple[list[list[str]], str]:
    """A file of 3 to 8 blocks (Python functions or JS functions), as lines per block."""
    style = draw(st.sampled_from(["python", "js"]))
    blocks = []
    for b in range(draw(st.integers(3, 8))):
        body = [
            f"    value_{b}_{k} = compute({b}, {k})"
            if style == "python"
            else f"  const value_{b}_{k} = compute({b}, {k});"
            for k in range(draw(st.integers(2, 4)))
        ]
        if style == "python":
            block = [f"def step_{b}(items):", *body, f"    return value_{b}_0", ""]
        else:
            block = [f"function step{b}(items) {{", *body, f"  return value_{b}_0;", "}", ""]
        blocks.append(block)
    return blocks, style


def _edited(data: st.DataObject, blocks: list[list[str]], upto: int) -> list[list[str]]:
    """The blocks with one body line of a block before ``upto`` changed, removed or doubled."""
    blocks = [list(block) for block in blocks]
    b = data.draw(st.integers(0, upto - 1), label="edited block")
    k = data.draw(st.sampled_from([i for i, line in enumerate(blocks[b]) if "compute(" in line]))
    action = data.draw(st.sampled_from(["change", "drop", "add"]), label="edit")
    line = blocks[b][k]
    if action == "change":
        blocks[b][k] = line.replace("compute", "recompute")
    elif action == "drop":
        del blocks[b][k]
    else:
        blocks[b].insert(k + 1, line.replace("compute(", "log_value("))
    return blocks


@FUZZ
@given(st.data())
def test_a_rewrite_cut_off_after_an_edit_is_refused(data: st.DataObject) -> None:
    blocks, style = data.draw(block_file(), label="file")
    old = "".join(line + "\n" for block in blocks for line in block)
    cut_block = data.draw(st.integers(1, len(blocks) - 1), label="cut block")
    edited = _edited(data, blocks, cut_block)
    kept = [line for block in edited[:cut_block] for line in block]
    block = edited[cut_block]
    last_block = cut_block == len(blocks) - 1
    where = data.draw(st.sampled_from(["mid-line", "after header", "inside"]), label="cut")
    if where == "mid-line":
        texts = [i for i, line in enumerate(block) if len(line.strip()) > 1]
        # Something must be missing after the line cut short.
        k = data.draw(st.sampled_from(texts[:-1] if last_block else texts))
        line = block[k]
        cut = data.draw(st.integers(len(line) - len(line.lstrip()) + 1, len(line) - 1))
        new = kept + block[:k] + [line[:cut]]
    elif where == "after header":
        new = kept + block[:1]
    else:
        # Inside the block after a whole line: Python shows it by the lines after
        # it dedenting, which only a block that is not the last has.
        assume(style == "js" or not last_block)
        new = kept + block[: data.draw(st.integers(2, len(block) - 2))]
    event(f"{style}: cut {where}")
    content = "\n".join(new) + data.draw(st.sampled_from(["", "\n"]))
    with pytest.raises(EditError) as refused:
        check_write(old, content, path="f")
    assert refused.value.reason == Reason.DESTRUCTIVE_WRITE


@FUZZ
@given(st.data())
def test_a_rewrite_that_drops_whole_trailing_blocks_is_written(data: st.DataObject) -> None:
    blocks, _ = data.draw(block_file(), label="file")
    old = "".join(line + "\n" for block in blocks for line in block)
    # One or two blocks dropped: more is refused for the share of lines dropped.
    keep = data.draw(st.integers(max(1, len(blocks) - 2), len(blocks) - 1), label="blocks kept")
    edited = _edited(data, blocks, keep)
    content = "".join(line + "\n" for block in edited[:keep] for line in block)
    dropped = sum(len(block) for block in blocks[keep:])
    total = sum(len(block) for block in blocks) - 1  # the final blank line is no line
    try:
        result = check_write(old, content, path="f")
    except EditError as error:
        assert error.reason == Reason.DESTRUCTIVE_WRITE
        assert "drops" in error.message, error.message
        assert dropped / total > MAX_DROPPED_SHARE - 0.05  # the count is the engine's
        event("refused: share dropped")
        return
    event("written")
    assert result.text == content
