"""Stopping an ask mid-task, every way an editor can: the progress bar's Cancel
button, ``surehand.cancel``, ``$/cancelRequest`` for the ask, ``surehand.reset``.

The task is mid-flight either waiting for the model (a reply that never
comes) or running a command (``sleep 30``); either way the ask must answer
``cancelled`` at once, nothing may reach the editor, the command's process
must be gone and the server must be idle and usable again."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from tests.lsp.editor import Editor, Editors, ask, command, wait_until
from tests.support.openai_server import Call, Hang, ScriptedServer, Turn
from tests.support.processes import descendants
from tests.support.scripted_task import CALC, FIX

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

SLEEP = Call("run_command", {"command": "sleep 30", "timeout": None})
NOTHING_TO_DO = Call("finish", {"summary": "Nothing to do."})
PROMPTLY = 2.0  # seconds between the cancel and the ask's answer


@pytest.fixture
def editor_settings() -> dict:
    return {"commandAllowlist": ["sleep"]}


def sleepers(editor: Editor) -> list[int]:
    """The pids of the ``sleep 30`` processes this editor's server started."""
    server = editor.client._server
    assert server is not None
    return descendants(server.pid, ["sleep", "30"])


ASK_ID = "ask-1"  # the JSON-RPC id of the ask, for $/cancelRequest


async def ask_mid_flight(
    editor: Editor, model: ScriptedServer, waiting_on: str
) -> tuple[asyncio.Future, types.ProgressToken]:
    """Start an ask that stages the fix, then waits on the model (a reply that never comes)
    or on its command (``sleep 30``); its answer to come and its progress token, once it waits.

    The ask is sent as a raw request, so that it can be cancelled by its id."""
    if waiting_on == "model":
        model.add(Turn(tool_calls=[FIX]), Hang())
    else:
        model.add(Turn(tool_calls=[FIX, SLEEP]))
    params = types.ExecuteCommandParams(command="surehand.ask", arguments=[{"task": "Fix add."}])
    pending = asyncio.wrap_future(
        editor.client.protocol.send_request(types.WORKSPACE_EXECUTE_COMMAND, params, msg_id=ASK_ID)
    )
    if waiting_on == "model":
        await wait_until(lambda: len(model.completions) == 2, what="the hanging model request")
    else:
        await wait_until(lambda: sleepers(editor), what="the command's process")
    tokens = list(editor.client.progress_reports)
    assert len(tokens) == 1, tokens
    return pending, tokens[0]


async def cancel(editor: Editor, how: str, token: types.ProgressToken) -> None:
    client = editor.client
    if how == "progress":
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    elif how == "surehand.cancel":
        assert await command(client, "surehand.cancel") == {"cancelled": True}
    elif how == "cancelRequest":
        client.cancel_request(types.CancelParams(id=ASK_ID))
    else:
        assert await command(client, "surehand.reset") == {"reset": True}


async def answer(pending: asyncio.Future) -> dict:
    """The ask's answer; a ``RequestCancelled`` error counts as ``cancelled``.

    LSP lets a server answer a request cancelled by ``$/cancelRequest`` with a
    result or with that error (and advises the error); pygls answers with the
    error once the request's future is cancelled.
    """
    try:
        return await asyncio.wait_for(pending, PROMPTLY)
    except JsonRpcRequestCancelled:
        return {"outcome": "cancelled", "summary": "RequestCancelled"}


# Every way of cancelling while the model is awaited; two of them during a command.
CANCELS = [
    *((how, "model") for how in ("progress", "surehand.cancel", "cancelRequest", "surehand.reset")),
    ("progress", "command"),
    ("cancelRequest", "command"),
]


@pytest.mark.parametrize(("how", "waiting_on"), CANCELS)
async def test_cancel_mid_task(
    editors: Editors, openai_server: ScriptedServer, project: Path, how: str, waiting_on: str
):
    editor = await editors.open("vscode")
    editor.open("calc.py")
    pending, token = await ask_mid_flight(editor, openai_server, waiting_on)

    began = time.monotonic()
    await cancel(editor, how, token)
    result = await answer(pending)

    assert time.monotonic() - began < PROMPTLY
    assert result["outcome"] == "cancelled", result
    assert editor.edits == [], "nothing was proposed"
    assert editor.text("calc.py") == CALC
    assert (project / "calc.py").read_text() == CALC
    await wait_until(lambda: not sleepers(editor), timeout=3, what="the command's process to die")
    status = await command(editor.client, "surehand.status")
    assert status["busy"] is False
    reports = editor.client.progress_reports[token]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert reports[0].cancellable is True
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[-1].message == "Cancelled."


