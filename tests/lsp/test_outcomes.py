"""Outcomes tell the truth: what each hunk and file became, in the command result, the
trace and what the model hears next; refusal reasons as codes; a model error keeps the
staged work for review; shutting down mid-task stops cleanly."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import tempfile
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lsprotocol import types

from agent.trace import read_trace
from tests.lsp.editor import Editor, Editors, ask, document_changes, new_text, wait_until
from tests.lsp.test_cancel import alive, sleepers
from tests.support.openai_server import Call, Hang, HttpError, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, edit, task_sent

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

MATHS = (
    "def add(a, b):\n    return a + b\n\n\n"
    "def mul(a, b):\n    return a * b\n\n\n"
    "def sub(a, b):\n    return a - b\n"
)
DROP_MUL = edit("def mul(a, b):\n    return a * b\n\n\n", "", "drop mul", path="maths.py")
ADD_DOUBLE = edit(
    "def sub(a, b):\n    return a - b\n",
    "def sub(a, b):\n    return a - b\n\n\ndef double(x):\n    return 2 * x\n",
    "add double",
    path="maths.py",
)
WITHOUT_MUL = MATHS.replace("def mul(a, b):\n    return a * b\n\n\n", "")
WITH_DOUBLE = MATHS + "\n\ndef double(x):\n    return 2 * x\n"


@pytest.fixture
def project_files() -> dict[str, str]:
    return {"calc.py": CALC, "maths.py": MATHS}


@pytest.fixture
def editor_settings() -> dict:
    return {"commandAllowlist": ["sleep"]}


def proposed_edits(editor: Editor) -> list[dict]:
    """The text edits of the first proposal as plain JSON, as the client receives them."""
    edit_ = editor.edits[0].edit
    annotations = edit_.change_annotations or {}
    return [
        {
            "range": [
                [e.range.start.line, e.range.start.character],
                [e.range.end.line, e.range.end.character],
            ],
            "newText": new_text(e),
            "label": (
                annotations[e.annotation_id].label
                if isinstance(e, types.AnnotatedTextEdit) and e.annotation_id
                else None
            ),
        }
        for change in document_changes(editor.edits[0])
        if isinstance(change, types.TextDocumentEdit)
        for e in change.edits
    ]


async def test_two_edits_are_two_hunks_each_labelled_and_each_acceptable_alone(
    editors: Editors, openai_server: ScriptedServer
):
    editor = await editors.open("vscode")
    editor.open("maths.py")
    editor.reject_labels = {"drop mul"}
    openai_server.add(
        Turn(tool_calls=[DROP_MUL, ADD_DOUBLE]),
        Turn(tool_calls=[Call("finish", {"summary": "Dropped mul and added double."})]),
    )

    result = await ask(editor.client, "Drop mul, add double.")

    assert proposed_edits(editor) == [
        {"range": [[4, 0], [8, 0]], "newText": "", "label": "drop mul"},
        {
            "range": [[10, 0], [10, 0]],
            "newText": "\n\ndef double(x):\n    return 2 * x\n",
            "label": "add double",
        },
    ]
    assert editor.text("maths.py") == WITH_DOUBLE, "exactly the accepted edit"
    assert result["outcome"] == "partly_applied", result
    assert result["details"] == [
        {
            "path": "maths.py",
            "operation": "edit",
            "status": "partly_applied",
            "hunks": [
                {"label": "drop mul", "line": 5, "status": "rejected", "rebased": False},
                {"label": "add double", "line": 11, "status": "accepted", "rebased": False},
            ],
        }
    ]
    assert result["summary"] == (
        "maths.py: accepted: add double (line 11), rejected: drop mul (line 5)."
    )
    assert "Dropped mul" not in result["summary"], "the model's summary is not the outcome"
    assert result["modelSummary"] == "Dropped mul and added double."

    (trace,) = Path(editors.settings["traceDir"]).glob("*.jsonl")
    review = read_trace(trace)[-1]
    assert (review["type"], review["outcome"]) == ("review", "partly_applied")
    assert review["files"] == result["details"]

    openai_server.add(Turn(content="OK."))
    await ask(editor.client, "Thanks.")
    told = task_sent(openai_server)
    assert "- maths.py: accepted: add double (line 11), rejected: drop mul (line 5)." in told


async def test_the_other_hunk_alone(editors: Editors, openai_server: ScriptedServer):
    editor = await editors.open("vscode")
    editor.open("maths.py")
    editor.reject_labels = {"add double"}
    openai_server.add(Turn(tool_calls=[DROP_MUL, ADD_DOUBLE]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Drop mul, add double.")

    assert editor.text("maths.py") == WITHOUT_MUL
    assert result["files"] == {"maths.py": "partly_applied"}


async def test_a_rename_accepted_with_its_change_rejected_is_reported_so(
    editors: Editors, openai_server: ScriptedServer, project: Path
):
    (project / "a.py").write_text("def f():\n    return 1\n")
    editor = await editors.open("vscode")
    editor.reject_labels = {"move f"}  # unticks the text edit; the move itself goes
    patch = (
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: pkg/b.py\n@@ def f():\n"
        "-    return 1\n+    return 2\n*** End Patch"
    )
    openai_server.add(
        Turn(tool_calls=[Call("apply_patch", {"patch": patch, "description": "move f"})]),
        Turn(tool_calls=[FINISH]),
    )

    result = await ask(editor.client, "Move f.")

    assert (project / "pkg/b.py").read_text() == "def f():\n    return 1\n"
    assert not (project / "a.py").exists()
    (details,) = result["details"]
    assert details["operation"] == "rename" and details["operationAccepted"] is True
    assert details["status"] == "partly_applied"
    assert [h["status"] for h in details["hunks"]] == ["rejected"]

    openai_server.add(Turn(content="OK."))
    await ask(editor.client, "Thanks.")
    assert "- pkg/b.py: moved from a.py, rejected: move f (line 2)." in task_sent(openai_server)


async def test_refusal_reasons_travel_as_codes(editors: Editors, openai_server: ScriptedServer):
    editor = await editors.open("vscode")
    ambiguous = edit("    return a - b\n", "    return a + b\n", "fix one")  # twice in calc.py
    openai_server.add(
        Turn(tool_calls=[ambiguous]), Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH])
    )

    result = await ask(editor.client, "Fix add.")

    assert result["refusals"] == [
        {"step": 1, "tool": "edit", "reason": "ambiguous", "path": "calc.py"}
    ]
    finished = [s for s in editor.steps if s["kind"] == "tool_finished"]
    assert [s["reason"] for s in finished][:2] == ["ambiguous", None]
    (trace,) = Path(editors.settings["traceDir"]).glob("*.jsonl")
    entries = read_trace(trace)
    assert entries[1]["tools"][0]["reason"] == "ambiguous"
    end = next(e for e in entries if e["type"] == "end")
    assert end["refusals"] == result["refusals"]


@pytest.mark.parametrize("flavour", ["vscode", "neovim"])
async def test_a_model_error_after_staged_changes_offers_them_marked_incomplete(
    editors: Editors, openai_server: ScriptedServer, flavour: str
):
    editor = await editors.applying(flavour)
    editor.open("calc.py")
    openai_server.add(Turn(tool_calls=[FIX]), HttpError(401))

    result = await ask(editor.client, "Fix add.")

    assert result["ending"] == "model_error", result
    assert result["incomplete"] is True
    assert result["outcome"] == "applied"
    assert editor.text("calc.py") == FIXED
    assert result["summary"].startswith("Incomplete (the model failed: "), result["summary"]
    label = editor.edits[0].label or ""
    assert label.startswith("surehand (incomplete"), label
    if flavour == "neovim":
        (question,) = editor.asked
        assert "stopped before it finished" in question.message


def shadows_of(marker: str) -> list[Path]:
    """Shadow copies of the project (found by its marker file) left in the temp dir: a
    full copy holds the marker, an overlay names the workspace in its owner file."""
    temp = Path(tempfile.gettempdir())
    return [d for d in temp.glob("surehand-shadow-*") if _holds(d, marker)]


def _holds(shadow: Path, marker: str) -> bool:
    if (shadow / "copy" / marker).exists():
        return True
    try:
        workspace = json.loads((shadow / "owner").read_text())["workspace"]
    except (OSError, ValueError, KeyError):
        return False
    return (shadow / "upper").is_dir() and (Path(workspace) / marker).exists()


@contextlib.asynccontextmanager
async def killed_on_failure(server: asyncio.subprocess.Process) -> AsyncIterator[None]:
    """Kill the server process (and reap it) if the block fails: no server outlives a test."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server.pid, signal.SIGKILL)
        await server.wait()
        raise


