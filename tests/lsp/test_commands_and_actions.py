"""The agent's commands put to the user (Allow once / Always / Deny), the
"Ask surehand to fix this" code actions, progress and step notifications in
words, and ``surehand.reset`` forgetting the conversation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.editor import TIMEOUT, Editor, Editors, ask, command, progress, wait_until
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, task_sent

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

TEST_CALC = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class AddTest(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n"
)
# Leaves a file where it runs and prints where that is.
CHECK = "import os\nopen('ran.txt', 'w').write('x')\nprint('checked in', os.getcwd())\n"
RUN_CHECK = Call("run_command", {"command": "python3 check.py", "timeout": None})


@pytest.fixture
def project_files() -> dict[str, str]:
    return {"calc.py": CALC, "test_calc.py": TEST_CALC, "check.py": CHECK}


def tool_results(model: ScriptedServer) -> list[str]:
    """The tool messages of the last request to the model, in order."""
    return [m["content"] for m in model.completions[-1].body["messages"] if m["role"] == "tool"]


# -- run_command approval --------------------------------------------------------------------

DECLINED = (
    "The user declined to run `python3 check.py`. Continue without it, or ask the user to "
    "run it and tell you the result."
)


# The user's answers, how often they are asked, and whether each command runs.
APPROVALS = {
    "deny": (["Deny"], 1, [False]),
    "dismissed": ([], 1, [False]),
    "allow-once": (["Allow once", "Deny"], 2, [True, False]),
    "always": (["Always allow this command"], 1, [True, True]),
}


@pytest.mark.parametrize("case", APPROVALS)
async def test_a_command_outside_the_allowlist_is_put_to_the_user(
    editors: Editors, openai_server: ScriptedServer, project: Path, case: str
):
    choices, asked, ran = APPROVALS[case]
    editor = await editors.open("vscode")
    editor.choices = list(choices)
    for _ in ran:
        openai_server.add(Turn(tool_calls=[RUN_CHECK]))
    openai_server.add(Turn(tool_calls=[Call("finish", {"summary": "Checked."})]))

    result = await ask(editor.client, "Run the check.")

    assert result["outcome"] == "no_changes", result
    assert len(editor.asked) == asked
    question = editor.asked[0]
    assert question.type == types.MessageType.Warning
    assert "`python3 check.py` (it is not on the allowlist)" in question.message
    assert "sandboxed (bubblewrap" in question.message
    assert [a.title for a in question.actions or []] == [
        "Allow once",
        "Deny",
        "Always allow this command",
    ], "never first: a client may pick the first on Enter"
    results = tool_results(openai_server)
    assert len(results) == len(ran)
    for text, did_run in zip(results, ran, strict=True):
        if did_run:
            assert text.startswith("$ python3 check.py\nchecked in ")
            assert text.endswith("[exit code 0]")
            where = text.splitlines()[1].removeprefix("checked in ")
            assert Path(where).resolve() != project.resolve(), "it ran in the shadow copy"
        else:
            assert text == DECLINED
    assert not (project / "ran.txt").exists(), "the user's files are not touched"


async def test_without_a_sandbox_every_command_is_asked_and_the_user_is_warned(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    editor = await editors.open("vscode", sandbox="off")
    editor.choices = ["Allow once"]
    read = Call("run_command", {"command": "cat calc.py", "timeout": None})
    openai_server.add(
        Turn(tool_calls=[read]), Turn(tool_calls=[Call("finish", {"summary": "Read."})])
    )

    await ask(editor.client, "Read calc.py.")

    (question,) = editor.asked  # cat is allowlisted, but only runs unasked in a sandbox
    assert question.message == (
        "surehand wants to run `cat calc.py` (there is no sandbox: turned off by the sandbox "
        "setting). It would run in a copy of the workspace, unsandboxed (turned off by the "
        "sandbox setting), with your user's rights: it can read your files and secrets, use "
        "the network and change files outside the copy."
    )
    assert [a.title for a in question.actions or []] == ["Allow once", "Deny"]
    assert tool_results(openai_server)[0].startswith("$ cat calc.py\ndef add")
    warnings = [m.message for m in editor.client.messages]
    assert (
        "surehand: commands have no sandbox (turned off by the sandbox setting); every command "
        "will be asked first, and runs with your user's rights."
    ) in warnings
    status = await command(editor.client, "surehand.status")
    assert (status["sandbox"]["mode"], status["sandbox"]["contained"]) == ("none", False)


async def test_the_status_and_the_log_say_commands_are_sandboxed(editors: Editors):
    editor = await editors.open("vscode")
    status = await command(editor.client, "surehand.status")
    assert (status["sandbox"]["mode"], status["sandbox"]["contained"]) == ("bubblewrap", True)
    assert status["sandbox"]["description"].startswith("sandboxed (bubblewrap")
    await wait_until(
        lambda: any(
            m.message.startswith("Commands run sandboxed (bubblewrap")
            for m in editor.client.log_messages
        ),
        what="the log line saying how commands run",
    )
    assert editor.client.messages == []


# -- code actions ----------------------------------------------------------------------------


async def code_actions(
    editor: Editor, uri: str, range_: types.Range, diagnostics: list[types.Diagnostic]
) -> list[types.CodeAction]:
    """The code actions offered (surehand's are all ``CodeAction``s, none a bare ``Command``)."""
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=range_,
        context=types.CodeActionContext(diagnostics=diagnostics),
    )
    actions = await asyncio.wait_for(editor.client.text_document_code_action_async(params), TIMEOUT)
    found = []
    for action in actions or []:
        assert isinstance(action, types.CodeAction), action
        found.append(action)
    return found


