"""The confirmation in plain LSP clients (DESIGN.md "The confirmation"): what a person
reads is what will happen, only the person answers, and a decision is final.

- Model-chosen text (labels, paths, commands, diff lines, summaries) reaches the
  editor with control and bidi characters as visible escapes, in every message a
  person reads; the text applied is the model's, byte for byte.
- A command approval in the non-modal review is shown at the task's file and
  line, said once in ``window/showMessage``, and "always allow" is never the
  first or preferred action.
- A hunk the person rejected never comes back in the same task, whatever they
  type; one whose lines they changed (at the end of a last line without a final
  newline, in a CRLF file) is stale; every outcome word matches the buffers.
- A file that changes how tools run is flagged, and "accept all" leaves it out.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from editing.visible import hidden_in
from lsp_server.diagnostics import GOVERNS_MARK
from tests.lsp.editor import (
    Editor,
    Editors,
    ask,
    command,
    document_edit,
    new_text,
    wait_until,
)
from tests.lsp.test_hunk_review import actions_at, files_of, outcome, review_of, run, shown
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, edit, task_sent

pytestmark = pytest.mark.asyncio

SPOOF = "\x1b[2K\x1b[1G"  # erase the line, back to column 1
RLO = "\u202e"  # right-to-left override
LABEL = f"tidy{SPOOF}add adds{RLO}exe.py"
SHOWN_LABEL = "tidy\\x1b[2K\\x1b[1Gadd adds\\u202eexe.py"
SPOOFED_LINE = f"    return a + b  # {SPOOF}+    return a + b\n"
SPOOFED_FIX = edit("def add(a, b):\n    return a - b\n", f"def add(a, b):\n{SPOOFED_LINE}", LABEL)
SUB = edit(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n", "sub noted"
)
ENVRC = Call("create_file", {"path": ".envrc", "content": "export A=1\n", "description": "direnv"})


@pytest.fixture
def editor_settings() -> dict:
    return {"commandAllowlist": ["cat"]}


def no_hidden(*texts: str) -> None:
    for text in texts:
        assert hidden_in(text.replace("\n", "").replace("\t", "")) is None, repr(text)


# -- 1. one rule for model-chosen text --------------------------------------------------------


async def test_model_text_reaches_the_editor_escaped_and_is_applied_as_written(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("neovim")
    editor.open("calc.py")
    asked = await review_of(editor, openai_server, SPOOFED_FIX)

    (hunk,) = shown(editor, "calc.py")
    assert hunk.message.startswith(f"surehand proposes: {SHOWN_LABEL}\n")
    assert "+     return a + b  # \\x1b[2K\\x1b[1G+    return a + b" in hunk.message
    actions = await actions_at(editor, "calc.py", 1)
    assert actions[0].title == f"surehand: Accept hunk: {SHOWN_LABEL}"
    assert [i["label"] for i in asked["items"]] == [LABEL], "data stays as the model wrote it"
    no_hidden(hunk.message, *(a.title for a in actions), asked["summary"])

    await run(editor, actions, "surehand: Accept hunk")

    (sent,) = editor.edits
    assert new_text(document_edit(sent).edits[0]) == SPOOFED_LINE, "applied as written"
    no_hidden(sent.label or "")
    assert editor.text("calc.py") == CALC.replace("    return a - b\n", SPOOFED_LINE, 1)
    done = await outcome(editor)
    assert SHOWN_LABEL in done["summary"]
    no_hidden(done["summary"], done["modelSummary"])
    await command(editor.client, "surehand.status")
    for step in editor.steps:
        no_hidden(step.get("summary") or "", step.get("message") or "")
    no_hidden(*(m.message for m in editor.client.log_messages))
    no_hidden(*(m.message for m in editor.client.messages))


async def test_a_spoofing_model_summary_and_question_in_the_modal_review(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("neovim", review="question")
    editor.open("calc.py")
    editor.choices = ["Discard"]
    finish = Call("finish", {"summary": f"Done.{SPOOF}All tests pass{RLO}"})
    openai_server.add(Turn(tool_calls=[SPOOFED_FIX]), Turn(tool_calls=[finish]))

    result = await ask(editor.client, "Fix add.")

    (question,) = editor.asked
    assert "Done.\\x1b[2K\\x1b[1GAll tests pass\\u202e" in question.message
    no_hidden(question.message, *(a.title for a in question.actions or []))
    no_hidden(result["summary"], result["modelSummary"])
    no_hidden(*(m.message for m in editor.client.log_messages))


# -- 2. approvals at the task's place, said once, "always" never first --------------------


async def test_an_approval_waits_at_the_tasks_line_and_is_said_in_a_message(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("neovim")
    editor.open("calc.py")
    spoof = f"echo ok{SPOOF}pytest -q{RLO}"
    run_it = Call("run_command", {"command": spoof, "timeout": None})
    openai_server.add(Turn(tool_calls=[run_it]), Turn(tool_calls=[FINISH]))
    place = types.Range(
        start=types.Position(line=4, character=4), end=types.Position(line=5, character=0)
    )
    task = asyncio.ensure_future(
        ask(
            editor.client,
            "Check it.",
            uri=editor.uri("calc.py"),
            range={
                "start": {"line": 4, "character": 4},
                "end": {"line": 5, "character": 0},
            },
        )
    )

    (question,) = await wait_until(lambda: shown(editor, "calc.py"), what="the approval")
    assert question.range.start.line == place.start.line == question.range.end.line
    assert question.severity == types.DiagnosticSeverity.Warning
    assert "echo 'ok\\x1b[2K\\x1b[1Gpytest' '-q\\u202e'" in question.message

    def said_list():
        return [m for m in editor.client.messages if "waits for your answer" in m.message]

    said = await wait_until(said_list, what="the message that an approval waits")
    assert len(said) == 1 and "calc.py:5" in said[0].message, said
    assert said[0].type == types.MessageType.Warning
    no_hidden(question.message, said[0].message)
    assert editor.asked == [], "never a blocking question"
    elsewhere = [a.title for a in await actions_at(editor, "calc.py", 0)]
    assert elsewhere == ["surehand: Cancel the running task"], "no approval on line 1"

    actions = await actions_at(editor, "calc.py", 4)
    titles = [a.title for a in actions]
    assert titles[0].startswith("surehand: Allow once `echo 'ok\\x1b[2K")
    assert titles[1].startswith("surehand: Deny")
    assert titles[2:] == [
        "surehand: Always allow this command",  # the approval's last, if offered at all
        "surehand: Cancel the running task",
    ]
    assert [bool(a.is_preferred) for a in actions] == [True, False, False, False]
    no_hidden(*titles)
    await run(editor, actions, "surehand: Deny")

    assert (await task)["outcome"] == "no_changes"
    assert shown(editor, "calc.py") == []


async def test_without_a_place_in_the_ask_the_approval_is_on_the_file_the_task_was_about(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    (project / "notes.py").write_text("N = 1\n", encoding="utf-8")
    editor = await editors.open("neovim")
    editor.open("calc.py")
    editor.open("notes.py")
    read = Call("read_file", {"path": "notes.py"})
    run_it = Call("run_command", {"command": "echo hi", "timeout": None})
    openai_server.add(Turn(tool_calls=[read]), Turn(tool_calls=[run_it]), Turn(tool_calls=[FINISH]))
    task = asyncio.ensure_future(ask(editor.client, "Check it."))

    (question,) = await wait_until(lambda: shown(editor, "notes.py"), what="the approval")
    assert question.range.start.line == 0
    assert shown(editor, "calc.py") == []
    await run(editor, await actions_at(editor, "notes.py", 0), "surehand: Deny")
    assert (await task)["outcome"] == "no_changes"


# -- 3. decisions final, reports true ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("def add(a, b):\n    return a - b", "    return a - b"),
        ("def add(a, b):\r\n    return a - b\r\n\r\nX = 1\r\n", "    return a - b\r\n"),
    ],
    ids=["last-line-without-newline", "crlf"],
)
async def test_typing_at_the_end_of_a_hunks_line_makes_it_stale(
    editors: Editors, openai_server: ScriptedServer, project: Path, text: str, old: str
):
    (project / "calc.py").write_bytes(text.encode())
    editor = await editors.open("neovim")
    editor.open("calc.py")
    await review_of(editor, openai_server, edit(old, old.replace("a - b", "a + b"), "x"))

    editor.type("calc.py", "return a - b", "return a - b  # mine")
    await command(editor.client, "surehand.status")

    (stale,) = shown(editor, "calc.py")
    assert stale.severity == types.DiagnosticSeverity.Hint and "stale" in stale.message
    refused = await command(editor.client, "surehand.review.accept", {"id": stale.code})
    assert refused["state"] == "stale" and editor.edits == [], "never glued to the typing"
    await command(editor.client, "surehand.review.reject", {"id": stale.code})
    done = await outcome(editor)
    assert done["outcome"] == "conflict" and "a + b" not in editor.text("calc.py"), done


async def test_a_rejected_hunk_never_comes_back_whatever_the_person_types(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("neovim")
    editor.open("calc.py")
    await review_of(editor, openai_server, FIX, SUB)
    (add, sub) = shown(editor, "calc.py")
    await command(editor.client, "surehand.review.reject", {"id": sub.code})

    editor.type("calc.py", "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n")
    editor.type("calc.py", "def sub(a, b):\n", "def sub(a, b):\n    return a - b  # sub\n")
    await command(editor.client, "surehand.status")
    assert [d.code for d in shown(editor, "calc.py")] == [add.code]
    await command(editor.client, "surehand.review.acceptAll", {})

    done = await outcome(editor)
    assert [h["status"] for h in done["details"][0]["hunks"]] == ["accepted", "rejected"]
    assert len(editor.edits) == 1, "only the hunk accepted was sent"


class AppliesThenTypes:
    """A client whose person reviews the proposal (rejecting ``reject``), then types
    ``old`` -> ``new`` before the server reads the buffers."""

    def __init__(self, editor: Editor, reject: set[str], old: str, new: str) -> None:
        self.editor, self.old, self.new = editor, old, new
        self.apply = editor.apply
        editor.reject_labels = reject
        editor.apply = self  # type: ignore[method-assign]

    def __call__(self, params: types.ApplyWorkspaceEditParams) -> Any:
        answer = self.apply(params)
        if len(self.editor.edits) == 1:
            self.editor.type("calc.py", self.old, self.new)
        return answer


TYPED_AFTER_REVIEW = {
    "typed-elsewhere": ("def sub", "# mine\ndef sub", ["accepted", "rejected"]),
    "typed-on-the-rejected-lines": (
        "    return a - b\n",
        "    return b - a\n",
        ["accepted", "conflict"],
    ),
}


@pytest.mark.parametrize("case", TYPED_AFTER_REVIEW)
async def test_after_the_persons_review_typing_never_reproposes_a_rejected_hunk(
    editors: Editors, openai_server: ScriptedServer, case: str
):
    """Before: the file was landed again and sent once more, offering the rejected
    hunk; with the typing on its lines the outcome said ``conflict`` though add landed."""
    old, new, statuses = TYPED_AFTER_REVIEW[case]
    verdict = "partly_applied"
    editor = await editors.open("vscode")
    editor.open("calc.py")
    AppliesThenTypes(editor, {"sub noted"}, old, new)
    openai_server.add(Turn(tool_calls=[FIX, SUB]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Fix it.")

    assert len(editor.edits) == 1, "nothing proposed a second time"
    assert result["outcome"] == verdict, result
    assert [h["status"] for h in result["details"][0]["hunks"]] == statuses
    assert "return a + b" in editor.text("calc.py") and "# sub" not in editor.text("calc.py")
    openai_server.add(Turn(content="OK."))
    await ask(editor.client, "Thanks.")
    assert "accepted: add adds (line 2)" in task_sent(openai_server)


# -- 4. files that change how tools run ------------------------------------------------------


async def test_accept_all_leaves_out_a_file_that_changes_how_tools_run(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await editors.open("emacs")
    editor.open("calc.py")
    await review_of(editor, openai_server, FIX, ENVRC)

    envrc, hunk = sorted(shown(editor, "calc.py"), key=lambda d: d.severity or 0)
    assert envrc.message.startswith(f"{GOVERNS_MARK} surehand proposes a new file .envrc")
    assert "shell code direnv runs when you enter the folder" in envrc.message
    assert envrc.severity == types.DiagnosticSeverity.Warning
    assert envrc.data is not None and envrc.data["governs"].startswith("shell code direnv")
    assert hunk.severity == types.DiagnosticSeverity.Information
    assert hunk.data is not None and "governs" not in hunk.data
    titles = [a.title for a in await actions_at(editor, "calc.py", 0)]
    assert titles[0] == (
        "surehand: Accept new file .envrc (changes how tools run: accept on its own)"
    )

    for argument in ({"uri": editor.uri("calc.py")}, {}):
        answer = await command(editor.client, "surehand.review.acceptAll", argument)
        assert [s["path"] for s in answer["skipped"]] == [".envrc"], answer
        assert "accept each such change on its own" in answer["why"]
    assert not (project / ".envrc").exists()
    assert editor.text("calc.py") == FIXED, "the ordinary hunk was accepted"
    warned = await wait_until(
        lambda: [m for m in editor.client.messages if ".envrc changes how tools run" in m.message],
        what="the warning that .envrc was left out",
    )
    assert warned[0].type == types.MessageType.Warning

    await command(editor.client, "surehand.review.accept", {"id": envrc.code})

    done = await outcome(editor)
    assert done["outcome"] == "applied", done
    assert files_of(done) == {"calc.py": "applied", ".envrc": "applied"}
    assert (project / ".envrc").read_text() == "export A=1\n"
