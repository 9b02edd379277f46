"""Property test: the plugin puts accepted hunks into a real Neovim buffer exactly.

Hypothesis makes texts (LF or CRLF, with or without a final line break,
emoji, CJK, tabs) and non-overlapping hunks, some accepted; one headless
Neovim per batch applies them with the plugin's ``apply.put_hunks`` and
reports each buffer's text. The buffer must hold the text with exactly the
accepted hunks, and one ``undo`` per accepted hunk must give the original (but for the last
line break, which Neovim keeps as the 'eol' option, outside undo).
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

CHARS = st.sampled_from(["a", "b", " ", "\t", "é", "日", "本", "😀", "x"])
LINE = st.text(CHARS, max_size=6)


@st.composite
def case(draw: st.DrawFn) -> dict[str, Any]:
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines = draw(st.lists(LINE, max_size=6))
    text = newline.join(lines) + (newline if bool(lines) and draw(st.booleans()) else "")
    # Hunk boundaries: character positions, never inside a CRLF pair.
    allowed = [
        i for i in range(len(text) + 1) if not (0 < i < len(text) and text[i - 1 : i + 1] == "\r\n")
    ]
    cuts = sorted(draw(st.lists(st.sampled_from(allowed), max_size=6)))
    hunks: list[dict[str, Any]] = []
    for start, stop in zip(cuts[::2], cuts[1::2], strict=False):
        new_lines = draw(st.lists(LINE, max_size=3))
        new = newline.join(new_lines) + (newline if draw(st.booleans()) else "")
        hunks.append(
            {
                "start": len(text[:start].encode()),
                "stop": len(text[:stop].encode()),
                "new_text": new,
                "accepted": draw(st.booleans()),
            }
        )
    data = text.encode()
    # One undo step per accepted hunk that changes something (a no-op changes nothing).
    undos = sum(
        1 for h in hunks if h["accepted"] and h["new_text"].encode() != data[h["start"] : h["stop"]]
    )
    return {"text": text, "hunks": hunks, "dos": newline == "\r\n", "undos": undos}


def expected(c: dict[str, Any]) -> str:
    data = c["text"].encode()
    out, at = b"", 0
    for h in c["hunks"]:
        if h["accepted"]:
            out += data[at : h["start"]] + h["new_text"].encode()
            at = h["stop"]
    return (out + data[at:]).decode()


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(case(), min_size=40, max_size=40))
def test_accepted_hunks_land_exactly_and_undo_one_by_one(
    tmp_path: Path, cases: list[dict[str, Any]]
):
    cases_file, result_file = tmp_path / "cases.json", tmp_path / "result.json"
    cases_file.write_text(json.dumps(cases), encoding="utf-8")
    results = run_lua("apply_cases.lua", cases_file, result=result_file)
    for c, r in zip(cases, results, strict=True):
        assert r["shown"] == c["text"], "the buffer holds the text as the server sees it"
        assert r["got"] == expected(c) == r["want"], c
        # 'eol' is an option, not text, and undo leaves it: a hunk that reaches the end
        # of the text can add or drop the last line break for good.
        end = len(c["text"].encode())
        if not any(h["accepted"] and h["stop"] == end for h in c["hunks"]):
            assert r["undone"] == c["text"], ("one undo per accepted hunk", c)
