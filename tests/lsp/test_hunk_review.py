"""The non-modal review (docs/review.md) for clients without a surehand front end.

Each hunk is a diagnostic; its code actions accept or reject it; accepting
sends exactly that hunk; typing moves the others (or makes one stale); the
ask answers at once and the outcome comes as ``surehand/outcome``. The
editors are pytest-lsp clients with Neovim 0.11's and Emacs's capabilities
(Emacs: no resource operations, no ``window/showDocument``).
"""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from lsp_server import code_actions
from lsp_server.diagnostics import ELSEWHERE
from tests.lsp.editor import (
    Editor,
    Editors,
    ask,
    command,
    new_text,
    only_document_edit,
    wait_until,
)
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import (
    CALC,
    CREATE,
    DELETE,
    FINISH,
    FIX,
    FIXED,
    MOVE,
    UTIL,
    edit,
    task_sent,
)
from tests.test_protocol import example

pytestmark = pytest.mark.asyncio

SUB = edit(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n", "sub noted"
)
BOTH = FIXED.replace(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n"
)
SUB_ONLY = CALC.replace(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n"
)


@pytest.fixture
def project_files() -> dict[str, str]:
    return {"calc.py": CALC, "old.py": "OLD = 1\n", "a.py": "def f():\n    return 1\n"}


@pytest.fixture
def editor_settings() -> dict:
    return {"commandAllowlist": ["cat"]}


def shown(editor: Editor, relative: str) -> list[types.Diagnostic]:
    """The review's diagnostics on a file, without the summary of what waits elsewhere."""
    return [
        d
        for d in editor.client.diagnostics.get(editor.uri(relative), [])
        if d.source == "surehand" and d.code != ELSEWHERE
    ]


async def review_of(editor: Editor, model: ScriptedServer, *calls: Call, **extra: Any) -> dict:
    """Ask for ``calls`` (then finish); wait until the review's diagnostics are out."""
    model.add(Turn(tool_calls=list(calls)), Turn(tool_calls=[FINISH]))
    result = await ask(editor.client, "Fix it.", uri=editor.uri("calc.py"), **extra)
    assert result["outcome"] == "reviewing", result
    await command(editor.client, "surehand.status")  # every diagnostic sent before it
    return result


async def actions_at(editor: Editor, relative: str, line: int) -> list[types.CodeAction]:
    """The code actions the editor gets with the cursor on ``line`` (0-based)."""
    here = [d for d in shown(editor, relative) if d.range.start.line <= line <= d.range.end.line]
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
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


async def run(editor: Editor, actions: list[types.CodeAction], title_start: str) -> dict:
    """Run the first action whose title starts with ``title_start`` (as Neovim does)."""
    action = next(a for a in actions if a.title.startswith(title_start))
    assert action.command is not None
    assert action.command.arguments is not None
    result = await command(editor.client, action.command.command, *action.command.arguments)
    await command(editor.client, "surehand.status")  # the client's changes have come in
    return result


def files_of(done: dict) -> dict[str, str]:
    """``files`` of an outcome (read from ``details``: pygls's client mangles path keys)."""
    return {d["path"]: d["status"] for d in done["details"]}


async def outcome(editor: Editor) -> dict:
    return await wait_until(lambda: editor.outcomes and editor.outcomes[-1], what="the outcome")


# -- the review ------------------------------------------------------------------------------


