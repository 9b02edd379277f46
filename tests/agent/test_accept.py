"""``surehand run`` at the answer: the proposal lands on the files as they are then.

Real processes: ``surehand run`` (``python -m surehand.terminal.commands run``) against the
scripted OpenAI-compatible server, with its stdin and stdout on pipes; the
test changes the file on disk while the question is open, then answers.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agent.staging.history import History
from agent.trace import read_trace
from tests.support.openai_server import HttpError, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, edit

pytestmark = pytest.mark.slow

QUESTION = "Apply these changes to your files? [y/N]"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    return root


class Run:
    """``surehand run`` in a child process, its output collected as it comes."""

    def __init__(self, project: Path, server: ScriptedServer) -> None:
        self.traces = project.parent / "state" / "surehand" / "traces"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "surehand.terminal.commands",
                "run",
                "Fix add.",
                "--workspace",
                str(project),
                "--base-url",
                server.base_url,
                "--model",
                server.model,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={
                "PATH": "/usr/bin:/bin",
                "HOME": str(project.parent),
                "OPENAI_API_KEY": "sk-test",
                "XDG_STATE_HOME": str(project.parent / "state"),
            },
        )
        self.out = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while char := self.process.stdout.read(1):
            self.out += char

    def wait_for(self, text: str, count: int = 1, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.out.count(text) < count:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                raise AssertionError(f"no {text!r} (x{count}) in:\n{self.out}")
            time.sleep(0.02)

    def answer(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def finish(self) -> int:
        try:
            code = self.process.wait(timeout=60)
        finally:
            self.process.kill()
        self._reader.join(timeout=10)
        assert self.process.stderr is not None
        stderr = self.process.stderr.read()
        assert "Traceback" not in stderr, stderr
        return code


def test_a_change_made_on_disk_before_yes_is_kept_and_the_fix_rebased_onto_it(
    project: Path, openai_server: ScriptedServer
):
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    run = Run(project, openai_server)
    run.wait_for(QUESTION)
    users = CALC.replace("def sub(a, b):\n    return a - b", "def sub(a, b):\n    return b - a")
    (project / "calc.py").write_text(users, encoding="utf-8")
    run.answer("y")
    run.wait_for(QUESTION, count=2)
    run.answer("y")

    assert run.finish() == 0, run.out
    assert (project / "calc.py").read_text(encoding="utf-8") == users.replace(
        "return a - b", "return a + b", 1
    )
    assert "calc.py changed while you were deciding" in run.out
    assert "calc.py changed since the agent read it; the changes are rebased" in run.out
    assert run.out.count(QUESTION) == 2, "asked again about the text as it is now"
    assert "Applied. calc.py: accepted: add adds (line 2), rebased onto your changes." in run.out
    last = History.of(project, project.parent / "state").last()
    assert last is not None
    (written,) = last.files
    assert (written.path, written.before, written.after) == (
        "calc.py",
        users,
        (project / "calc.py").read_text(encoding="utf-8"),
    ), "recorded for surehand undo: the text it landed on, the text written"


def test_the_user_editing_the_same_line_is_a_conflict_and_their_text_is_kept(
    project: Path, openai_server: ScriptedServer
):
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    run = Run(project, openai_server)
    run.wait_for(QUESTION)
    users = CALC.replace("return a - b", "return b + a", 1)
    (project / "calc.py").write_text(users, encoding="utf-8")
    run.answer("y")

    assert run.finish() == 1, run.out
    assert (project / "calc.py").read_text(encoding="utf-8") == users
    assert "calc.py:2: left out, in conflict with your change (add adds)." in run.out
    assert "Not applied: conflicts with your changes." in run.out
    (trace,) = run.traces.glob("*.jsonl")
    review = read_trace(trace)[-1]
    assert review["type"] == "review" and review["outcome"] == "conflict"
    assert review["files"][0]["hunks"] == [
        {"label": "add adds", "line": 2, "status": "conflict", "rebased": True}
    ]


def test_a_file_created_on_disk_meanwhile_is_not_overwritten(
    project: Path, openai_server: ScriptedServer
):
    create = edit("", "def mul(a, b):\n    return a * b\n", "add mul", path="mul.py")
    openai_server.add(Turn(tool_calls=[create, FIX]), Turn(tool_calls=[FINISH]))
    run = Run(project, openai_server)
    run.wait_for(QUESTION)
    (project / "mul.py").write_text("# mine\n", encoding="utf-8")
    run.answer("y")
    run.wait_for(QUESTION, count=2)
    run.answer("y")

    assert run.finish() == 0, run.out
    assert (project / "mul.py").read_text(encoding="utf-8") == "# mine\n"
    assert (project / "calc.py").read_text(encoding="utf-8") == FIXED
    assert "mul.py: left alone, mul.py exists now." in run.out
    assert "Partly applied." in run.out


def test_a_model_error_after_staged_changes_offers_them_marked_incomplete(
    project: Path, openai_server: ScriptedServer
):
    openai_server.add(Turn(tool_calls=[FIX]), HttpError(401))
    run = Run(project, openai_server)
    run.wait_for(QUESTION)
    assert "The task stopped before the model finished (the model failed:" in run.out
    assert "These are the changes staged so far, incomplete:" in run.out
    run.answer("y")

    assert run.finish() == 2, run.out
    assert (project / "calc.py").read_text(encoding="utf-8") == FIXED
    assert "Incomplete (the model failed:" in run.out
