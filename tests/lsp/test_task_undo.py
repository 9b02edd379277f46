"""Taking a whole task back in an editor (``surehand.undoTask``, ``surehand.history``, the
"undo the last task" code action): after a partial accept and the person's typing since,
created and moved files, a clash refused with nothing touched, tasks newest first; open
buffers changed through the editor, closed files on disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from agent.staging.history import FileChange, History
from tests.lsp.editor import Editor, Editors, ask, command, wait_until
from tests.lsp.test_plain_client import actions, plain, run, the_end
from tests.support.openai_server import Hang, ScriptedServer, Turn
from tests.support.scripted_task import (
    CALC,
    CREATE,
    FINISH,
    FIX,
    FIXED,
    HELPER,
    MOVE,
    SUB_DONE,
    SUB_NOTE,
    UTIL,
    A,
)
from tests.test_protocol import errors

pytestmark = pytest.mark.asyncio
UNDO = "surehand: undo the last task"


@pytest.fixture
def project_files() -> dict[str, str]:
    return {"calc.py": CALC, "a.py": A, "helper.py": "X = 1\n"}


async def checked(editor: Editor, name: str, *arguments: Any) -> Any:
    """A command's result, held to its schema in docs/protocol."""
    result = await command(editor.client, name, *arguments)
    message = {
        "direction": "client->server",
        "method": "workspace/executeCommand",
        "params": {"command": name, "arguments": list(arguments)},
        "result": result,
    }
    assert errors(message) == [], result
    return result


async def undo_action(editor: Editor, relative: str) -> Any:
    return next((a for a in await actions(editor, relative, 0) if a.title.startswith(UNDO)), None)


