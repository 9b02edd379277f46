"""The server really sends what ``docs/protocol.md`` says: real tasks through a
pytest-lsp client, each ``surehand/step`` notification and command result checked
against its schema."""

from __future__ import annotations

from typing import Any

import pytest

from lsp_server import progress
from tests.lsp.conftest import editor_settings, editors, project, project_files
from tests.lsp.editor import Editor, Editors, ask, command
from tests.support.openai_server import HttpError, ScriptedServer, Turn
from tests.support.scripted_task import FINISH, FIX, edit
from tests.test_protocol import errors

__all__ = ["editor_settings", "editors", "project", "project_files"]  # the LSP tests' fixtures

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]


def valid_steps(editor: Editor) -> list[str]:
    """Every step notification the editor got, checked; their kinds in order."""
    for params in editor.steps:
        message = {"direction": "server->client", "method": progress.STEP_NOTIFICATION}
        assert errors({**message, "params": params}) == [], params
    return [s["kind"] for s in editor.steps]


def valid_result(name: str, arguments: list[Any], result: Any) -> Any:
    message = {
        "direction": "client->server",
        "method": "workspace/executeCommand",
        "params": {"command": name, "arguments": arguments},
        "result": result,
    }
    assert errors(message) == [], result
    return result


async def test_a_task_sends_steps_and_a_result_of_the_documented_shapes(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("vscode", maxRetries=1)
    editor.open("calc.py")
    missing = edit("def nope():\n", "x", "nothing")
    openai_server.add(
        HttpError(503),
        Turn(tool_calls=[missing]),
        Turn(tool_calls=[FIX]),
        Turn(tool_calls=[FINISH]),
    )
    argument = {
        "task": "Fix add.",
        "uri": editor.uri("calc.py"),
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}},
    }

    result = await command(editor.client, "surehand.ask", argument, timeout=30)

    assert valid_result("surehand.ask", [argument], result)["outcome"] == "applied"
    assert result["refusals"] == [
        {"step": 1, "tool": "edit", "reason": "not_found", "path": "calc.py"}
    ]
    kinds = valid_steps(editor)
    assert set(kinds) == set(progress.STEP_KINDS), kinds
    refused = next(s for s in editor.steps if s["kind"] == "tool_finished")
    assert (refused["ok"], refused["reason"]) == (False, "not_found")

    for name in ("surehand.status", "surehand.cancel", "surehand.reset"):
        valid_result(name, [], await command(editor.client, name))


async def test_the_short_outcomes_have_the_documented_shape(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("vscode")
    openai_server.add(Turn("Nothing to change."))
    answered = await ask(editor.client, "Explain add.")
    assert valid_result("surehand.ask", [{"task": "Explain add."}], answered)["outcome"] == (
        "no_changes"
    )
    assert valid_steps(editor) == ["step_started", "task_ended"]

    nowhere = await editors.open("vscode", baseUrl="", model="")
    failed = await command(nowhere.client, "surehand.ask", "Fix add.")
    assert valid_result("surehand.ask", ["Fix add."], failed)["outcome"] == "error"