async def test_each_hunk_is_a_diagnostic_and_the_ask_answers_at_once(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await editors.open("neovim")
    editor.open("calc.py")

    result = await review_of(editor, openai_server, FIX, SUB)

    assert result["remaining"] == 2 and result["modelSummary"] == "add now adds."
    assert [i["label"] for i in result["items"]] == ["add adds", "sub noted"]
    first, second = shown(editor, "calc.py")
    assert first.range == types.Range(
        start=types.Position(line=1, character=0), end=types.Position(line=1, character=16)
    )
    assert first.severity == types.DiagnosticSeverity.Information
    assert first.message == ("surehand proposes: add adds\n-     return a - b\n+     return a + b")
    assert second.range.start.line == 5 and "sub noted" in second.message
    assert editor.edits == [] and editor.asked == [], "nothing applied, nothing asked"
    assert editor.text("calc.py") == CALC and (project / "calc.py").read_text() == CALC
    assert editor.outcomes == []
    status = await command(editor.client, "surehand.status")
    assert status["review"]["remaining"] == 2 and status["reviewMode"] == "diagnostics"


async def test_accept_one_hunk_reject_the_other(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await editors.open("neovim")
    editor.open("calc.py")
    await review_of(editor, openai_server, FIX, SUB)

    actions = await actions_at(editor, "calc.py", 1)
    assert [a.title for a in actions] == [
        "surehand: Accept hunk: add adds",
        "surehand: Reject hunk: add adds",
        "surehand: Accept all in this file",
        "surehand: Reject all",
        "surehand: Show diff",
    ]
    await run(editor, actions, "surehand: Accept hunk")

    (sent,) = editor.edits
    document = only_document_edit(sent)
    assert document.text_document.version == 1
    assert [(e.range.start.line, e.range.end.line, new_text(e)) for e in document.edits] == [
        (1, 2, "    return a + b\n")
    ], "exactly that hunk"
    assert editor.text("calc.py") == FIXED
    assert [d.range.start.line for d in shown(editor, "calc.py")] == [5]
    assert editor.outcomes == [], "one hunk is left"

    rejected = await run(editor, await actions_at(editor, "calc.py", 5), "surehand: Reject hunk")

    done = await outcome(editor)
    assert done["outcome"] == "partly_applied", done
    documented = example("outcome_notification-partly_applied")["params"]
    assert set(done) == set(documented)
    assert (done["summary"], done["details"]) == (documented["summary"], documented["details"])
    assert set(rejected) == set(example("command-surehand.review.reject")["result"])
    assert done["summary"] == "calc.py: accepted: add adds (line 2), rejected: sub noted (line 6)."
    assert [h["status"] for h in done["details"][0]["hunks"]] == ["accepted", "rejected"]
    assert shown(editor, "calc.py") == [], "the review's diagnostics are gone"
    assert (project / "calc.py").read_text() == CALC, "in the buffer, unsaved"
    status = await command(editor.client, "surehand.status")
    assert status["review"] is None
    assert status["lastOutcome"]["summary"] == done["summary"]
    assert status["lastOutcome"]["files"] == {"calc.py": "partly_applied"}

    openai_server.add(Turn(tool_calls=[FINISH]))
    assert (await ask(editor.client, "And now?"))["outcome"] == "no_changes"
    told = task_sent(openai_server)
    assert "calc.py: accepted: add adds (line 2), rejected: sub noted (line 6)." in told


async def test_typing_between_moves_the_remaining_hunks(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("neovim")
    editor.open("calc.py")
    await review_of(editor, openai_server, FIX, SUB)

    editor.type("calc.py", "def add", "import math\n\n\ndef add")
    await command(editor.client, "surehand.status")

    assert [d.range.start.line for d in shown(editor, "calc.py")] == [4, 8]
    await run(editor, await actions_at(editor, "calc.py", 8), "surehand: Accept hunk")
    document = only_document_edit(editor.edits[-1])
    assert document.text_document.version == 2, "against the buffer the user typed in"
    assert document.edits[0].range.start.line == 8
    editor.type("calc.py", "import math\n", "import os\n")
    await run(editor, await actions_at(editor, "calc.py", 4), "surehand: Accept hunk")

    done = await outcome(editor)
    assert done["outcome"] == "applied", done
    assert editor.text("calc.py") == "import os\n\n\n" + BOTH


async def test_a_hunk_the_user_typed_over_is_stale_and_only_rejectable(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("neovim")
    editor.open("calc.py")
    await review_of(editor, openai_server, FIX, SUB)

    editor.type("calc.py", "    return a - b\n", "    return b + a\n")
    await command(editor.client, "surehand.status")

    stale, live = shown(editor, "calc.py")
    assert stale.severity == types.DiagnosticSeverity.Hint and "stale" in stale.message
    assert live.severity == types.DiagnosticSeverity.Information
    titles = [a.title for a in await actions_at(editor, "calc.py", 1)]
    assert titles[:2] == ["surehand: Reject hunk: add adds", "surehand: Accept all in this file"]
    refused = await command(editor.client, "surehand.review.accept", {"id": stale.code})
    assert refused["state"] == "stale" and editor.edits == []

    await command(editor.client, "surehand.review.reject", {"id": stale.code})
    await command(editor.client, "surehand.review.accept", {"id": live.code})

    done = await outcome(editor)
    assert done["outcome"] == "partly_applied", done
    assert [h["status"] for h in done["details"][0]["hunks"]] == ["conflict", "accepted"]
    assert editor.text("calc.py") == SUB_ONLY.replace("return a - b", "return b + a", 1)


async def test_a_refused_edit_is_a_rejection_and_staged_changes_are_dropped(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("emacs")
    editor.open("calc.py")
    editor.accept = False  # eglot's "Server wants to edit ... Proceed?" answered n
    await review_of(editor, openai_server, FIX)

    answer = await command(editor.client, "surehand.review.accept", {"uri": editor.uri("calc.py")})

    assert answer["state"] == "rejected", answer
    done = await outcome(editor)
    assert done["outcome"] == "discarded" and files_of(done) == {"calc.py": "unchanged"}, done
    assert editor.text("calc.py") == CALC
    openai_server.add(Turn(tool_calls=[FINISH]))
    again = await ask(editor.client, "Anything else?")
    assert again["outcome"] == "no_changes", "the rejected hunk never comes back"


async def test_cancel_ends_the_review_and_rejects_what_is_open(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("neovim")
    editor.open("calc.py")
    await review_of(editor, openai_server, FIX, SUB)
    await command(
        editor.client, "surehand.review.accept", {"uri": editor.uri("calc.py"), "line": 1}
    )

    assert (await command(editor.client, "surehand.cancel"))["cancelled"] is True

    done = await outcome(editor)
    assert done["outcome"] == "partly_applied" and editor.text("calc.py") == FIXED
    assert shown(editor, "calc.py") == []


async def test_a_new_ask_during_a_review_is_busy(editors: Editors, openai_server: ScriptedServer):
    editor = await editors.open("neovim")
    editor.open("calc.py")
    await review_of(editor, openai_server, FIX)

    busy = await ask(editor.client, "Something else.")

    assert busy["outcome"] == "busy" and "under review" in busy["summary"]
    await command(editor.client, "surehand.review.rejectAll")
    assert (await outcome(editor))["outcome"] == "discarded"


async def test_next_and_show_diff(editors: Editors, openai_server: ScriptedServer):
    editor = await editors.open("neovim")
    editor.open("calc.py")
    await review_of(editor, openai_server, FIX, SUB)

    after_first = await command(
        editor.client, "surehand.review.next", {"uri": editor.uri("calc.py"), "line": 1}
    )
    assert after_first["range"]["start"]["line"] == 5 and after_first["remaining"] == 2
    selection = editor.client.shown_documents[-1].selection
    assert selection is not None
    assert selection.start.line == 5
    diff = await command(editor.client, "surehand.review.showDiff", {"id": after_first["id"]})

    path = Path(diff["shown"].removeprefix("file://"))
    assert editor.client.shown_documents[-1].take_focus is False, "not in the user's way"
    assert "+    return a - b  # sub" in path.read_text()
    assert not os.access(path, os.W_OK) or stat.S_IMODE(path.stat().st_mode) == 0o444
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


# -- files: only on their own accept ---------------------------------------------------------


async def test_new_deleted_and_moved_files_only_on_their_own_accept(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await editors.open("neovim")
    editor.open("calc.py")
    await review_of(editor, openai_server, CREATE, DELETE, MOVE)

    assert not (project / "util.py").exists()
    assert (project / "old.py").exists() and (project / "a.py").exists()
    (create,) = shown(editor, "calc.py")  # a new file is shown on the file asked about
    assert create.message.startswith("surehand proposes a new file util.py: new util")
    assert "surehand proposes deleting old.py" in shown(editor, "old.py")[0].message
    assert "moving a.py to pkg/b.py" in shown(editor, "a.py")[0].message

    await command(editor.client, "surehand.review.reject", {"id": create.code})
    await run(editor, await actions_at(editor, "old.py", 0), "surehand: Accept deleting")
    assert not (project / "old.py").exists()
    await run(editor, await actions_at(editor, "a.py", 0), "surehand: Accept moving")

    done = await outcome(editor)
    assert files_of(done) == {"util.py": "unchanged", "old.py": "applied", "pkg/b.py": "applied"}
    assert not (project / "util.py").exists() and not (project / "a.py").exists()
    assert editor.text("pkg/b.py") == "def f():\n    return 2\n"

    undone = await command(editor.client, "surehand.undo")
    assert undone["undone"]["operation"] == "rename", undone
    assert (project / "a.py").exists() and not (project / "pkg/b.py").exists()
    undone = await command(editor.client, "surehand.undo")
    assert undone["undone"] == {"operation": "delete", "path": "old.py", "source": None}
    assert editor.text("old.py") == "OLD = 1\n", "the deleted file is back, in a buffer"
    assert (await command(editor.client, "surehand.undo"))["undone"] is None


async def test_without_resource_operations_the_server_writes_the_accepted_file(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await editors.open("emacs")
    editor.open("calc.py")
    await review_of(editor, openai_server, CREATE, DELETE)
    (create,) = shown(editor, "calc.py")

    await command(editor.client, "surehand.review.accept", {"id": create.code})
    assert (project / "util.py").read_text() == UTIL
    await command(editor.client, "surehand.review.reject", {"id": shown(editor, "old.py")[0].code})

    done = await outcome(editor)
    assert files_of(done) == {"util.py": "applied", "old.py": "unchanged"}, done
    assert not any(
        isinstance(c, types.CreateFile | types.DeleteFile)
        for e in editor.edits
        for c in e.edit.document_changes or []
    ), "no resource operation sent to a client that does not announce them"
    assert (await command(editor.client, "surehand.undo"))["undone"]["operation"] == "create"
    assert not (project / "util.py").exists()


# -- approvals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["Allow once", "Deny"])
async def test_an_approval_is_a_diagnostic_and_the_task_waits(
    editors: Editors, openai_server: ScriptedServer, answer: str
):
    editor = await editors.open("neovim", sandbox="off")
    editor.open("calc.py")
    read = Call("run_command", {"command": "cat calc.py", "timeout": None})
    openai_server.add(Turn(tool_calls=[read]), Turn(tool_calls=[FINISH]))
    task = asyncio.ensure_future(ask(editor.client, "Read it.", uri=editor.uri("calc.py")))

    (question,) = await wait_until(lambda: shown(editor, "calc.py"), what="the approval")
    assert question.severity == types.DiagnosticSeverity.Warning
    assert "surehand wants to run `cat calc.py`" in question.message
    assert not task.done(), "the task waits for the answer"
    actions = await actions_at(editor, "calc.py", 0)
    assert [a.title.split(" `")[0] for a in actions] == [
        "surehand: Allow once",
        "surehand: Deny",
        "surehand: Cancel the running task",
    ]
    await run(editor, actions, f"surehand: {answer}")

    result = await task
    assert result["outcome"] == "no_changes", result
    assert editor.asked == [], "never a question that takes typed keys"
    assert shown(editor, "calc.py") == []
    tool = [m for m in openai_server.completions[-1].body["messages"] if m["role"] == "tool"]
    assert tool[0]["content"].startswith("$ cat calc.py" if answer == "Allow once" else "The user")
    assert editor.outcomes[-1]["outcome"] == "no_changes"


async def test_a_hunk_of_a_file_that_is_not_open(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    (project / "helper.py").write_text("X = 1\n", encoding="utf-8")
    editor = await editors.open("neovim")
    editor.open("calc.py")
    change = edit("X = 1\n", "X = 2\n", "two", path="helper.py")
    await review_of(editor, openai_server, change)
    (hunk,) = shown(editor, "helper.py")

    await command(editor.client, "surehand.review.accept", {"id": hunk.code})

    document = only_document_edit(editor.edits[-1])
    assert document.text_document.version is None, "not open: no version"
    done = await outcome(editor)
    assert done["outcome"] == "applied", done
    assert editor.text("helper.py") == "X = 2\n"
    assert (project / "helper.py").read_text() == "X = 1\n", "in the buffer it opened"


async def test_cancelling_while_an_approval_waits_cancels_the_task(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("neovim", sandbox="off")
    editor.open("calc.py")
    read = Call("run_command", {"command": "cat calc.py", "timeout": None})
    openai_server.add(Turn(tool_calls=[read]), Turn(tool_calls=[FINISH]))
    task = asyncio.ensure_future(ask(editor.client, "Read it.", uri=editor.uri("calc.py")))
    await wait_until(lambda: shown(editor, "calc.py"), what="the approval")

    assert (await command(editor.client, "surehand.cancel"))["cancelled"] is True

    assert (await task)["outcome"] == "cancelled"
    assert (await outcome(editor))["outcome"] == "cancelled"
    await command(editor.client, "surehand.status")
    assert shown(editor, "calc.py") == []
    assert len(openai_server.completions) == 1, "the task did not go on"


@pytest.mark.parametrize(("flavour", "offered"), [("neovim", True), ("vscode", False)])
async def test_the_review_commands_are_offered_only_to_clients_without_their_own_review(
    editors: Editors, flavour: str, offered: bool
):
    """VS Code's extension has its own ``surehand.review.*`` commands: offered the
    server's by the same names, the client would fail to register them and stop."""
    editor = await editors.open(flavour)

    assert editor.server_capabilities is not None
    provider = editor.server_capabilities.execute_command_provider
    assert provider is not None
    commands = set(provider.commands)
    assert {"surehand.ask", "surehand.cancel", "surehand.reset", "surehand.status"} <= commands
    assert (set(code_actions.COMMANDS) <= commands) is offered
    assert not (set(code_actions.COMMANDS) & commands) or offered
