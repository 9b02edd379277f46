"""Property test: typing in a buffer under review is never overwritten.

Hypothesis makes a file (emoji, CJK, LF or CRLF, with or without a last line break) and
a proposal of non-overlapping hunks of it; one headless Neovim per batch
opens the review through the plugin's real ``workspace/applyEdit`` handler,
types at random (seeded) with ``nvim_buf_set_text``, and accepts everything.
The review's copy of the text must follow the buffer, every hunk that is not
stale must still span exactly the text it replaces, and the buffer must end
as the typed text with exactly those hunks put in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.nvim.lua_run import run_lua
from tests.nvim.test_neovim import NVIM

HERE = Path(__file__).parent
PLUGIN = HERE.parent.parent / "client-nvim"

pytestmark = pytest.mark.skipif(NVIM is None, reason="no nvim binary")

LINE = st.text(st.sampled_from(["a", "b", " ", "é", "日", "😀"]), max_size=5)


def position(text: str, index: int) -> dict[str, int]:
    """The UTF-16 position of character ``index``."""
    before = text[:index]
    line = before.count("\n")
    column = before[before.rfind("\n") + 1 :]
    return {"line": line, "character": len(column.encode("utf-16-le")) // 2}


@st.composite
def case(draw: st.DrawFn) -> dict[str, Any]:
    lines = draw(st.lists(LINE, min_size=1, max_size=6))
    text = "\n".join(lines) + ("\n" if draw(st.booleans()) else "")
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), min_size=2, max_size=6)))
    edits: list[dict[str, Any]] = []
    for start, stop in zip(cuts[::2], cuts[1::2], strict=False):
        new = "\n".join(draw(st.lists(LINE, max_size=3)))
        edits.append(
            {"range": {"start": position(text, start), "end": position(text, stop)}, "newText": new}
        )
    seed = draw(st.integers(0, 2**31 - 1))
    if draw(st.booleans()) and "\n" in text:  # a CRLF file (Neovim reads it as 'fileformat' dos)
        text = text.replace("\n", "\r\n")
        for e in edits:
            e["newText"] = e["newText"].replace("\n", "\r\n")
    return {"text": text, "edits": edits, "seed": seed, "typing": draw(st.integers(0, 6))}


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(case(), min_size=30, max_size=30))
def test_typing_during_a_review_is_kept(tmp_path: Path, cases: list[dict[str, Any]]):
    cases_file, result_file = tmp_path / "cases.json", tmp_path / "result.json"
    work = tmp_path / "files"
    work.mkdir(exist_ok=True)
    cases_file.write_text(json.dumps(cases), encoding="utf-8")
    results = run_lua("follow_cases.lua", work, cases_file, result=result_file)
    for c, r in zip(cases, results, strict=True):
        if not c["edits"]:
            continue  # nothing proposed: no review
        assert r["opened"] and r["answered"], (c, r)
        assert r["tracked"], ("the review follows the buffer", c)
        assert r["holds"], ("a hunk that is not stale spans its old text", c)
        assert r["final"] == r["expected"], (c, r)
