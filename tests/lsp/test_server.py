"""The language server end to end: a pytest-lsp client with VS Code's and Neovim's
capabilities, the scripted OpenAI-compatible server as the model, real files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.editor import make_client, start
from tests.support.openai_server import Call, ScriptedServer, Turn

CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
FIXED = CALC.replace("return a - b", "return a + b", 1)
FIX = Call(
    "edit",
    {
        "path": "calc.py",
        "old": "def add(a, b):\n    return a - b\n",
        "new": "def add(a, b):\n    return a + b\n",
        "replace_all": None,
        "description": "add adds",
    },
)
FINISH = Call("finish", {"summary": "add now adds."})


def config(flavour: str) -> ClientServerConfig:
    return ClientServerConfig(
        server_command=[sys.executable, "-m", "lsp_server"], client_factory=make_client(flavour)
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    return root


@pytest.fixture
def model():
    with ScriptedServer() as server:
        yield server


def settings(model: ScriptedServer, tmp_path: Path) -> dict:
    return {
        "model": model.model,
        "baseUrl": model.base_url,
        "apiKey": "sk-test",
        "traceDir": str(tmp_path / "traces"),
        "requestTimeout": 5,
        "maxRetries": 0,
    }


@pytest_lsp.fixture(config=config("vscode"))
async def vscode(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=config("neovim"))
async def neovim(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def ask(client: LanguageClient, task: str, **extra) -> dict:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="surehand.ask", arguments=[{"task": task, **extra}])
    )


@pytest.mark.asyncio
async def test_vscode_full_task(vscode: LanguageClient, project: Path, model, tmp_path: Path):
    editor = await start(vscode, "vscode", project, settings(model, tmp_path))
    editor.open("calc.py")
    model.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    result = await ask(vscode, "Fix add.", uri=editor.uri("calc.py"))

    assert result["outcome"] == "applied", result
    assert result["files"] == {"calc.py": "applied"}
    assert editor.text("calc.py") == FIXED
    assert (project / "calc.py").read_text() == CALC  # the user saves, not the server
    edit = editor.edits[0].edit
    annotation = next(iter(edit.change_annotations.values()))
    assert (annotation.label, annotation.needs_confirmation) == ("add adds", True)
    text_edit = edit.document_changes[0]
    assert text_edit.text_document.version == 1
    assert [e.new_text for e in text_edit.edits] == ["    return a + b\n"]
    assert vscode.progress_reports, "a work-done progress was reported"


@pytest.mark.asyncio
async def test_neovim_is_asked_first(neovim: LanguageClient, project: Path, model, tmp_path: Path):
    editor = await start(neovim, "neovim", project, settings(model, tmp_path))
    editor.open("calc.py")
    editor.choices = ["Show diff", "Apply"]
    model.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    result = await ask(neovim, "Fix add.")

    assert result["outcome"] == "applied", result
    assert editor.encoding == types.PositionEncodingKind.Utf8
    assert [a.title for a in editor.asked[0].actions] == ["Apply", "Show diff", "Discard"]
    shown = Path(neovim.shown_documents[0].uri.removeprefix("file://"))
    assert "+    return a + b" in shown.read_text()
    assert editor.text("calc.py") == FIXED


@pytest.mark.asyncio
async def test_malformed_arguments_are_an_error_and_the_server_lives_on(
    vscode: LanguageClient, project: Path, model, tmp_path: Path
):
    await start(vscode, "vscode", project, settings(model, tmp_path))
    with pytest.raises(Exception) as caught:
        await vscode.workspace_execute_command_async(
            types.ExecuteCommandParams(command="surehand.ask", arguments=[{"task": 42}])
        )
    assert "task" in str(caught.value)
    status = await vscode.workspace_execute_command_async(
        types.ExecuteCommandParams(command="surehand.status")
    )
    assert status["busy"] is False


@pytest.mark.asyncio
async def test_a_rich_clients_hunk_decisions_reach_the_model(
    vscode: LanguageClient, project: Path, model, tmp_path: Path
):
    editor = await start(vscode, "vscode", project, settings(model, tmp_path))
    editor.open("calc.py")
    editor.accept = False
    decisions = {
        "hunks": [
            {"uri": editor.uri("calc.py"), "index": 0, "label": "add adds", "accepted": False}
        ]
    }
    editor.before_apply.append(lambda ed: ed.client.protocol.notify("surehand/reviewed", decisions))
    model.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    first = await ask(vscode, "Fix add.")
    assert first["outcome"] == "discarded", first

    model.add(Turn("Understood."))
    await ask(vscode, "Why?")
    note = model.completions[-1].body["messages"][-1]["content"]
    assert "the user rejected your changes to calc.py" in note
    assert "They accepted 0 of 1 changed parts; rejected: add adds." in note
