"""The tests' verdict in the editor, through pytest-lsp and the real server.

A rich client (VS Code's flavour) gets ``surehand/tests`` before the
proposal's ``workspace/applyEdit``; when the person rejects a hunk, the
tests run on what they accepted (unsaved in the buffers) before the ask is
answered, and the result carries ``testsAccepted``. A plain client (no
surehand notifications) reads the same verdicts in ``window/showMessage``.
Nothing is written to the workspace by any of these runs. Every message is
checked against its schema.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from lsp_server import code_actions
from lsp_server.test_checks import CHECK_TESTS, TESTS
from tests.agent.sandboxes import bubblewrap
from tests.lsp.conftest import editor_settings, editors, project
from tests.lsp.editor import Editors, ask, command, wait_until
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, edit
from tests.test_protocol import errors
from tests.test_protocol_wire import sent

__all__ = ["editor_settings", "editors", "project"]  # the LSP tests' fixtures

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

TESTS_PY = (
    "import unittest\n\nfrom calc import add, sub\n\n\nclass CalcTest(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n"
    "    def test_sub(self):\n        self.assertEqual(sub(3, 2), 1)\n\n"
    "    def test_sub_zero(self):\n        self.assertEqual(sub(2, 0), 2)\n"
)
UNITTEST = Call("run_command", {"command": "python3 -m unittest", "timeout": None})
# A second hunk the tests do not care about: rejecting it keeps them green.
NOTE = edit(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n", "note"
)


@pytest.fixture
def project_files() -> dict[str, str]:
    return {"calc.py": CALC, "test_calc.py": TESTS_PY}


def on_disk(root: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(root.glob("*.py"))}


def valid(params: dict[str, Any]) -> dict[str, Any]:
    message = {"direction": "server->client", "method": TESTS, "params": params}
    assert errors(message) == [], params
    return params


def script(model: ScriptedServer) -> None:
    model.add(
        Turn(tool_calls=[UNITTEST]),  # on the untouched workspace: the baseline
        Turn(tool_calls=[FIX, NOTE]),
        Turn(tool_calls=[UNITTEST]),
        Turn(tool_calls=[FINISH]),
    )


async def test_the_review_gets_the_verdict_first_and_a_partial_accept_that_breaks_the_suite(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    bubblewrap()
    editor = await editors.open("vscode")
    told = sent(editor, TESTS)
    editor.open("calc.py")
    before = on_disk(project)
    seen_before_edit: list[int] = []
    editor.before_apply.append(lambda _: seen_before_edit.append(len(told)))
    editor.reject_labels = {"add adds"}
    script(openai_server)

    result = await ask(editor.client, "Fix add.", timeout=60)

    assert result["outcome"] == "partly_applied", result
    assert seen_before_edit == [1], "the verdict comes before the proposal"
    proposed = valid(told[0])
    assert (proposed["on"], proposed["state"], proposed["headline"]) == (
        "proposal",
        "done",
        "tests: 3 passed",
    )
    (verdict,) = proposed["verdicts"]
    assert verdict["run"]["ranBy"] == "model" and verdict["baseline"]["failed"] == 1
    assert [valid(t)["state"] for t in told[1:]] == ["running", "done"]
    checked = told[2]
    assert (checked["on"], checked["rejected"], checked["hunks"]) == ("accepted", 1, 2)
    (after,) = checked["verdicts"]
    assert after["status"] == "failed" and after["run"]["ranBy"] == "surehand"
    assert after["run"]["failing"] == ["test_add (test_calc.CalcTest.test_add)"]
    assert "on what you accepted (1 of 2 hunks rejected)" in after["line"]
    assert result["tests"][0]["status"] == "passed"
    assert result["testsAccepted"][0]["status"] == "failed"
    assert on_disk(project) == before  # the accepted hunk sits unsaved in the buffer


async def test_a_partial_accept_that_keeps_the_suite_green(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    bubblewrap()
    editor = await editors.open("vscode")
    told = sent(editor, TESTS)
    editor.open("calc.py")
    before = on_disk(project)
    editor.reject_labels = {"note"}
    script(openai_server)

    result = await ask(editor.client, "Fix add.", timeout=60)

    assert result["outcome"] == "partly_applied", result
    (after,) = result["testsAccepted"]
    assert after["status"] == "passed" and after["run"]["passed"] == 3
    assert valid(told[-1])["headline"] == "tests: 3 passed"
    assert on_disk(project) == before


async def test_a_plain_client_reads_the_verdicts_in_messages_and_can_check_again(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    bubblewrap()
    editor = await editors.open("neovim", notifications=False)
    calc = editor.open("calc.py")
    before = on_disk(project)
    script(openai_server)

    answer = await command(editor.client, "surehand.ask", {"task": "Fix add.", "uri": calc})
    assert answer["outcome"] == "started", answer

    def said(words: str) -> list[str]:
        return [m.message for m in editor.client.messages if words in m.message]

    proposal = await wait_until(lambda: said("the tests on the proposal"), timeout=60)
    assert "tests `python3 -m unittest`: 3 passed on the proposed change" in proposal[0]
    items = await wait_until(
        lambda: editor.client.diagnostics.get(calc), timeout=30, what="the review's items"
    )
    fix = next(item for item in items if "add adds" in item.message)
    await command(editor.client, code_actions.REJECT, {"id": fix.code})
    await command(editor.client, code_actions.ACCEPT, {"uri": calc, "line": 5})
    accepted = await wait_until(lambda: said("the tests on what you accepted"), timeout=60)
    assert "1 failed, 2 passed on what you accepted (1 of 2 hunks rejected)" in accepted[0]
    again = await command(editor.client, CHECK_TESTS)
    assert again["headline"] == "tests: 1 failed", again
    assert on_disk(project) == before


SLOW_WHEN_BROKEN = (
    "import time\nimport unittest\n\nfrom calc import add\n\n\nclass CalcTest(unittest.TestCase):\n"
    "    def test_add(self):\n        if add(2, 3) != 5:\n            time.sleep(120)\n"
    "        self.assertEqual(add(2, 3), 5)\n"
)


async def test_cancelling_the_check_of_what_was_accepted_keeps_the_reviews_outcome(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    bubblewrap()
    (project / "test_calc.py").write_text(SLOW_WHEN_BROKEN)
    editor = await editors.open("vscode")
    told = sent(editor, TESTS)
    editor.open("calc.py")
    editor.reject_labels = {"add adds"}  # what is left runs the slow test
    openai_server.add(
        Turn(tool_calls=[FIX, NOTE]), Turn(tool_calls=[UNITTEST]), Turn(tool_calls=[FINISH])
    )
    asking = asyncio.ensure_future(ask(editor.client, "Fix add.", timeout=60))

    await wait_until(lambda: len(told) >= 2 and told[1]["state"] == "running", timeout=60)
    await command(editor.client, "surehand.cancel")
    result = await asyncio.wait_for(asking, 30)

    assert result["outcome"] == "partly_applied", result
    assert result["tests"][0]["status"] == "passed" and "testsAccepted" not in result
    assert (await command(editor.client, "surehand.status"))["busy"] is False