async def test_a_partly_accepted_task_is_undone_around_the_persons_typing(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    """VS Code's preview: one of two hunks unticked, a new file and a moved file
    accepted; the person types in the file since; the undo takes back exactly the task."""
    editor = await editors.open("vscode")
    editor.open("calc.py")
    editor.reject_labels = {"sub noted"}
    openai_server.add(Turn(tool_calls=[FIX, SUB_NOTE, CREATE, MOVE]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Fix add, note sub, add util, move a.")

    assert result["outcome"] == "partly_applied", result
    assert editor.text("calc.py") == FIXED and SUB_DONE not in editor.text("calc.py")
    assert (project / "pkg" / "b.py").exists() and not (project / "a.py").exists()
    listed = await checked(editor, "surehand.history")
    (task,) = listed["tasks"]
    assert task["task"] == "Fix add, note sub, add util, move a." and task["undone"] is False
    assert {f["path"]: f["operation"] for f in task["files"]} == {
        "calc.py": "edit",
        "util.py": "create",
        "pkg/b.py": "rename",
    }
    editor.type("calc.py", "def sub(a, b):", "def sub(a, b):  # mine")
    action = await undo_action(editor, "calc.py")
    assert action is not None and "Fix add, note sub" in action.title

    undone = await run(editor, [action], UNDO)

    assert undone["undone"]["id"] == task["id"], undone
    assert editor.text("calc.py") == CALC.replace("def sub(a, b):", "def sub(a, b):  # mine")
    assert not (project / "util.py").exists()
    assert (project / "a.py").read_text() == A and not (project / "pkg" / "b.py").exists()
    assert (project / "calc.py").read_text() == CALC, "through the editor's buffer, not the disk"
    assert (await checked(editor, "surehand.history"))["tasks"][0]["undone"] is True
    assert await undo_action(editor, "calc.py") is None, "nothing left to offer"
    again = await checked(editor, "surehand.undoTask")
    assert again["undone"] is None and "No accepted task" in again["summary"]


async def test_a_clash_with_the_persons_lines_is_refused_and_touches_nothing(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    """A plain client's review: the fix accepted, a closed file's edit too (on disk); the
    person then rewrites the fixed line: nothing at all is undone, the file is named."""
    editor = await plain(editors)
    editor.open("calc.py")
    openai_server.add(Turn(tool_calls=[FIX, HELPER]), Turn(tool_calls=[FINISH]))
    assert (await command(editor.client, "surehand.ask", {"task": "Fix."}))["outcome"] == "started"
    await the_end(editor, "Review the hunks")
    await command(editor.client, "surehand.review.acceptAll", {})  # every file's items
    await the_end(editor, "accepted: add adds")
    assert editor.text("helper.py") == "X = 2\n"
    editor.type("calc.py", "a + b", "b + a")

    refused = await checked(editor, "surehand.undoTask")

    assert refused["undone"] is None
    assert [r["path"] for r in refused["refused"]] == ["calc.py"], refused
    assert "line(s) 2" in refused["refused"][0]["why"]
    assert editor.text("calc.py") == FIXED.replace("a + b", "b + a")
    assert editor.text("helper.py") == "X = 2\n", "nothing is half undone"

    editor.type("calc.py", "b + a", "a + b")  # the person puts it back
    undone = await checked(editor, "surehand.undoTask")
    assert undone["undone"] is not None, undone
    await wait_until(lambda: editor.text("calc.py") == CALC, what="calc.py undone")
    assert editor.text("helper.py") == "X = 1\n"


async def test_tasks_are_undone_newest_first(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await editors.applying("neovim")
    editor.open("calc.py")
    openai_server.add(Turn(tool_calls=[CREATE]), Turn(tool_calls=[FINISH]))
    assert (await ask(editor.client, "Add util."))["outcome"] == "applied"
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    assert (await ask(editor.client, "Fix add."))["outcome"] == "applied"
    first, second = reversed((await checked(editor, "surehand.history"))["tasks"])
    assert (first["task"], second["task"]) == ("Add util.", "Fix add.")

    out_of_order = await checked(editor, "surehand.undoTask", {"task": first["id"]})
    assert out_of_order["undone"] is None and "newest first" in out_of_order["summary"]
    assert (await checked(editor, "surehand.undoTask"))["undone"]["id"] == second["id"]
    assert editor.text("calc.py") == CALC
    assert editor.text("util.py") == UTIL, "the new file's text, unsaved in its buffer"
    neovim_deletes = await checked(editor, "surehand.undoTask", {"task": first["id"]})
    assert neovim_deletes["undone"]["files"] == ["util.py"]
    assert not (project / "util.py").exists()


@pytest.mark.parametrize(
    "arguments",
    [[{"task": 3}], [{"task": ""}], [{"id": "x"}], ["task"], [{}, {}], [{"task": "x" * 300}]],
)
async def test_bad_arguments_are_refused(editors: Editors, arguments: list[Any], project: Path):
    editor = await plain(editors)
    with pytest.raises(JsonRpcInvalidParams):
        await command(editor.client, "surehand.undoTask", *arguments)
    with pytest.raises(JsonRpcInvalidParams):
        await command(editor.client, "surehand.history", {"x": 1})
    assert (project / "calc.py").read_text() == CALC


async def test_the_undo_commands_are_announced(editors: Editors):
    editor = await plain(editors)
    capabilities = editor.server_capabilities
    assert capabilities is not None and capabilities.execute_command_provider is not None
    assert {"surehand.undoTask", "surehand.history"} <= set(
        capabilities.execute_command_provider.commands
    )
    code_actions = capabilities.code_action_provider
    assert isinstance(code_actions, types.CodeActionOptions)
    assert types.CodeActionKind.QuickFix in (code_actions.code_action_kinds or [])


async def test_a_task_accepted_in_the_terminal_is_undone_from_the_editor_on_disk(
    editors: Editors, project: Path
):
    """The record is the workspace's, whichever front end accepted the task: a file the
    editor does not hold open goes back on disk."""
    (project / "helper.py").write_text("X = 2\n")
    History.of(project).record(
        "two", [FileChange("helper.py", "X = 1\n", "X = 2\n")], front="terminal"
    )
    editor = await plain(editors)
    editor.open("calc.py")

    undone = await checked(editor, "surehand.undoTask")

    assert undone["undone"]["files"] == ["helper.py"], undone
    assert (project / "helper.py").read_text() == "X = 1\n"
    assert editor.edits == [], "nothing sent to the editor for a file it does not hold"


async def test_no_undo_while_a_task_runs_and_no_task_while_an_undo_runs(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    """A client applies the undo's edit unreviewed while its undo request waits: nothing
    of a task may be sent meanwhile, so the two never overlap."""
    (project / "helper.py").write_text("X = 2\n")
    History.of(project).record(
        "two", [FileChange("helper.py", "X = 1\n", "X = 2\n")], front="terminal"
    )
    editor = await plain(editors)
    editor.open("calc.py")
    openai_server.add(Hang())
    started = await command(editor.client, "surehand.ask", {"task": "Fix add."})
    assert started["outcome"] == "started"
    await wait_until(lambda: len(openai_server.completions) == 1, what="the model's request")

    refused = await checked(editor, "surehand.undoTask")

    assert refused["undone"] is None and "running" in refused["summary"]
    assert (project / "helper.py").read_text() == "X = 2\n"
    await command(editor.client, "surehand.cancel")
    await the_end(editor, "Cancelled.")
    assert (await checked(editor, "surehand.undoTask"))["undone"] is not None