async def run(editor: Editor, action: types.CodeAction) -> dict:
    """The action's command, run as the editor runs it when the user picks the action."""
    assert action.command is not None and action.command.arguments is not None
    return await command(editor.client, action.command.command, *action.command.arguments)


def span(a: int, b: int, c: int, d: int) -> types.Range:
    return types.Range(
        start=types.Position(line=a, character=b), end=types.Position(line=c, character=d)
    )


def as_json(range_: types.Range) -> dict:
    return {
        "start": {"line": range_.start.line, "character": range_.start.character},
        "end": {"line": range_.end.line, "character": range_.end.character},
    }


async def test_a_diagnostic_gets_a_fix_this_action(editors: Editors, openai_server: ScriptedServer):
    editor = await editors.open("vscode")
    uri = editor.open("calc.py")
    first = types.Diagnostic(range=span(1, 4, 1, 16), message="add subtracts", source="lint")
    second = types.Diagnostic(range=span(5, 4, 5, 16), message="sub is fine", source="lint")

    actions = await code_actions(editor, uri, span(1, 4, 1, 16), [first, second])

    assert [(a.title, a.kind) for a in actions] == [
        ("Ask surehand to fix this", types.CodeActionKind.QuickFix),
        ("Ask surehand to fix this", types.CodeActionKind.QuickFix),
    ]
    action = actions[0]
    assert list(action.diagnostics or []) == [first]
    assert action.command is not None
    assert action.command.command == "surehand.ask"
    assert list(action.command.arguments or []) == [
        {"task": "Fix this problem: add subtracts", "uri": uri, "range": as_json(first.range)}
    ]

    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    result = await run(editor, action)

    assert result["outcome"] == "applied", result
    assert task_sent(openai_server, 0) == (
        "Fix this problem: add subtracts\n\nThe user is in calc.py.\n\n"
        "Lines 2-2 of calc.py, which the request is about:\n2→    return a - b"
    )


