"""The server really sends what ``docs/protocol.md`` says: real tasks through a
pytest-lsp client, each ``surehand/step`` and ``surehand/outcome`` notification and
command result checked against its schema. The blocking review is VS Code's (it
announces ``experimental.surehand.review``); the non-modal one, Neovim's built-in
client's (it does not)."""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

import pytest

from lsp_server import code_actions, progress
from lsp_server.controller import OUTCOME
from tests.lsp.conftest import editor_settings, editors, project, project_files
from tests.lsp.editor import Editor, Editors, ask, command, wait_until
from tests.support.openai_server import Call, HttpError, ScriptedServer, Turn
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


def sent(editor: Editor, method: str) -> list[dict[str, Any]]:
    """The params of every ``method`` notification, as the server wrote them (the
    client's own handler gets named tuples, whose keys are mangled: ``calc.py`` as a
    key of ``files`` would read ``_0``). Kept from now on."""
    protocol = editor.client.protocol
    structure = protocol.structure_message
    seen: list[dict[str, Any]] = []

    def record(data: dict[str, Any]) -> Any:
        if "jsonrpc" in data and data.get("method") == method and "id" not in data:
            params = data.get("params")
            assert isinstance(params, dict), data
            seen.append(copy.deepcopy(params))
        return structure(data)

    protocol.structure_message = record  # type: ignore[method-assign]
    return seen


def valid_outcome(params: dict[str, Any]) -> dict[str, Any]:
    message = {"direction": "server->client", "method": OUTCOME, "params": params}
    assert errors(message) == [], params
    return params


def valid_result(name: str, arguments: list[Any], result: Any) -> Any:
    message = {
        "direction": "client->server",
        "method": "workspace/executeCommand",
        "params": {"command": name, "arguments": arguments},
        "result": result,
    }
    assert errors(message) == [], result
    return result


async def run(editor: Editor, name: str, *arguments: Any, timeout: float = 15) -> Any:
    """Run a command; its result, checked against the command's schema."""
    result = await command(editor.client, name, *arguments, timeout=timeout)
    return valid_result(name, list(arguments), result)


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


# -- the non-modal review -----------------------------------------------------------------


async def started(
    editor: Editor, outcomes: list[dict[str, Any]], argument: dict[str, Any]
) -> dict[str, Any]:
    """Ask as a client without the capability: answered ``started`` at once; then the
    task's first ``surehand/outcome`` (under review, or its end), checked."""
    answer = await run(editor, "surehand.ask", argument)
    assert answer["outcome"] == "started", answer

    def first() -> dict[str, Any] | None:
        return next((o for o in outcomes if o.get("task") == answer["task"]), None)

    return valid_outcome(await wait_until(first, timeout=30, what="the task's outcome"))


SUB = edit(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n", "sub noted"
)
DELETE = Call("delete_file", {"path": "old.py", "description": "old goes"})
READ = Call("run_command", {"command": "cat calc.py", "timeout": None})
STATUS = "surehand.status"


