"""The server reads the same config files as the command line, under the editor's settings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.editor import Editors, ask, wait_until
from tests.support.openai_server import Call, ScriptedServer, Turn

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]


def warnings(editor) -> list[str]:
    return [m.message for m in editor.client.messages if m.type == types.MessageType.Warning]


async def test_the_projects_file_sets_limits_but_not_the_endpoint_unless_trusted(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    (project / ".surehand.toml").write_text(
        'maxSteps = 1\nbaseUrl = "http://127.0.0.1:9/v1"\n', encoding="utf-8"
    )
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "surehand" / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("maxSteps = 30\n", encoding="utf-8")
    editor = await editors.open("vscode", maxSteps=40)  # the editor's default hides nothing
    openai_server.add(Turn(tool_calls=[Call("view_file", {"path": "calc.py"})]))

    shown = await wait_until(lambda: warnings(editor))
    result = await ask(editor.client, "Fix add.")

    assert shown == [
        "surehand: .surehand.toml: baseUrl ignored: only a trusted project may set it (pass "
        "--trust-project, or add the project to trustedProjects in your config file)"
    ]
    assert "Stopped after 1 steps" in result["summary"]
    assert len(openai_server.completions) == 1  # the editor's endpoint, not the project's


async def test_the_workspaces_own_editor_settings_only_narrow(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    """VS Code sends the values of a committed ``.vscode/settings.json`` apart, as
    ``workspaceSettings``: they may lower a limit, never widen what commands see."""
    committed = {"commandEnvironment": ["GITHUB_TOKEN"], "maxSteps": 1, "model": "other"}
    editor = await editors.open("vscode", workspaceSettings=committed)
    openai_server.add(Turn(tool_calls=[Call("view_file", {"path": "calc.py"})]))

    shown = await wait_until(lambda: warnings(editor))
    result = await ask(editor.client, "Fix add.")

    assert any("commandEnvironment ignored" in m for m in shown), shown
    assert any("model ignored" in m for m in shown), shown
    assert "Stopped after 1 steps" in result["summary"]  # a lower limit is taken
    assert openai_server.completions[0].body["model"] != "other"
