"""Proposals meeting a real user: typing while the agent works or while the edit
arrives, conflicts, files that are not open, created / deleted / moved files, and
VS Code's per-change review (annotations) with what the model is told after it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.editor import (
    FLAVOURS,
    Editor,
    Editors,
    ask,
    change_annotations,
    command,
    document_changes,
    document_edit,
    new_text,
)
from tests.lsp.gate import Gate
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, edit, task_sent

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]


@pytest.fixture
def editor_settings() -> dict:
    return {"commandAllowlist": ["python3"]}


async def ask_while_typing(
    editor: Editor, model: ScriptedServer, gate: Gate, old: str, new: str
) -> dict:
    """Ask for the fix; while the agent waits at the gate, the user replaces ``old`` by ``new``.

    The proposal comes after the typing has reached the server."""
    model.add(Turn(tool_calls=[FIX, gate.call()]), Turn(tool_calls=[FINISH]))
    task = asyncio.ensure_future(ask(editor.client, "Fix add."))
    await gate.reached(editor)
    editor.type("calc.py", old, new)
    await command(editor.client, "surehand.status")  # answered after every notification sent
    gate.open()
    return await task


# -- the user types while the task runs ----------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_typing_as_the_edit_arrives_is_rebased_and_proposed_again(
    editors: Editors, openai_server: ScriptedServer, flavour: str
):
    editor = await editors.applying(flavour)
    editor.open("calc.py")
    editor.before_apply.append(
        lambda e: e.type("calc.py", "def sub(a, b):", "def sub(a, b):  # mine")
    )
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Fix add.")

    expected = FIXED.replace("def sub(a, b):", "def sub(a, b):  # mine")
    assert editor.text("calc.py") == expected
    assert (result["outcome"], result["files"]) == ("applied", {"calc.py": "applied"}), result
    assert len(editor.edits) == 2, "proposed once more after the rebase"
    first, second = (document_edit(e) for e in editor.edits)
    assert first.text_document.version == 1
    assert second.text_document.version == 2, "the retry is for the buffer the user typed in"
    assert [new_text(e) for e in second.edits] == ["    return a + b\n"]


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_typing_while_the_agent_works_rebases_the_first_proposal(
    editors: Editors, openai_server: ScriptedServer, tmp_path: Path, flavour: str
):
    editor = await editors.applying(flavour)
    editor.open("calc.py")

    result = await ask_while_typing(
        editor,
        openai_server,
        Gate(tmp_path),
        "def add(a, b):\n",
        "# the user's note\ndef add(a, b):\n",
    )

    expected = "# the user's note\n" + FIXED
    assert editor.text("calc.py") == expected
    assert (result["outcome"], result["files"]) == ("applied", {"calc.py": "applied"}), result
    assert len(editor.edits) == 1, "rebased before it was sent: one proposal"
    sent = document_edit(editor.edits[0])
    assert sent.text_document.version == 2
    assert sent.edits[0].range == types.Range(
        start=types.Position(line=2, character=0), end=types.Position(line=3, character=0)
    )


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_typing_on_the_agents_line_before_it_proposes_is_a_conflict(
    editors: Editors, openai_server: ScriptedServer, tmp_path: Path, flavour: str
):
    editor = await editors.applying(flavour)
    editor.open("calc.py")

    result = await ask_while_typing(
        editor, openai_server, Gate(tmp_path), "    return a - b\n", "    return b + a\n"
    )

    assert editor.text("calc.py") == CALC.replace("return a - b", "return b + a", 1)
    assert result["outcome"] == "conflict", result
    assert result["conflicts"] == {"calc.py": 1}
    assert editor.edits == [], "nothing left to propose"
    # Neovim's user is asked before the rebase (so the edit sent after it matches the buffer).
    assert len(editor.asked) == (1 if flavour == "neovim" else 0)


async def test_typing_on_the_agents_line_as_the_edit_arrives_is_a_conflict(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.applying("vscode")
    editor.open("calc.py")
    editor.before_apply.append(lambda e: e.type("calc.py", "return a - b", "return b + a"))
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Fix add.")

    user_text = CALC.replace("return a - b", "return b + a", 1)
    assert editor.text("calc.py") == user_text, "the user's text is kept"
    assert result["outcome"] == "conflict", result
    assert result["conflicts"] == {"calc.py": 1}
    assert len(editor.edits) == 1, "the rebase left nothing to send again"

    openai_server.add(Turn(content="OK."))
    await ask(editor.client, "Thanks.")
    told = task_sent(openai_server)
    assert (
        "- calc.py: clashed with the user's own change and was left out: add adds (line 2)" in told
    )


# -- files that are not open, created, deleted, moved ---------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_a_file_that_is_not_open_is_edited_with_version_null(
    editors: Editors, openai_server: ScriptedServer, project: Path, flavour: str
):
    editor = await editors.applying(flavour)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Fix add.")

    assert (result["outcome"], result["files"]) == ("applied", {"calc.py": "applied"}), result
    sent = document_changes(editor.edits[0])[0]
    assert isinstance(sent, types.TextDocumentEdit)
    assert sent.text_document.uri == editor.uri("calc.py")
    assert sent.text_document.version is None
    assert editor.text("calc.py") == FIXED, "the editor opened it to apply the edit"
    assert (project / "calc.py").read_text() == CALC


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_create_delete_and_move(
    editors: Editors, openai_server: ScriptedServer, project: Path, flavour: str
):
    (project / "old.py").write_text("OLD = 1\n")
    (project / "a.py").write_text("def f():\n    return 1\n")
    editor = await editors.applying(flavour)
    editor.open("a.py")
    patch = (
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: pkg/b.py\n@@ def f():\n"
        "-    return 1\n+    return 2\n*** End Patch"
    )
    openai_server.add(
        Turn(
            tool_calls=[
                Call(
                    "create_file",
                    {"path": "util.py", "content": "X = 1\n", "description": "new util"},
                ),
                Call("delete_file", {"path": "old.py", "description": "old goes"}),
                Call("apply_patch", {"patch": patch, "description": "move f"}),
            ]
        ),
        Turn(tool_calls=[Call("finish", {"summary": "Reorganised."})]),
    )

    result = await ask(editor.client, "Reorganise.")

    assert result["outcome"] == "applied", result
    assert result["files"] == {"util.py": "applied", "old.py": "applied", "pkg/b.py": "applied"}
    changes = document_changes(editor.edits[0])
    kinds = [(type(c).__name__, _uris(c)) for c in changes]
    assert kinds == [
        ("CreateFile", ["util.py"]),
        ("TextDocumentEdit", ["util.py"]),
        ("DeleteFile", ["old.py"]),
        ("RenameFile", ["a.py", "pkg/b.py"]),
        ("TextDocumentEdit", ["pkg/b.py"]),
    ]
    created, moved = document_edit(editor.edits[0], 1), document_edit(editor.edits[0], 4)
    assert created.text_document.version is None
    assert [new_text(e) for e in created.edits] == ["X = 1\n"]
    assert moved.text_document.version is None
    assert [new_text(e) for e in moved.edits] == ["    return 2\n"]
    create = changes[0]
    assert isinstance(create, types.CreateFile) and create.options is not None
    assert create.options.overwrite is False
    assert editor.text("util.py") == "X = 1\n"
    assert editor.text("pkg/b.py") == "def f():\n    return 2\n"
    assert not (project / "old.py").exists()
    assert not (project / "a.py").exists()
    assert editor.uri("a.py") not in editor.buffers
    if flavour == "vscode":
        annotations = change_annotations(editor.edits[0])
        labels = {}
        for c in changes:
            if not isinstance(c, types.TextDocumentEdit):
                assert c.annotation_id is not None
                labels[c.annotation_id] = annotations[c.annotation_id].label
        assert sorted(labels.values()) == ["move f", "new util", "old goes"]


def _uris(change) -> list[str]:
    if isinstance(change, types.RenameFile):
        uris = [change.old_uri, change.new_uri]
    elif isinstance(change, types.TextDocumentEdit):
        uris = [change.text_document.uri]
    else:
        uris = [change.uri]
    return [uri.rsplit("/project/", 1)[1] for uri in uris]


# -- annotations: VS Code's per-change review --------------------------------------------------

BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a + b\n"
FIX_ADD = edit("    return a - b\n", "    return a + b\n", "add adds")
FIX_MUL = edit("    return a + b\n", "    return a * b\n", "mul multiplies")


def labelled_hunks(params: types.ApplyWorkspaceEditParams) -> list[tuple[int, str, str]]:
    """(line, new text, annotation label) of every hunk in the edit."""
    annotations = params.edit.change_annotations or {}
    hunks = []
    for change in document_changes(params):
        if isinstance(change, types.TextDocumentEdit):
            for e in change.edits:
                assert isinstance(e, types.AnnotatedTextEdit), e
                hunks.append((e.range.start.line, e.new_text, annotations[e.annotation_id].label))
    return hunks


async def buggy_editor(editors: Editors, project: Path) -> Editor:
    (project / "calc.py").write_text(BUGGY)
    editor = await editors.open("vscode")
    editor.open("calc.py")
    return editor


async def test_each_edit_is_an_annotation_on_its_own_hunk(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await buggy_editor(editors, project)
    # FIX_ADD makes line 2 "return a + b", so FIX_MUL must name mul to be unique.
    fix_mul = edit(
        "def mul(a, b):\n    return a + b\n", "def mul(a, b):\n    return a * b\n", "mul"
    )
    openai_server.add(Turn(tool_calls=[FIX_ADD, fix_mul]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Fix both.")

    assert result["outcome"] == "applied", result
    params = editor.edits[0]
    annotations = change_annotations(params)
    assert sorted((a.label, a.needs_confirmation) for a in annotations.values()) == [
        ("add adds", True),
        ("mul", True),
    ]
    assert labelled_hunks(params) == [
        (1, "    return a + b\n", "add adds"),
        (5, "    return a * b\n", "mul"),
    ]


async def test_hunks_follow_their_edit_through_later_edits(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    """A docstring inserted on top shifts every line; a later edit of the docstring
    joins its hunk; each hunk is labelled by the edits it holds."""
    editor = await buggy_editor(editors, project)
    openai_server.add(
        Turn(
            tool_calls=[
                edit("    return a + b\n", "    return a * b\n", "mul multiplies"),
                edit("def add(a, b):\n", '"""Maths."""\n\n\ndef add(a, b):\n', "docstring"),
                edit("    return a - b\n", "    return a + b\n", "add adds"),
                edit('"""Maths."""\n', '"""Arithmetic."""\n', "better docstring"),
            ]
        ),
        Turn(tool_calls=[FINISH]),
    )

    result = await ask(editor.client, "Fix both and document.")

    assert result["outcome"] == "applied", result
    assert labelled_hunks(editor.edits[0]) == [
        (0, '"""Arithmetic."""\n\n\n', "docstring; better docstring"),
        (1, "    return a + b\n", "add adds"),
        (5, "    return a * b\n", "mul multiplies"),
    ]
    assert editor.text("calc.py") == (
        '"""Arithmetic."""\n\n\n'
        "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
    )


async def test_rejecting_one_label_is_partly_applied_and_the_model_is_told(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await buggy_editor(editors, project)
    editor.reject_labels = {"mul multiplies"}
    openai_server.add(Turn(tool_calls=[FIX_MUL, FIX_ADD]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Fix both.")

    assert editor.text("calc.py") == BUGGY.replace("a - b", "a + b")
    assert result["outcome"] == "partly_applied", result
    assert result["files"] == {"calc.py": "partly_applied"}

    openai_server.add(Turn(content="OK."))
    await ask(editor.client, "Thanks.")
    told = task_sent(openai_server)
    assert "- calc.py: accepted: add adds (line 2), rejected: mul multiplies (line 6)." in told


async def test_a_discarded_proposal_is_told_to_the_model_with_the_next_ask(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await buggy_editor(editors, project)
    editor.accept = False
    openai_server.add(Turn(tool_calls=[FIX_ADD]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Fix add.")

    assert editor.text("calc.py") == BUGGY
    assert (result["outcome"], result["files"]) == ("discarded", {"calc.py": "unchanged"})

    openai_server.add(Turn(content="OK."))
    await ask(editor.client, "Why not?")
    first_request = openai_server.completions[-1].body["messages"]
    told = first_request[-1]
    assert told["role"] == "user"
    assert "- calc.py: rejected: add adds (line 2)." in told["content"]
    assert told["content"].endswith("Why not?")
