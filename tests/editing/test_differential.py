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

The number of examples is ``SUREHAND_FUZZ_EXAMPLES`` (default 150 per test).
"""

from __future__ import annotations

import difflib

import hypothesis.strategies as st
import pytest
from hypothesis import assume, event, given

from editing import EditError, Reason, apply_edit
from editing.patch import apply_patch, parse_patch
from tests.editing.differential import (
    DRIFTS,
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
        if anchors and data.draw(st.booleans()):
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
