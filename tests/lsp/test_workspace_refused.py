"""An editor whose workspace is ``/`` gets an error, and the model is never asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lsp.editor import Editors, ask
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import FIX

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]


@pytest.mark.parametrize("flavour", ["vscode", "neovim"])
async def test_a_workspace_of_the_whole_disk_is_refused(
    editors: Editors, openai_server: ScriptedServer, flavour: str
):
    whole_disk = Editors(Path("/"), editors.settings)
    try:
        editor = await whole_disk.open(flavour)
        openai_server.add(Turn(tool_calls=[FIX]))
        result = await ask(editor.client, "Fix add.")
    finally:
        await whole_disk.close()

    assert result["outcome"] == "error", result
    assert "the file system's root" in result["summary"]
    assert openai_server.completions == []
    assert editor.edits == []
