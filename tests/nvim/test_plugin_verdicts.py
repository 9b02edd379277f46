"""The tests' verdict in the Neovim plugin (``surehand/tests``, docs/protocol.md).

A proposal comes with the verdict of the project's tests on it: the review
says it as it opens, the statusline and the review list's title carry its
headline ("tests: 2 failed"), and the list's first rows its lines and the
failing tests' names. Every word of it goes through the plugin's
``visible()``. The words are checked in ``verdict_unit.lua``; the test
below runs a real headless Neovim against the real server, whose scripted
model runs a Node project's tests (``npm test``) in the sandbox.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.nvim.lua_run import run_lua
from tests.nvim.test_neovim import NVIM
from tests.nvim.test_plugin import messages, run_plugin, snap
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import FINISH, edit

HERE = Path(__file__).parent
EXAMPLES = HERE.parent.parent / "docs" / "protocol" / "examples"
NODE = shutil.which("node") and shutil.which("npm")
WARN = 3  # vim.log.levels.WARN

pytestmark = pytest.mark.skipif(NVIM is None, reason="no nvim binary")


def test_the_verdict_in_words_in_the_list_and_the_statusline(tmp_path: Path):
    """Passed, failed with names, stale, not run, hidden characters escaped; the list's
    title and rows; the statusline; the protocol's examples."""
    report = run_lua("verdict_unit.lua", EXAMPLES, result=tmp_path / "unit.json")
    assert report["failures"] == []
    assert report["checks"] >= 40


# -- a Node project whose tests the server runs in the sandbox (node --test, as npm test) ------

CALC_JS = (
    "function add(a, b) {\n  return a + b;\n}\n\n"
    "function sub(a, b) {\n  return a - b;\n}\n\n"
    "module.exports = { add, sub };\n"
)
SPOOFED = "adds \u202eevil"
"""A test's name with a right-to-left override: the plugin shows it as ``\\u202e``."""
TEST_JS = (
    "const test = require('node:test');\n"
    "const assert = require('node:assert');\n"
    "const { add, sub } = require('../calc.js');\n\n"
    f"test({SPOOFED!r}, () => assert.strictEqual(add(1, 2), 3));\n"
    "test('subtracts', () => assert.strictEqual(sub(3, 1), 2));\n"
)
BREAK_ADD = edit(
    "  return a + b;\n", "  return a + b + 1;\n", "add counts from one", path="calc.js"
)
NOTE_SUB = edit("  return a - b;\n", "  return a - b; // difference\n", "sub noted", path="calc.js")


def node_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "test").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "calc"\n', encoding="utf-8")
    (root / "package.json").write_text(
        json.dumps({"name": "calc", "private": True, "scripts": {"test": "node --test"}}),
        encoding="utf-8",
    )
    (root / "calc.js").write_text(CALC_JS, encoding="utf-8")
    (root / "test" / "calc.test.js").write_text(TEST_JS, encoding="utf-8")
    return root


NOTE_SUB_DONE = CALC_JS.replace("return a - b;", "return a - b; // difference")
BREAK_ADD_DONE = CALC_JS.replace("return a + b;", "return a + b + 1;")

REVIEW_AND_REJECT_THE_BREAK: list[dict[str, Any]] = [
    {"do": "ask", "task": "tidy calc"},
    {"do": "wait_review"},
    {"do": "snapshot", "name": "open"},
    {"do": "goto", "path": "calc.js", "line": 2},
    {"do": "cmd", "cmd": "SurehandReject"},  # add's hunk; the cursor goes on to sub's
    {"do": "cmd", "cmd": "SurehandAccept"},
    {"do": "wait_reviewed"},
]