async def test_a_non_modal_review_sends_messages_of_the_documented_shapes(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("neovim")
    outcomes = sent(editor, OUTCOME)
    calc = editor.open("calc.py")
    openai_server.add(Turn(tool_calls=[FIX, SUB]), Turn(tool_calls=[FINISH]))

    reviewing = await started(editor, outcomes, {"task": "Fix add.", "uri": calc})

    assert (reviewing["outcome"], reviewing["remaining"]) == ("reviewing", 2), reviewing
    first, second = (item["id"] for item in reviewing["items"])
    status = await run(editor, STATUS)
    assert (status["reviewMode"], status["lastOutcome"]) == ("diagnostics", None)
    assert status["review"]["review"] == reviewing["review"]
    after_first = await run(editor, code_actions.NEXT, {"uri": calc, "line": 1})
    assert after_first["id"] == second
    assert "shown" in await run(editor, code_actions.SHOW_DIFF, {"id": second})

    accepted = await run(editor, code_actions.ACCEPT, {"id": first})
    assert accepted == {"id": first, "state": "accepted", "remaining": 1}
    assert "why" in await run(editor, code_actions.ACCEPT, {"id": first}), "decided already"
    rejected = await run(editor, code_actions.REJECT, {"uri": calc, "line": 5})
    assert rejected == {"id": second, "state": "rejected", "remaining": 0}

    done = valid_outcome(await wait_until(lambda: outcomes and outcomes[-1], what="the outcome"))
    assert (done["outcome"], done["review"]) == ("partly_applied", reviewing["review"])
    assert done["files"] == {"calc.py": "partly_applied"}
    status = await run(editor, STATUS)
    assert status["review"] is None and status["lastOutcome"] == done
    assert (await run(editor, code_actions.ACCEPT, {}))["state"] is None, "no review open"
    assert (await run(editor, code_actions.NEXT))["id"] is None
    assert (await run(editor, code_actions.UNDO))["undone"] is None
    assert [o["outcome"] for o in outcomes] == ["reviewing", "partly_applied"]


async def test_accept_all_reject_all_and_undo_answer_in_the_documented_shapes(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    (project / "old.py").write_text("OLD = 1\n", encoding="utf-8")
    editor = await editors.open("neovim")
    outcomes = sent(editor, OUTCOME)
    calc = editor.open("calc.py")
    openai_server.add(Turn(tool_calls=[FIX, DELETE]), Turn(tool_calls=[FINISH]))
    await started(editor, outcomes, {"task": "Fix add.", "uri": calc})

    everything = await run(editor, code_actions.ACCEPT_ALL, {})

    assert everything == {"review": None, "remaining": 0}, "the review ended with it"
    done = valid_outcome(await wait_until(lambda: outcomes and outcomes[-1], what="the outcome"))
    assert done["files"] == {"calc.py": "applied", "old.py": "applied"}
    undone = await run(editor, code_actions.UNDO)
    assert undone == {"undone": {"operation": "delete", "path": "old.py", "source": None}}

    openai_server.add(Turn(tool_calls=[SUB]), Turn(tool_calls=[FINISH]))
    await started(editor, outcomes, {"task": "Note sub.", "uri": calc})
    dropped = await run(editor, code_actions.REJECT_ALL, {"uri": calc})
    assert [i["state"] for i in dropped["items"]] == ["rejected"] and dropped["remaining"] == 0
    await wait_until(lambda: len(outcomes) == 4, what="the second outcome")
    assert valid_outcome(outcomes[-1])["outcome"] == "discarded"


async def test_an_approval_and_a_cancel_answer_in_the_documented_shapes(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("neovim", sandbox="off")
    outcomes = sent(editor, OUTCOME)
    calc = editor.open("calc.py")
    argument = {"task": "Read it.", "uri": calc}

    def approval() -> Any:
        found = [d for d in editor.client.diagnostics.get(calc, []) if d.source == "surehand"]
        return found and found[0].code

    openai_server.add(Turn(tool_calls=[READ]), Turn(tool_calls=[FINISH]))
    task = asyncio.ensure_future(started(editor, outcomes, argument))
    waiting = await wait_until(approval, what="the approval")
    assert await run(editor, code_actions.ACCEPT, {"id": waiting}) == {
        "id": waiting,
        "answer": "once",
    }
    answered = await task
    assert answered["outcome"] == "no_changes" and "review" in answered

    openai_server.add(Turn(tool_calls=[READ]))
    task = asyncio.ensure_future(started(editor, outcomes, argument))
    await wait_until(lambda: approval() and approval() != waiting, what="a second approval")
    assert await run(editor, "surehand.cancel") == {"cancelled": True}
    cancelled = await task
    assert cancelled == {"outcome": "cancelled", "summary": "Cancelled.", "task": "task-2"}
    assert len(outcomes) == 2
