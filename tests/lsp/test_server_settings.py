"""Settings from the editor: bad values are a warning and defaults, a changed
configuration is read again and used by the next ask, and the API key never
shows in anything the editor receives."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.editor import Editor, Editors, ask, command, settings_for, wait_until
from tests.lsp.gate import Gate
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import FINISH, FIX, FIXED

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

SECRET = "sk-live-SECRET-0123456789abcdef"


@pytest.fixture
def second_model():
    with ScriptedServer(model="second-model") as server:
        yield server


def warnings(editor: Editor) -> list[str]:
    return [m.message for m in editor.client.messages if m.type == types.MessageType.Warning]


async def reconfigure(editor: Editor, settings: dict) -> None:
    """The user changes the ``surehand`` settings; returns once the server has read them."""
    editor.client.set_configuration(settings, section="surehand")
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )

    async def read() -> bool:
        status = await command(editor.client, "surehand.status")
        return (status["model"], status["baseUrl"]) == (settings["model"], settings["baseUrl"])

    for _ in range(200):
        if await read():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the server never read the new settings")


async def test_invalid_settings_are_a_warning_and_the_server_keeps_working(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("vscode", maxSteps="many", colour="blue")
    editor.open("calc.py")

    shown = await wait_until(lambda: len(warnings(editor)) >= 2 and warnings(editor))

    assert sorted(shown) == [
        "surehand: setting 'maxSteps' has an invalid value 'many'; default used",
        "surehand: unknown setting 'colour' ignored",
    ]
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    result = await ask(editor.client, "Fix add.")
    assert result["outcome"] == "applied", result
    assert editor.text("calc.py") == FIXED
    assert (await command(editor.client, "surehand.status"))["busy"] is False


async def test_a_changed_configuration_is_used_by_the_next_ask(
    editors: Editors, openai_server: ScriptedServer, second_model: ScriptedServer, tmp_path: Path
):
    editor = await editors.open("vscode")
    openai_server.add(Turn(content="Hello."))
    await ask(editor.client, "Hi.")
    assert openai_server.completions[-1].body["model"] == "scripted"

    await reconfigure(
        editor, settings_for(second_model.base_url, "second-model", tmp_path / "traces")
    )
    second_model.add(Turn(content="Hello again."))
    result = await ask(editor.client, "Hi again.")

    assert result["summary"] == "Hello again.", result
    assert len(openai_server.completions) == 1, "the old endpoint is not used any more"
    assert second_model.completions[-1].body["model"] == "second-model"

    await reconfigure(
        editor,
        settings_for(second_model.base_url, "second-model", tmp_path / "t", maxSteps=0),
    )
    await wait_until(lambda: warnings(editor), what="a warning about maxSteps")
    assert warnings(editor) == ["surehand: setting 'maxSteps' has an invalid value 0; default used"]


async def test_a_configuration_changed_during_a_task_is_used_by_the_next_ask(
    editors: Editors, openai_server: ScriptedServer, second_model: ScriptedServer, tmp_path: Path
):
    editor = await editors.open("vscode", commandAllowlist=["python3"])
    gate = Gate(tmp_path)
    openai_server.add(Turn(tool_calls=[gate.call()]), Turn(content="Done."))
    task = asyncio.ensure_future(ask(editor.client, "Wait."))
    await gate.reached(editor)

    await reconfigure(
        editor, settings_for(second_model.base_url, "second-model", tmp_path / "traces")
    )
    gate.open()
    assert (await task)["summary"] == "Done.", "the running task keeps its endpoint"
    second_model.add(Turn(content="Hello from the new model."))
    openai_server.add(Turn(content="Hello from the old model."))  # where it goes today
    result = await ask(editor.client, "Hi.")

    assert result["summary"] == "Hello from the new model.", result
    assert len(openai_server.completions) == 2


def everything_received(editor: Editor, results: list) -> str:
    client = editor.client
    parts = [
        *(m.message for m in client.log_messages),
        *(m.message for m in client.messages),
        *(repr(r) for reports in client.progress_reports.values() for r in reports),
        *(repr(s) for s in editor.steps),
        *(repr(a) for a in editor.asked),
        *(repr(e) for e in editor.edits),
        *(repr(r) for r in results),
    ]
    return "\n".join(parts)


async def test_the_api_key_never_reaches_the_editor(
    editors: Editors, project: Path, tmp_path: Path
):
    with (
        ScriptedServer(api_key=SECRET) as keyed,
        ScriptedServer(api_key="sk-another-key-entirely") as refusing,
    ):
        traces = tmp_path / "traces"
        editor = await editors.open(
            "vscode", **settings_for(keyed.base_url, keyed.model, traces, apiKey=SECRET)
        )
        editor.open("calc.py")
        keyed.add(Turn(content="Reading.", tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
        results = [await ask(editor.client, "Fix add.")]
        assert results[0]["outcome"] == "applied", results
        assert keyed.completions[0].headers["authorization"] == f"Bearer {SECRET}"

        await reconfigure(
            editor,
            settings_for(refusing.base_url, refusing.model, traces, apiKey=SECRET, maxRetries=0),
        )
        results.append(await ask(editor.client, "Again."))
        assert results[-1]["ending"] == "model_error", results
        results.append(await command(editor.client, "surehand.status"))

    assert "refused the API key (401: Incorrect API key provided: sk-***" in results[1]["summary"]
    received = everything_received(editor, results)
    assert SECRET not in received
    assert SECRET[-12:] not in received, "no more of it than the endpoint's own mask"
    written = "\n".join(p.read_text(errors="replace") for p in traces.rglob("*") if p.is_file())
    assert written, "traces were written"
    assert SECRET not in written


async def test_an_api_key_of_the_wrong_type_is_not_echoed(editors: Editors):
    editor = await editors.open("vscode", apiKey=[SECRET])

    shown = await wait_until(lambda: warnings(editor), what="a warning about apiKey")

    assert any("apiKey" in message for message in shown)
    assert SECRET not in "\n".join(shown)
