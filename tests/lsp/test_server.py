"""The language server end to end: a pytest-lsp client with VS Code's and Neovim's
capabilities, the scripted OpenAI-compatible server as the model, real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.editor import Editors, ask, change_annotations, command, document_edit, new_text
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, task_sent

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]


async def test_vscode_full_task(editors: Editors, openai_server: ScriptedServer, project: Path):
    editor = await editors.open("vscode")
    editor.open("calc.py")
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Fix add.", uri=editor.uri("calc.py"))

    assert result["outcome"] == "applied", result
    assert result["files"] == {"calc.py": "applied"}
    assert editor.text("calc.py") == FIXED
    assert (project / "calc.py").read_text() == CALC  # the user saves, not the server
    annotation = next(iter(change_annotations(editor.edits[0]).values()))
    assert (annotation.label, annotation.needs_confirmation) == ("add adds", True)
    text_edit = document_edit(editor.edits[0])
    assert text_edit.text_document.version == 1
    assert [new_text(e) for e in text_edit.edits] == ["    return a + b\n"]
    assert editor.client.progress_reports, "a work-done progress was reported"


async def test_neovim_is_asked_first(editors: Editors, openai_server: ScriptedServer):
    editor = await editors.open("neovim", review="question")
    editor.open("calc.py")
    editor.choices = ["Show diff", "Apply"]
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Fix add.")

    assert result["outcome"] == "applied", result
    assert editor.encoding == types.PositionEncodingKind.Utf8
    assert [a.title for a in editor.asked[0].actions or []] == ["Apply", "Show diff", "Discard"]
    shown = Path(editor.client.shown_documents[0].uri.removeprefix("file://"))
    assert "+    return a + b" in shown.read_text()
    assert editor.text("calc.py") == FIXED


async def test_malformed_arguments_are_an_error_and_the_server_lives_on(editors: Editors):
    editor = await editors.open("vscode")

    with pytest.raises(JsonRpcInvalidParams) as caught:
        await command(editor.client, "surehand.ask", {"task": 42})

    assert "'task' must be a non-empty string" in str(caught.value)
    status = await command(editor.client, "surehand.status")
    assert status["busy"] is False


async def test_a_rich_clients_hunk_decisions_reach_the_model(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("vscode")
    editor.open("calc.py")
    editor.accept = False
    decisions = {
        "hunks": [
            {"uri": editor.uri("calc.py"), "index": 0, "label": "add adds", "accepted": False}
        ]
    }
    editor.before_apply.append(lambda ed: ed.client.protocol.notify("surehand/reviewed", decisions))
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    first = await ask(editor.client, "Fix add.")
    assert first["outcome"] == "discarded", first

    openai_server.add(Turn("Understood."))
    await ask(editor.client, "Why?")
    note = task_sent(openai_server)
    assert "- calc.py: rejected: add adds (line 2)." in note
