"""A whole task: the real OpenAI client talking HTTP to a scripted server, real tools,
tests run in the shadow copy, the user's files untouched until the proposal is applied."""

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.events import Event, ModelCalling
from agent.loop.session import Session
from agent.models.openai_client import OpenAIClient
from agent.staging.proposal import Ending
from agent.trace import read_trace
from editing.disk.workdir import Workdir
from tests.support.openai_server import Call, ScriptedServer, Turn

pytestmark = pytest.mark.slow

CALC = "def add(a, b):\n    return a - b\n"
TEST = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class AddTest(unittest.TestCase):\n    def test_add(self):\n"
    "        self.assertEqual(add(2, 3), 5)\n"
)
RUN_TESTS = Call("run_command", {"command": "python3 -m unittest", "timeout": None})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    (root / "test_calc.py").write_text(TEST, encoding="utf-8")
    return root


def solve(server: ScriptedServer) -> None:
    server.add(
        Turn("Let me run the tests.", [RUN_TESTS]),
        Turn(
            tool_calls=[
                Call("view_file", {"path": "calc.py", "start_line": None, "end_line": None})
            ]
        ),
        # Quoted without indentation: the engine re-indents it.
        Turn(
            tool_calls=[
                Call(
                    "edit",
                    {
                        "path": "calc.py",
                        "old": "return a - b\n",
                        "new": "return a + b\n",
                        "replace_all": None,
                        "description": "add adds",
                    },
                )
            ]
        ),
        Turn(tool_calls=[RUN_TESTS]),
        Turn(tool_calls=[Call("finish", {"summary": "add now adds; the test passes."})]),
    )


def test_task_through_the_real_client_and_shadow_copy(project: Path, openai_server, tmp_path):
    solve(openai_server)
    settings = Settings(
        model=openai_server.model,
        base_url=openai_server.base_url,
        trace_dir=str(tmp_path / "traces"),
    )

    events: list[Event] = []

    async def work():
        client = OpenAIClient(settings, backoff=0.01)
        session = Session(project, client, settings)
        try:
            return await session.run("Make the test pass.", on_event=events.append)
        finally:
            await session.close()

    proposal = asyncio.run(work())

    assert proposal.end.ending == Ending.FINISHED
    assert [(c.path, c.after) for c in proposal.changes] == [("calc.py", CALC.replace("-", "+"))]
    assert (project / "calc.py").read_text() == CALC  # untouched until applied
    results = [
        m["content"] for m in openai_server.completions[-1].body["messages"] if m["role"] == "tool"
    ]
    assert "FAILED (failures=1)" in results[0]
    assert results[3].rstrip().endswith("[exit code 0]")
    assert "OK" in results[3]
    sent_tools = {t["function"]["name"] for t in openai_server.completions[0].body["tools"]}
    assert {"view_file", "grep", "edit", "apply_patch", "run_command", "finish"} <= sent_tools
    steps = [e for e in read_trace(proposal.trace) if e["type"] == "step"]
    assert [s["tools"][0]["name"] for s in steps] == [
        "run_command",
        "view_file",
        "edit",
        "run_command",
        "finish",
    ]
    assert all(s["model_ms"] >= 0 for s in steps)
    # Each call was announced while its arguments were still streaming in.
    assert [e.name for e in events if isinstance(e, ModelCalling)] == [
        "run_command",
        "view_file",
        "edit",
        "run_command",
        "finish",
    ]

    Workdir(project).write(proposal.writes())
    check = subprocess.run(
        [sys.executable, "-m", "unittest"], cwd=project, capture_output=True, check=False
    )
    assert check.returncode == 0


def surehand_run(project: Path, server: ScriptedServer, *flags: str, answers: str = ""):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "surehand.terminal.commands",
            "run",
            "Make the test pass.",
            "--workspace",
            str(project),
            "--base-url",
            server.base_url,
            "--model",
            server.model,
            *flags,
        ],
        input=answers,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(project.parent),
            "OPENAI_API_KEY": "sk-test",
            "XDG_STATE_HOME": str(project.parent / "state"),
        },
    )


def test_surehand_run_applies_only_after_yes(project: Path, openai_server):
    solve(openai_server)
    declined = surehand_run(project, openai_server, answers="n\n")
    assert declined.returncode == 1, declined.stderr
    assert "[3] Editing calc.py" in declined.stdout
    assert "-    return a - b" in declined.stdout and "+    return a + b" in declined.stdout
    assert "Nothing was written." in declined.stdout
    assert (project / "calc.py").read_text() == CALC

    solve(openai_server)
    accepted = surehand_run(project, openai_server, "--yes")
    assert accepted.returncode == 0, accepted.stderr
    assert (project / "calc.py").read_text() == CALC.replace("-", "+")


def test_surehand_run_asks_before_a_command_outside_the_allowlist(project: Path, openai_server):
    (project / "check.py").write_text("print('checked')\n", encoding="utf-8")
    openai_server.add(
        Turn(tool_calls=[Call("run_command", {"command": "python3 check.py", "timeout": None})]),
        Turn(tool_calls=[Call("finish", {"summary": "checked"})]),
    )
    denied = surehand_run(project, openai_server, answers="n\n")
    assert (
        "surehand wants to run `python3 check.py` (it is not on the allowlist). It would run "
        "in a copy of the workspace, sandboxed (bubblewrap"
    ) in denied.stdout
    assert "Run `python3 check.py`? [o]nce / always / [N]o" in denied.stdout
    assert denied.stdout.startswith("Commands run sandboxed (bubblewrap")
    tool_result = openai_server.completions[-1].body["messages"][-1]["content"]
    assert "declined" in tool_result

    openai_server.add(
        Turn(tool_calls=[Call("run_command", {"command": "python3 check.py", "timeout": None})]),
        Turn(tool_calls=[Call("finish", {"summary": "checked"})]),
    )
    surehand_run(project, openai_server, answers="o\n")
    tool_result = openai_server.completions[-1].body["messages"][-1]["content"]
    assert tool_result == "$ python3 check.py\nchecked\n[exit code 0]"


def test_surehand_run_reports_an_unreachable_endpoint(project: Path):
    closed = ScriptedServer()
    closed.start()
    closed.stop()
    result = surehand_run(project, closed)
    assert result.returncode == 2
    assert "Cannot reach the model endpoint" in result.stdout
    assert "Traceback" not in result.stderr
