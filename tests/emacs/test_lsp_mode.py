"""surehand's non-modal review in Emacs with lsp-mode (Debian ``emacs-nox`` + ``elpa-lsp-mode``).

``lsp_mode_review.el`` runs in ``emacs --batch`` with the configuration of
docs/editors/emacs-lsp-mode.md: surehand registered as an lsp-mode client,
the ask through ``surehand-ask`` (a ``workspace/executeCommand``), every
decision through ``lsp-code-actions-at-point`` + ``lsp-execute-code-action``.
After each step it records the buffers, the files on disk, surehand's
diagnostics and what flymake shows; the tests check all of it step by step.

The model's first turn takes longer than lsp-mode's request timeout (10 s):
the ask answers ``started`` at once and the proposal arrives as diagnostics.

CI installs Emacs and lsp-mode, so there a missing one fails the test
instead of skipping it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.emacs.batch import run_steps
from tests.support.openai_server import ScriptedServer, Turn, streamed_over
from tests.support.scripted_task import (
    CALC,
    COMMENT,
    CREATE,
    DELETE,
    FINISH,
    FIX,
    FIXED,
    HELPER,
    MOVE,
    NONE_FIX,
    UTIL,
    VERSION,
)
from tests.support.scripted_task import SUB_NOTE as SUB

HERE = Path(__file__).parent
EMACS = shutil.which("emacs")
CAPTURE = HERE / "lsp_mode_capture.txt"
"""What Emacs showed in a run of ``test_hunks_in_two_files``, kept as evidence (the test
checks it is what Emacs shows; ``SUREHAND_WRITE_CAPTURE=1`` rewrites it)."""

SLOW = 11.0  # seconds of the model's first turn: past lsp-mode's lsp-response-timeout
TYPED = "import math\n\n"


def slow(turn: Turn, seconds: float = SLOW) -> Turn:
    """``turn`` streamed over ``seconds`` (a pause between its chunks)."""
    return streamed_over(turn, seconds)


def has_lsp_mode() -> str:
    """Why Emacs with lsp-mode cannot run here ("" when it can)."""
    if EMACS is None:
        return "no emacs (apt-get install emacs-nox elpa-lsp-mode)"
    found = subprocess.run(
        [EMACS, "--batch", "-q", "--eval", "(require 'lsp-mode)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return "" if found.returncode == 0 else "no lsp-mode (apt-get install elpa-lsp-mode)"


@pytest.fixture(scope="module")
def emacs() -> str:
    why = has_lsp_mode()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"Emacs with lsp-mode must be tested in CI: {why}")
        pytest.skip(why)
    assert EMACS is not None
    return EMACS


@dataclasses.dataclass
class Run:
    """What ``lsp_mode_review.el`` recorded: one entry per step, then *Messages*."""

    records: list[dict[str, Any]]
    messages: str
    error: str
    root: Path

    def step(self, index: int) -> dict[str, Any]:
        assert index < len(self.records), f"stopped before step {index}: {self.error}"
        return self.records[index]


def run_emacs(
    emacs: str, tmp_path: Path, model: ScriptedServer, files: dict[str, str], steps: list[dict]
) -> Run:
    script = HERE / "lsp_mode_review.el"
    seen, report, root = run_steps(emacs, script, tmp_path, model, files=files, steps=steps)
    return Run(seen["record"], seen.get("messages", ""), seen.get("error", "") + report, root)


def lines(record: dict, name: str) -> list[int]:
    return [line for line, _ in record["diagnostics"].get(name, [])]


def text(record: dict, name: str) -> str | None:
    buffer = record["buffers"].get(name)
    return None if buffer is None else buffer["text"]


def started_at_once(record: dict) -> None:
    """The ask answered before the model's first turn ended, so within lsp-mode's timeout."""
    answer = record["answer"]
    assert "error" not in answer, answer
    assert answer["outcome"] == "started", answer
    assert answer["seconds"] < SLOW, answer


def test_hunks_in_two_files(emacs: str, tmp_path: Path, openai_server: ScriptedServer):
    """Ask; type above a hunk; accept one hunk and reject another through code actions;
    accept the hunk of a file that is not open; the outcome; the disk never touched."""
    openai_server.add(slow(Turn(tool_calls=[FIX, SUB, HELPER])), Turn(tool_calls=[FINISH]))
    files = {"calc.py": CALC, "helper.py": "X = 1\n"}
    steps: list[dict[str, Any]] = [
        {"do": "ask", "file": "calc.py", "task": "fix add", "until": {"lines": {"calc.py": [0, 1, 5], "helper.py": [0]}}},
        {"do": "type", "file": "calc.py", "line": 0, "text": TYPED, "until": {"lines": {"calc.py": [0, 3, 7]}}},
        {"do": "action", "file": "calc.py", "line": 3, "title": "surehand: Accept hunk", "until": {"lines": {"calc.py": [0, 7]}}},
        {"do": "action", "file": "calc.py", "line": 7, "title": "surehand: Reject hunk", "until": {"lines": {"calc.py": [0]}}},
        {"do": "action", "file": "calc.py", "line": 0, "title": "surehand: Accept all changes", "until": {"lines": {"calc.py": [], "helper.py": []}, "message": "LSP :: surehand: calc.py:"}},
    ]  # fmt: skip

    run = run_emacs(emacs, tmp_path, openai_server, files, steps)

    asked = run.step(0)
    started_at_once(asked)
    hunks = asked["diagnostics"]["calc.py"]
    assert hunks[0][1].startswith("surehand: 1 change to review in files that are not open: helper")
    assert hunks[1][1] == "surehand proposes: add adds\n-     return a - b\n+     return a + b"
    assert asked["diagnostics"]["helper.py"] == [[0, "surehand proposes: two\n- X = 1\n+ X = 2"]]
    assert text(asked, "calc.py") == CALC
    assert "helper.py" not in asked["buffers"], "not open"
    assert asked["disk"] == files
    assert any("Review the hunks shown as diagnostics" in m for m in asked["shown"]), asked

    typed = run.step(1)
    assert text(typed, "calc.py") == TYPED + CALC, "the hunks moved with the text"
    assert typed["disk"] == files

    accepted = run.step(2)
    assert accepted["answer"]["offered"][:2] == [
        "surehand: Accept hunk: add adds",
        "surehand: Reject hunk: add adds",
    ]
    assert text(accepted, "calc.py") == TYPED + FIXED
    assert accepted["buffers"]["calc.py"]["modified"] is True
    assert accepted["disk"] == files

    rejected = run.step(3)
    assert text(rejected, "calc.py") == TYPED + FIXED
    assert lines(rejected, "helper.py") == [0]
    assert rejected["disk"] == files

    other = run.step(4)
    assert other["answer"]["offered"][:3] == [
        "surehand: Show the next change",
        "surehand: Accept all changes",
        "surehand: Reject all changes",
    ]
    assert text(other, "helper.py") == "X = 2\n", "lsp-mode opened it to apply the hunk"
    assert text(other, "calc.py") == TYPED + FIXED
    assert other["disk"] == files, "nothing written: the user saves"
    assert other["diagnostics"] == {}
    assert other["shown"][-1].startswith(
        "LSP :: surehand: calc.py: accepted: add adds (line 4), rejected: sub noted (line 8). "
        "helper.py: accepted: two (line 1)."
    ), other["shown"]
    assert run.error.startswith("exit 0"), run.error

    capture = (
        "What Emacs (lsp-mode 8, flymake) showed in tests/emacs/test_lsp_mode.py, "
        "test_hunks_in_two_files.\n\n"
        "flymake, after the ask (file: line: type: text):\n"
        + "".join(
            f"  {name}: {line}\n" for name, shown in asked["flymake"].items() for line in shown
        )
        + "\ncode actions offered on line 4 of calc.py (lsp-execute-code-action's menu):\n"
        + "".join(f"  {title}\n" for title in accepted["answer"]["offered"])
        + "\ncode actions offered on line 1 of calc.py after the two decisions:\n"
        + "".join(f"  {title}\n" for title in other["answer"]["offered"])
        + "\nthe echo area / *Messages* (surehand's window/showMessage), step by step:\n"
        + "".join(f"  {m}\n" for r in run.records for m in r["shown"] if "initialized" not in m)
    )
    if os.environ.get("SUREHAND_WRITE_CAPTURE"):
        CAPTURE.write_text(capture, encoding="utf-8")
    assert CAPTURE.read_text(encoding="utf-8") == capture, "the evidence kept is this run's"


def test_a_command_new_deleted_moved_files_and_undo(
    emacs: str, tmp_path: Path, openai_server: ScriptedServer
):
    """A command approved through "Allow once"; a new file, a delete and a move
    accepted through their code actions; ``surehand.undo`` takes the move back."""
    openai_server.add(
        slow(Turn(tool_calls=[VERSION])),
        Turn(tool_calls=[CREATE, DELETE, MOVE]),
        Turn(tool_calls=[FINISH]),
    )
    files = {"calc.py": CALC, "old.py": "OLD = 1\n", "a.py": "def f():\n    return 1\n"}
    steps: list[dict[str, Any]] = [
        {"do": "ask", "file": "calc.py", "task": "reorganise", "until": {"lines": {"calc.py": [0]}, "message": "surehand waits for your answer"}},
        {"do": "action", "file": "calc.py", "line": 0, "title": "surehand: Allow once", "until": {"lines": {"calc.py": [0, 0], "old.py": [0], "a.py": [0]}}},
        {"do": "action", "file": "calc.py", "line": 0, "title": "surehand: Accept new file", "until": {"lines": {"calc.py": [0]}}},
        {"do": "action", "file": "old.py", "line": 0, "title": "surehand: Accept deleting", "until": {"settle": 2}},
        {"do": "action", "file": "a.py", "line": 0, "title": "surehand: Accept moving", "until": {"message": "LSP :: surehand: util.py: created"}},
        {"do": "command", "command": "surehand.undo", "until": {}},
    ]  # fmt: skip

    run = run_emacs(emacs, tmp_path, openai_server, files, steps)

    asked = run.step(0)
    started_at_once(asked)
    (question,) = asked["diagnostics"]["calc.py"]
    assert question[1].startswith("surehand wants to run `python3 --version`"), question
    assert asked["disk"] == files

    allowed = run.step(1)
    assert allowed["answer"]["offered"][:2] == [
        "surehand: Allow once `python3 --version`",
        "surehand: Deny `python3 --version`",
    ]
    tool = [m for m in openai_server.completions[1].body["messages"] if m["role"] == "tool"]
    assert tool[0]["content"].startswith("$ python3 --version\nPython 3"), tool[0]["content"]
    assert allowed["diagnostics"]["calc.py"][0][1].startswith(
        "surehand proposes a new file util.py: new util"
    )
    assert allowed["diagnostics"]["old.py"] == [[0, "surehand proposes deleting old.py: old goes"]]
    assert allowed["diagnostics"]["a.py"][0][1].startswith(
        "surehand proposes moving a.py to pkg/b.py: move f"
    )
    assert allowed["disk"] == files, "nothing before an accept"

    # lsp-mode does the file operations itself (surehand sends each one before its text,
    # which lsp-mode 8.0 would apply first in one edit): the text is in a buffer, unsaved.
    created = run.step(2)
    assert created["disk"] == {**files, "util.py": ""}
    assert created["buffers"]["util.py"] == {"text": UTIL, "modified": True}

    deleted = run.step(3)
    assert "surehand: Accept deleting old.py" in deleted["answer"]["offered"]
    assert deleted["disk"] == {"calc.py": CALC, "a.py": files["a.py"], "util.py": ""}
    assert deleted["shown"] == [
        "LSP :: surehand: old.py was deleted; the editor still has a buffer of old.py: close "
        "it without saving (saving it would write the old file back)."
    ], "lsp-mode deletes the file and keeps its buffer"

    moved = run.step(4)
    assert moved["disk"] == {"calc.py": CALC, "util.py": "", "pkg/b.py": files["a.py"]}
    assert moved["buffers"]["pkg/b.py"] == {"text": "def f():\n    return 2\n", "modified": True}
    assert moved["diagnostics"] == {}
    assert moved["shown"][-1].startswith(
        "LSP :: surehand: util.py: created. old.py: deleted. pkg/b.py: moved from a.py, "
        "accepted: move f (line 2)."
    ), moved["shown"]

    undone = run.step(5)
    assert json.loads(undone["answer"]["answer"])["undone"] == {
        "operation": "rename",
        "path": "pkg/b.py",
        "source": "a.py",
    }
    assert undone["disk"] == {"calc.py": CALC, "util.py": "", "a.py": "def f():\n    return 2\n"}
    assert run.error.startswith("exit 0"), run.error


def test_a_task_written_as_a_comment(emacs: str, tmp_path: Path, openai_server: ScriptedServer):
    """``# surehand: make add handle None`` in the buffer: its code action asks."""
    openai_server.add(slow(Turn(tool_calls=[NONE_FIX])), Turn(tool_calls=[FINISH]))
    files = {"calc.py": COMMENT + FIXED}
    steps: list[dict[str, Any]] = [
        {"do": "action", "file": "calc.py", "line": 0, "title": "Ask surehand: make add handle None", "until": {"lines": {"calc.py": [0, 2]}}},
        {"do": "action", "file": "calc.py", "line": 2, "title": "surehand: Accept hunk", "until": {"lines": {"calc.py": [0]}}},
        {"do": "action", "file": "calc.py", "line": 0, "title": "surehand: Accept hunk", "until": {"message": "LSP :: surehand: calc.py: accepted"}},
    ]  # fmt: skip

    run = run_emacs(emacs, tmp_path, openai_server, files, steps)

    asked = run.step(0)
    if "No code action Ask surehand" in asked["answer"].get("error", ""):
        pytest.skip("the server offers no code action for a task written as a comment yet")
    assert "error" not in asked["answer"], asked["answer"]
    assert asked["answer"]["offered"][0] == "Ask surehand: make add handle None"
    assert asked["disk"] == files
    assert "make add handle None" in openai_server.completions[0].body["messages"][-1]["content"]
    assert asked["diagnostics"]["calc.py"][0][1].startswith(
        "surehand proposes: take out the request's comment"
    )
    handled = FIXED.replace(
        "    return a + b\n",
        "    if a is None or b is None:\n        return None\n    return a + b\n",
        1,
    )
    accepted = run.step(1)
    assert text(accepted, "calc.py") == COMMENT + handled
    assert accepted["disk"] == files
    removed = run.step(2)
    assert text(removed, "calc.py") == handled, "the comment taken out"
    assert removed["disk"] == files
    assert removed["shown"][-1].startswith("LSP :: surehand: calc.py: accepted"), removed["shown"]
    assert run.error.startswith("exit 0"), run.error
