"""An LSP editor with no surehand plugin and nothing of surehand's announced (Emacs,
Vim + ALE, Helix, Neovim's own client): the ask is answered at once and no client
timeout can touch the task; the end is a ``window/showMessage``; no custom
notification is sent; a task can be written as a ``surehand:`` comment; file
operations are judged on disk; what waits in files that are not open is said on the
files that are; cancel and undo are code actions.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from lsp_server.diagnostics import ELSEWHERE
from lsp_server.server import FIX_THIS
from tests.lsp.editor import Editor, Editors, command, wait_until
from tests.support.openai_server import Hang, ScriptedServer, Turn
from tests.support.scripted_task import CALC, DELETE, FINISH, FIX, FIXED, edit, task_sent

pytestmark = pytest.mark.asyncio

NOTE = "def note():\n    return 0\n"
NOTE_EDIT = edit("    return 0\n", "    return 1\n", "note is one", path="note.py")


@pytest.fixture
def project_files() -> dict[str, str]:
    return {"calc.py": CALC, "old.py": "OLD = 1\n", "note.py": NOTE}


async def plain(editors: Editors, flavour: str = "neovim", **settings: Any) -> Editor:
    return await editors.open(flavour, notifications=False, **settings)


def said(editor: Editor) -> list[str]:
    return [m.message for m in editor.client.messages if m.message.startswith("surehand")]


def review_diagnostics(editor: Editor, relative: str) -> list[types.Diagnostic]:
    return [
        d for d in editor.client.diagnostics.get(editor.uri(relative), []) if d.source == "surehand"
    ]


async def actions(editor: Editor, relative: str, line: int) -> list[Any]:
    """The code actions with the cursor on ``line`` (0-based), its diagnostics given."""
    here = [
        d
        for d in review_diagnostics(editor, relative)
        if d.range.start.line <= line <= d.range.end.line
    ]
    position = types.Position(line=line, character=0)
    found = await asyncio.wait_for(
        editor.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=editor.uri(relative)),
                range=types.Range(start=position, end=position),
                context=types.CodeActionContext(diagnostics=here),
            )
        ),
        15,
    )
    return list(found or [])


async def run(editor: Editor, found: list[Any], title_start: str) -> Any:
    """Run the action whose title starts with ``title_start``, as the editor would."""
    action = next(a for a in found if a.title.startswith(title_start))
    call = action.command if isinstance(action, types.CodeAction) else action
    assert call is not None
    result = await command(editor.client, call.command, *(call.arguments or []))
    await command(editor.client, "surehand.status")  # the client's changes have come in
    return result


async def the_end(editor: Editor, words: str) -> str:
    return await wait_until(
        lambda: next((m for m in said(editor) if words in m), None), what=f"a message {words!r}"
    )


async def test_the_ask_is_answered_at_once_and_only_the_person_stops_the_task(
    editors: Editors, openai_server: ScriptedServer
):
    """The model does not answer for as long as the test cares to wait: the ask is
    answered at once, no cancel of a request can stop the task, the cancel code action
    does, and the end is said in a message; no surehand/* notification is ever sent."""
    editor = await plain(editors)
    editor.open("calc.py")
    openai_server.add(Hang())

    answer = await command(
        editor.client, "surehand.ask", {"task": "Fix add.", "uri": editor.uri("calc.py")}
    )

    assert answer["outcome"] == "started" and answer["task"] == "task-1", answer
    await wait_until(lambda: len(openai_server.completions) == 1, what="the model's request")
    status = await command(editor.client, "surehand.status")
    assert status["busy"] is True
    titles = [a.title for a in await actions(editor, "calc.py", 3)]
    assert titles[0] == "surehand: Cancel the running task", titles

    await run(editor, await actions(editor, "calc.py", 3), "surehand: Cancel the running task")

    assert await the_end(editor, "Cancelled.") == "surehand: Cancelled."
    assert (await command(editor.client, "surehand.status"))["busy"] is False
    assert editor.steps == [] and editor.told == [], "no notification the editor does not know"
    assert editor.text("calc.py") == CALC


async def test_the_proposal_and_its_end_are_said_in_messages(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await plain(editors)
    editor.open("calc.py")
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    answer = await command(
        editor.client, "surehand.ask", {"task": "Fix add.", "uri": editor.uri("calc.py")}
    )
    assert answer["outcome"] == "started"
    await the_end(editor, "Review the hunks shown as diagnostics")
    (hunk,) = review_diagnostics(editor, "calc.py")
    # Vim's ALE sends the diagnostic back without its source: still no "fix this" on it.
    bare = types.Diagnostic(range=hunk.range, message=hunk.message)
    found = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri("calc.py")),
            range=types.Range(  # ALE's: one character at the cursor
                start=hunk.range.start,
                end=types.Position(line=hunk.range.start.line, character=1),
            ),
            context=types.CodeActionContext(diagnostics=[bare]),
        )
    )
    titles = [a.title for a in found or []]
    assert FIX_THIS not in titles and titles[0].startswith("surehand: Accept hunk"), titles

    await run(editor, await actions(editor, "calc.py", hunk.range.start.line), "surehand: Accept")

    assert await the_end(editor, "accepted: add adds") == (
        "surehand: calc.py: accepted: add adds (line 2). The model's summary: add now adds."
    )
    assert editor.text("calc.py") == FIXED and (project / "calc.py").read_text() == CALC
    assert editor.steps == [] and editor.told == []


# -- the task in the person's own words --------------------------------------------------------

ASKED = CALC.replace("def add(a, b):\n", "# surehand: make add add\ndef add(a, b):\n", 1)


async def test_a_comment_is_a_task_and_its_removal_a_hunk_of_the_proposal(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await plain(editors)
    editor.open("calc.py", ASKED)  # typed, not saved
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    found = await actions(editor, "calc.py", 0)
    assert [a.title for a in found] == ["Ask surehand: make add add"]
    assert (await actions(editor, "calc.py", 1)) == [], "only on the comment's line"
    answer = await run(editor, found, "Ask surehand")

    assert answer["outcome"] == "started"
    await the_end(editor, "Review the hunks")
    told = task_sent(openai_server, 0)
    assert told.startswith("make add add\n\nThe user wrote this request in calc.py as the comment")
    assert "line 1" in told and "leave it as it is" in told
    hunks = review_diagnostics(editor, "calc.py")
    assert len(hunks) == 2, [h.message for h in hunks]
    assert "- # surehand: make add add" in hunks[0].message

    await run(editor, await actions(editor, "calc.py", 2), "surehand: Accept all in this file")

    assert editor.text("calc.py") == FIXED, "the fix, and the comment gone"
    assert (project / "calc.py").read_text() == CALC, "nothing saved"


async def test_all_comment_tasks_of_a_file_at_once_and_a_comment_gone_meanwhile(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await plain(editors)
    text = ASKED + "// surehand: and note sub */\n"
    editor.open("calc.py", text)
    wanted = types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll])
    found = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri("calc.py")),
            range=types.Range(
                start=types.Position(line=3, character=0), end=types.Position(line=3, character=0)
            ),
            context=wanted,
        )
    )
    (every,) = found or []
    assert isinstance(every, types.CodeAction)
    assert every.title == "Ask surehand: all 2 requests in this file"
    assert every.kind == "source.fixAll.surehand"

    editor.type("calc.py", "# surehand: make add add\n", "")
    editor.type("calc.py", "// surehand: and note sub */\n", "")
    gone = await run(editor, [every], "Ask surehand")

    assert gone["outcome"] == "error" and "no `surehand:` comment" in gone["summary"]
    assert openai_server.completions == [], "the model was never asked"