@pytest.mark.parametrize("waiting_on", ["command", "question", "review"])
async def test_shutting_down_mid_task_stops_cleanly(
    editors: Editors, openai_server: ScriptedServer, project: Path, capfd, waiting_on: str
):
    """No internal error answer, no traceback flood, no shadow copy left behind: while
    a command runs, while the user is asked (and never answers) whether one may, or
    while the user reviews the proposal."""
    marker = f"marker-{uuid.uuid4().hex}.txt"
    (project / marker).write_text("")
    editor = await editors.open("vscode", commandAllowlist=["sleep", "ls"])
    editor.open("calc.py")
    editor.hold_questions = editor.hold_edits = True
    ls = Call("run_command", {"command": "ls", "timeout": None})  # makes the shadow copy
    command = {"command": "sleep 30", "question": "python3 -c pass", "review": "ls"}[waiting_on]
    openai_server.add(
        Turn(tool_calls=[FIX, ls, Call("run_command", {"command": command, "timeout": None})]),
        Turn(tool_calls=[FINISH]),
    )
    pending = asyncio.ensure_future(ask(editor.client, "Fix add."))
    await wait_until(lambda: shadows_of(marker), what="the shadow copy")
    if waiting_on == "command":
        await wait_until(lambda: sleepers(editor), what="the command's process")
    if waiting_on == "question":
        await wait_until(lambda: editor.asked, what="the question")
    if waiting_on == "review":
        await wait_until(lambda: editor.edits, what="the proposal")

    server = editor.client._server
    assert server is not None
    async with killed_on_failure(server):
        await asyncio.wait_for(editor.client.shutdown_async(None), 5)
        answer = await asyncio.wait_for(pending, 5)
        editor.closing.set()  # the client answers its held question before the server goes
        await asyncio.sleep(0.05)
        editor.client.exit(None)
        await asyncio.wait_for(server.wait(), 5)

    assert answer["outcome"] == "cancelled", answer
    assert server.returncode == 0
    assert shadows_of(marker) == []
    stderr = capfd.readouterr().err
    assert "Traceback" not in stderr, stderr[-3000:]
    assert "dictionary changed size" not in stderr
    assert editor.edits == [] or waiting_on == "review"