async def cancel_a_task(editor: Editor, model: ScriptedServer, waiting_on: str) -> None:
    """Start an ask that stages the fix, then cancel it while it waits."""
    pending, _ = await ask_mid_flight(editor, model, waiting_on)
    await command(editor.client, "surehand.cancel")
    assert (await answer(pending))["outcome"] == "cancelled"


async def test_an_ask_while_one_runs_is_refused_at_once(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("vscode")
    editor.open("calc.py")
    pending, _ = await ask_mid_flight(editor, openai_server, "model")

    second = await ask(editor.client, "Something else.", timeout=PROMPTLY)

    assert second == {"outcome": "busy", "summary": "surehand is already working on a task."}
    assert (await command(editor.client, "surehand.status"))["busy"] is True
    assert len(openai_server.completions) == 2, "the second ask never reached the model"
    await command(editor.client, "surehand.cancel")
    assert (await answer(pending))["outcome"] == "cancelled"


@pytest.mark.parametrize("waiting_on", ["model", "command"])
async def test_after_a_cancel_the_next_ask_sends_a_valid_conversation(
    editors: Editors, openai_server: ScriptedServer, waiting_on: str
):
    """Every tool call of an assistant message is answered by a tool message."""
    editor = await editors.open("vscode")
    editor.open("calc.py")
    await cancel_a_task(editor, openai_server, waiting_on)

    openai_server.add(Turn(tool_calls=[NOTHING_TO_DO]))
    result = await ask(editor.client, "Say hello.")

    assert result["ending"] == "finished", result
    messages = openai_server.completions[-1].body["messages"]
    assert messages[-1]["role"] == "user"
    assert "Say hello." in messages[-1]["content"]
    answered = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
    unanswered = [
        call["id"]
        for message in messages
        for call in message.get("tool_calls") or []
        if call["id"] not in answered
    ]
    assert unanswered == []


async def test_a_cancelled_tasks_edits_are_not_proposed_by_the_next_ask(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("vscode")
    editor.open("calc.py")
    await cancel_a_task(editor, openai_server, "model")

    openai_server.add(Turn(tool_calls=[NOTHING_TO_DO]))
    result = await ask(editor.client, "Say hello.")

    assert result["summary"] == "Nothing to do."
    assert (result["outcome"], result["files"]) == ("no_changes", {}), result
    assert editor.edits == []
    assert editor.text("calc.py") == CALC


async def test_shutting_down_mid_task_stops_it(editors: Editors, openai_server: ScriptedServer):
    """The editor closes while the agent runs a command: shutdown is answered, exit ends
    the server at once, and the command's process does not outlive it."""
    editor = await editors.open("vscode")
    editor.open("calc.py")
    await ask_mid_flight(editor, openai_server, "command")
    running = sleepers(editor)

    server = editor.client._server
    assert server is not None
    try:
        await asyncio.wait_for(editor.client.shutdown_async(None), PROMPTLY)
        editor.client.exit(None)
        await asyncio.wait_for(server.wait(), PROMPTLY)
    except BaseException:
        for pid in [server.pid, *running]:  # fail fast: no second shutdown at teardown
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        await server.wait()
        raise

    assert server.returncode == 0
    assert editor.edits == []
    assert [pid for pid in running if alive(pid)] == [], "the command was stopped"


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has an empty command line)."""
    try:
        return bool(Path(f"/proc/{pid}/cmdline").read_bytes())
    except OSError:
        return False


async def test_a_task_cancelled_while_its_proposal_is_under_review_leaves_nothing_staged(
    editors: Editors, openai_server: ScriptedServer
):
    """The editor still holds the applyEdit when the task is cancelled: the staged
    fix is dropped, so the next task does not propose it again."""
    editor = await editors.open("vscode")
    editor.open("calc.py")
    editor.hold_edits = True
    openai_server.add(
        Turn(tool_calls=[FIX]), Turn(tool_calls=[Call("finish", {"summary": "Fixed."})])
    )
    params = types.ExecuteCommandParams(command="surehand.ask", arguments=[{"task": "Fix add."}])
    pending = asyncio.wrap_future(
        editor.client.protocol.send_request(types.WORKSPACE_EXECUTE_COMMAND, params)
    )
    await wait_until(lambda: editor.edits, what="the proposal, held by the editor")
    assert await command(editor.client, "surehand.cancel") == {"cancelled": True}
    assert (await answer(pending))["outcome"] == "cancelled"

    editor.hold_edits = False
    openai_server.add(Turn(tool_calls=[NOTHING_TO_DO]))
    result = await ask(editor.client, "Say hello.")

    assert (result["outcome"], result["files"]) == ("no_changes", {}), result
    assert len(editor.edits) == 1, "only the cancelled task's proposal was ever sent"
    assert editor.text("calc.py") == CALC