async def test_a_selection_gets_one_action_that_sends_its_lines(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("vscode")
    uri = editor.open("calc.py")

    assert await code_actions(editor, uri, span(1, 4, 1, 4), []) == []
    # Lines 1-2 of the file; the selection ends at the start of line 3, which it leaves out.
    actions = await code_actions(editor, uri, span(0, 0, 2, 0), [])

    assert [(a.title, a.kind) for a in actions] == [
        ("Ask surehand to fix this", types.CodeActionKind.RefactorRewrite)
    ]
    action = actions[0]
    assert action.diagnostics is None
    assert action.command is not None
    assert action.command.command == "surehand.ask"
    assert list(action.command.arguments or []) == [
        {"task": "Fix the selected code.", "uri": uri, "range": as_json(span(0, 0, 2, 0))}
    ]

    openai_server.add(Turn(content="It subtracts."))
    result = await run(editor, action)

    assert result["summary"] == "It subtracts.", result
    assert task_sent(openai_server, 0) == (
        "Fix the selected code.\n\nThe user is in calc.py.\n\n"
        "Lines 1-2 of calc.py, which the request is about:\n1→def add(a, b):\n2→    return a - b"
    )


# -- progress, trace, steps ------------------------------------------------------------------


async def test_each_step_is_reported_in_words(editors: Editors, openai_server: ScriptedServer):
    editor = await editors.open("vscode")
    editor.open("calc.py")
    view = Call("view_file", {"path": "calc.py", "start_line": None, "end_line": None})
    tests = Call("run_command", {"command": "python3 -m unittest", "timeout": None})
    openai_server.add(
        Turn(content="Let me look.", tool_calls=[view]),
        Turn(tool_calls=[FIX]),
        Turn(tool_calls=[tests]),
        Turn(tool_calls=[FINISH]),
    )

    result = await ask(editor.client, "Fix add.")

    assert result["outcome"] == "applied", result
    (token,) = editor.client.progress_reports
    begin, *reports, end = progress(editor.client, token)
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert (begin.title, begin.message, begin.cancellable) == ("surehand", "Fix add.", True)
    assert [r.message for r in reports] == [
        "Reading calc.py",
        "Editing calc.py",
        "Running python3 -m unittest",
        "Ran python3: OK",
        "Finishing",
    ]
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert end.message == "add now adds."

    trace = [
        m.message for m in editor.client.log_messages if not m.message.startswith("Commands run")
    ]
    assert {m.type for m in editor.client.log_messages} == {types.MessageType.Log}
    assert trace == [
        "[step 1]",
        "[step 1] model: Let me look.",
        f"[step 1] view_file {json.dumps(view.arguments)}",
        "[step 1] view_file ok: Read calc.py (1-6 of 6)",
        "[step 2]",
        f"[step 2] edit {json.dumps(FIX.arguments)}",
        "[step 2] edit ok: Edited calc.py",
        "[step 3]",
        f"[step 3] run_command {json.dumps(tests.arguments)}",
        "[step 3] run_command ok: python3: OK",
        "[step 4]",
        f"[step 4] finish {json.dumps(FINISH.arguments)}",
        "[step 4] finish ok: add now adds.",
        "[task finished] add now adds.",
    ]

    kinds = [(s["kind"], s.get("tool")) for s in editor.steps]
    assert kinds == [
        ("step_started", None),
        ("model_calling", "view_file"),
        ("tool_started", "view_file"),
        ("tool_finished", "view_file"),
        ("step_started", None),
        ("model_calling", "edit"),
        ("tool_started", "edit"),
        ("tool_finished", "edit"),
        ("step_started", None),
        ("model_calling", "run_command"),
        ("tool_started", "run_command"),
        ("tool_finished", "run_command"),
        ("step_started", None),
        ("model_calling", "finish"),
        ("tool_started", "finish"),
        ("tool_finished", "finish"),
        ("task_ended", None),
    ]
    started = editor.steps[10]
    assert (started["step"], started["summary"]) == (3, "Running python3 -m unittest")
    assert started["arguments"] == '{"command": "python3 -m unittest", "timeout": null}'
    assert editor.steps[11]["ok"] is True
    assert editor.steps[-1] == {
        "kind": "task_ended",
        "ending": "finished",
        "message": "add now adds.",
    }


# -- reset --------------------------------------------------------------------------------------


def roles(model: ScriptedServer) -> list[str]:
    return [m["role"] for m in model.completions[-1].body["messages"]]


async def test_reset_forgets_the_conversation(editors: Editors, openai_server: ScriptedServer):
    editor = await editors.open("vscode")
    editor.open("calc.py")
    editor.accept = False  # the user discards the proposal: a note for the next ask
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    assert (await ask(editor.client, "Fix add."))["outcome"] == "discarded"

    openai_server.add(Turn(content="Hello."))
    await ask(editor.client, "Second.")
    # Without a reset the conversation goes on: task, edit, finish, the new task.
    assert roles(openai_server) == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "user",
    ]

    assert await command(editor.client, "surehand.reset") == {"reset": True}
    status = await command(editor.client, "surehand.status")
    assert (status["busy"], status["staged"]) == (False, 0)
    openai_server.add(Turn(content="Hello again."))
    await ask(editor.client, "Third.")

    messages = openai_server.completions[-1].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == "Third.", "no note about the discarded proposal either"