# -- file operations, judged on disk ------------------------------------------------------------


async def delete_under_review(editors: Editors, model: ScriptedServer) -> Editor:
    """Emacs (no resource operations) with calc.py and old.py open, and the model's delete
    of old.py under review."""
    editor = await plain(editors, "emacs")
    editor.open("calc.py")
    editor.open("old.py")
    model.add(Turn(tool_calls=[DELETE]), Turn(tool_calls=[FINISH]))
    await command(
        editor.client, "surehand.ask", {"task": "Drop old.", "uri": editor.uri("calc.py")}
    )
    await the_end(editor, "Review the hunks")
    return editor


async def test_a_delete_with_its_buffer_open_lands_and_the_person_is_told(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    """Emacs (no resource operations): the server deletes the file on accept; the item is
    accepted although the editor still has its buffer, the person is told to close it,
    the next task is not refused as busy, and undo is a code action."""
    editor = await delete_under_review(editors, openai_server)

    await run(editor, await actions(editor, "old.py", 0), "surehand: Accept deleting old.py")

    assert not (project / "old.py").exists()
    assert any("old.py was deleted" in m and "close it without saving" in m for m in said(editor))
    done = await the_end(editor, "old.py")
    assert "not deleted" not in done
    assert (await command(editor.client, "surehand.status"))["review"] is None

    undo = [a.title for a in await actions(editor, "calc.py", 0)]
    assert "surehand: Undo deleting old.py" in undo, undo
    await run(editor, await actions(editor, "calc.py", 0), "surehand: Undo deleting old.py")
    assert (project / "old.py").read_text() == "OLD = 1\n"

    openai_server.add(Turn(tool_calls=[FINISH]))
    again = await command(editor.client, "surehand.ask", {"task": "And now?"})
    assert again["outcome"] == "started", "not busy"


async def test_a_delete_of_a_buffer_with_unsaved_typing_is_refused(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await delete_under_review(editors, openai_server)
    editor.type("old.py", "OLD = 1", "OLD = 2")

    await run(editor, await actions(editor, "old.py", 0), "surehand: Accept deleting old.py")

    assert (project / "old.py").read_text() == "OLD = 1\n", "the file stays"
    assert any("not saved; it was not deleted" in m for m in said(editor)), said(editor)
    assert editor.text("old.py") == "OLD = 2\n"


# -- what waits where the person cannot see it -----------------------------------------------


async def test_changes_in_files_not_open_are_listed_on_the_open_ones(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await plain(editors)
    editor.open("calc.py")
    openai_server.add(Turn(tool_calls=[FIX, NOTE_EDIT]), Turn(tool_calls=[FINISH]))
    await command(editor.client, "surehand.ask", {"task": "Fix.", "uri": editor.uri("calc.py")})
    await the_end(editor, "Review the hunks")

    (summary,) = [d for d in review_diagnostics(editor, "calc.py") if d.code == ELSEWHERE]
    assert summary.range.start.line == 0
    assert summary.message.startswith(
        "surehand: 1 change to review in files that are not open: note.py (1)."
    )
    titles = [a.title for a in await actions(editor, "calc.py", 0)]
    assert "surehand: Show the next change" in titles and "surehand: Accept all changes" in titles

    await run(editor, await actions(editor, "calc.py", 0), "surehand: Accept all changes")

    assert editor.text("calc.py") == FIXED
    assert editor.text("note.py") == "def note():\n    return 1\n", "opened and edited"
    assert not [d for d in review_diagnostics(editor, "calc.py") if d.code == ELSEWHERE]
    await the_end(editor, "note.py: accepted")