@pytest.mark.parametrize("waiting_on", ["command", "model"])
async def test_exit_while_shutdown_still_waits_is_quiet_and_leaves_nothing(
    editors: Editors, openai_server: ScriptedServer, project: Path, capfd, waiting_on: str
):
    """An editor that sends exit right after shutdown, without waiting for its answer
    (the task is still unwinding): exit code 0, not a line of traceback, no shadow copy,
    no command left running."""
    marker = f"marker-{uuid.uuid4().hex}.txt"
    (project / marker).write_text("")
    editor = await editors.open("vscode", commandAllowlist=["sleep", "ls"])
    editor.open("calc.py")
    ls = Call("run_command", {"command": "ls", "timeout": None})
    if waiting_on == "command":
        sleep = Call("run_command", {"command": "sleep 30", "timeout": None})
        openai_server.add(Turn(tool_calls=[FIX, ls, sleep]))
    else:
        openai_server.add(Turn(tool_calls=[FIX, ls]), Hang())
    asking = asyncio.ensure_future(ask(editor.client, "Fix add."))
    await wait_until(lambda: shadows_of(marker), what="the shadow copy")
    if waiting_on == "command":
        await wait_until(lambda: sleepers(editor), what="the command's process")
    else:
        await wait_until(lambda: len(openai_server.completions) == 2, what="the hanging request")
    running = sleepers(editor)

    server = editor.client._server
    assert server is not None
    async with killed_on_failure(server):
        shutting = asyncio.ensure_future(editor.client.shutdown_async(None))
        await asyncio.sleep(0)  # the request is out; exit follows it at once
        editor.client.exit(None)
        await asyncio.wait_for(server.wait(), 5)

    assert server.returncode == 0
    if asking.done() and not asking.cancelled():  # answered before exit, or left unanswered
        error = asking.exception()
        assert error is None or "exited" in str(error), error  # never an internal error
        assert error is not None or asking.result()["outcome"] == "cancelled"
    shutting.cancel()
    await wait_until(lambda: not [p for p in running if alive(p)], what="the command stopped")
    assert shadows_of(marker) == []
    stderr = capfd.readouterr().err
    assert "Traceback" not in stderr, stderr[-3000:]


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "end of input"])
async def test_a_server_stopped_without_exit_leaves_nothing(
    editors: Editors, openai_server: ScriptedServer, project: Path, how: str
):
    """An editor that ends the server without shutdown and exit (Vim's ALE sends SIGTERM;
    a closed terminal, SIGHUP; a crashed editor closes the pipe): the task's command is
    stopped and the shadow copy removed, as on exit."""
    marker = f"marker-{uuid.uuid4().hex}.txt"
    (project / marker).write_text("")
    editor = await editors.open("vscode", commandAllowlist=["sleep"])
    editor.open("calc.py")
    sleep = Call("run_command", {"command": "sleep 30", "timeout": None})
    openai_server.add(Turn(tool_calls=[FIX, sleep]))
    asking = asyncio.ensure_future(ask(editor.client, "Fix add."))
    await wait_until(lambda: shadows_of(marker), what="the shadow copy")
    await wait_until(lambda: sleepers(editor), what="the command's process")
    running = sleepers(editor)

    server = editor.client._server
    assert server is not None
    async with killed_on_failure(server):
        if how == "end of input":
            assert server.stdin is not None
            server.stdin.close()
        else:
            server.send_signal(getattr(signal, how))
        await asyncio.wait_for(server.wait(), 10)

    asking.cancel()
    await wait_until(lambda: not [p for p in running if alive(p)], what="the command stopped")
    assert shadows_of(marker) == []
