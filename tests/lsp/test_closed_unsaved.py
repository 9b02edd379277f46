"""A buffer the person closes unsaved after accepting a task: the next task sees the disk.

The model remembers the file with its change; the person's editor no
longer has it. The same edit made again from memory is refused as made on
a view that is out of date (with the text as it is now), never applied to
a text the model did not see; made again after a look, the proposal
carries it whole.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.conftest import editor_settings, editors, project
from tests.lsp.editor import Editors, ask, new_text
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED

__all__ = ["editor_settings", "editors", "project"]

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]


@pytest.mark.parametrize("flavour", ["vscode", "neovim"])
async def test_the_same_edit_after_the_buffer_was_closed_unsaved_is_proposed_again(
    editors: Editors, openai_server: ScriptedServer, project: Path, flavour: str
):
    editor = await editors.applying(flavour)
    uri = editor.open("calc.py")
    look = Call("view_file", {"path": "calc.py", "start_line": None, "end_line": None})
    openai_server.add(
        Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]),
        Turn(tool_calls=[FIX]), Turn(tool_calls=[look]), Turn(tool_calls=[FIX]),
        Turn(tool_calls=[FINISH]),
    )  # fmt: skip

    first = await ask(editor.client, "Fix add.", uri=uri)
    assert first["outcome"] == "applied", first
    assert editor.text("calc.py") == FIXED
    editor.client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    editor.buffers.pop(uri)
    assert (project / "calc.py").read_text() == CALC, "closed without saving"
    uri = editor.open("calc.py")

    second = await ask(editor.client, "Fix add.", uri=uri)

    told = [
        m["content"] for m in openai_server.completions[-1].body["messages"] if m["role"] == "tool"
    ]
    assert told[2].startswith("Edit not applied: calc.py changed since you last saw it"), told
    assert second["outcome"] == "applied", second
    assert editor.text("calc.py") == FIXED
    edit = editor.edits[-1].edit
    texts = [
        new_text(e)
        for change in edit.document_changes or []
        if isinstance(change, types.TextDocumentEdit)
        for e in change.edits
    ]
    assert any("a + b" in text for text in texts), edit