@pytest.mark.slow
@pytest.mark.skipif(NODE is None, reason="no node and npm")
def test_a_proposal_with_failing_tests_then_the_part_accepted_checked(
    tmp_path: Path, openai_server: ScriptedServer
):
    """The proposal breaks a test: the review opens saying "tests: 1 failed", the
    statusline and the list's title carry it, the list's first rows its line and the
    failing test's name (escaped). The person rejects the breaking hunk: the tests run
    on what they accepted at once, and say "tests: 2 passed"."""
    root = node_project(tmp_path)
    openai_server.add(Turn(tool_calls=[BREAK_ADD, NOTE_SUB]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [*REVIEW_AND_REJECT_THE_BREAK, {"do": "wait_done"}, {"do": "snapshot", "name": "done"}],
        file="calc.js",
    )

    opened = snap(seen, "open")
    assert opened["quickfix_title"] == "surehand review · tests: 1 failed · 2 hunks left"
    rows = [
        (q["text"], valid)
        for q, valid in zip(opened["quickfix"], opened["quickfix_valid"], strict=True)
    ]
    line, valid = rows[0]
    assert line.startswith(
        "tests `npm test`: 1 failed, 1 passed on the proposed change; failing: adds \\u202eevil"
    )
    assert "sandboxed (bubblewrap" in line and not valid, "a row with no place: :cnext passes it"
    assert rows[1:] == [
        ("  ✗ failing: adds \\u202eevil", False),
        ("◆ add counts from one (replace 1 line with 1)", True),
        ("◆ sub noted (replace 1 line with 1)", True),
    ]
    assert opened["status"] == "surehand: review 2 hunks · tests: 1 failed"
    said = messages(seen)
    assert said[1] == "surehand: tests: 1 failed · review 1 file (]s next, :SurehandList)"
    shown = {n["message"]: n["level"] for n in seen["notified"]}
    assert shown.get(said[1]) == WARN, "a failing test makes the opening line a warning"
    assert all("\u202e" not in n["message"] for n in seen["notified"])

    assert "surehand: running the tests on what you accepted…" in said
    accepted = next(m for m in said if m.startswith("surehand: tests: 2 passed"))
    assert accepted.startswith(
        "surehand: tests: 2 passed on what you accepted. "
        "tests `npm test`: 2 passed on what you accepted (1 of 2 hunks rejected); run by surehand"
    )
    assert said[-1].startswith(
        "surehand: partly_applied (tests: 2 passed on what you accepted). "
    ), "the task's last line says it too"
    assert seen["done"][0]["testsAccepted"][0]["status"] == "passed"
    assert seen["done"][0]["tests"][0]["run"]["failing"] == [SPOOFED]
    assert snap(seen, "done")["status"] == "surehand"
    assert seen["buffers"]["calc.js"] == NOTE_SUB_DONE
    assert (root / "calc.js").read_text(encoding="utf-8") == CALC_JS, "nothing saved"


@pytest.mark.slow
@pytest.mark.skipif(NODE is None, reason="no node and npm")
def test_the_check_offered_then_run_with_surehand_check_tests(
    tmp_path: Path, openai_server: ScriptedServer
):
    """With testsOnAccepted "offer", the review's end says :SurehandCheckTests runs the
    tests on what was accepted; run, it says the failing test as a warning, in one line,
    the whole verdict kept for :SurehandMessages; the statusline is idle again."""
    root = node_project(tmp_path)
    openai_server.add(Turn(tool_calls=[BREAK_ADD, NOTE_SUB]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "tidy calc"},
            {"do": "wait_review"},
            {"do": "goto", "path": "calc.js", "line": 2},
            {"do": "cmd", "cmd": "SurehandAccept"},  # the breaking hunk, this time
            {"do": "cmd", "cmd": "SurehandReject"},
            {"do": "wait_reviewed"},
            {"do": "wait_done"},
            {"do": "cmd", "cmd": "SurehandCheckTests"},
            {"do": "wait_said", "contains": "on what you accepted. tests `npm test`"},
            {"do": "snapshot", "name": "checked"},
        ],
        file="calc.js",
        options={"settings": {"testsOnAccepted": "offer"}},
    )

    said = messages(seen)
    offered = "surehand: :SurehandCheckTests runs the tests on what you accepted"
    assert offered in said
    assert said.index(offered) < said.index("surehand: running the tests on what you accepted…")
    assert said.index(offered) == said.index(next(m for m in said if "partly_applied" in m)) + 1
    assert offered in [n["message"] for n in seen["notified"]], (
        "shown: said after the task's last line, which would hide it"
    )
    assert "testsAccepted" not in seen["done"][0], "nothing ran before it was asked for"
    checked = said[-1]
    assert checked.startswith(
        "surehand: tests: 1 failed on what you accepted. tests `npm test`: 1 failed, 1 passed "
        "on what you accepted (1 of 2 hunks rejected); failing: adds \\u202eevil; run by surehand"
    ), checked
    assert sum("on what you accepted. tests" in m for m in said) == 1, "said once, not twice"
    last = seen["notified"][-1]
    assert last["level"] == WARN and last["message"].endswith("… (:SurehandMessages)")
    assert len(last["message"]) <= 68, "one line that fits"
    assert snap(seen, "checked")["status"] == "surehand"
    assert seen["buffers"]["calc.js"] == BREAK_ADD_DONE
    assert (root / "calc.js").read_text(encoding="utf-8") == CALC_JS, "nothing saved"
