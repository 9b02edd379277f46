"""``surehand run`` in a real pseudo-terminal against the scripted server.

What a person sees: the live status line while the model streams, steps as
they happen, honest marks, the tokens at the end, a clean Ctrl-C, and clear
errors for bad paths and an endpoint that does not answer.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pexpect
import pytest

from agent.trace import read_trace
from tests.support.openai_server import Call, Hang, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH

pytestmark = pytest.mark.slow

TIMEOUT = 30
STYLE = r"(?:\x1b\[[\d;]*m)*"  # bold and dim stay on with NO_COLOR


def seen(*parts: str) -> str:
    """A pattern of ``parts`` (regular expressions) with any styling between them."""
    return STYLE.join(parts)


FAILING_TEST = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class AddTest(unittest.TestCase):\n    def test_add(self):\n"
    "        self.assertEqual(add(2, 3), 5)\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    (root / "test_calc.py").write_text(FAILING_TEST, encoding="utf-8")
    return root


def spawn(
    project: Path, server: ScriptedServer, *flags: str, task: str = "Fix add."
) -> pexpect.spawn:
    """``surehand run`` on ``project`` against the scripted ``server``."""
    args = ["run", task, "--base-url", server.base_url, "--model", server.model, *flags]
    return surehand(project, *args)


def surehand(project: Path, *args: str) -> pexpect.spawn:
    """``surehand <args> --workspace project`` in a pseudo-terminal of 30 x 120, its home
    (state and config folders) beside the project; what it shows is kept (``finish``)."""
    home = project.parent
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "TERM": "xterm-256color",
        "NO_COLOR": "1",
        "COLUMNS": "120",
        "LINES": "30",
    }
    argv = ["-m", "surehand.terminal.commands", *args, "--workspace", str(project)]
    child = pexpect.spawn(
        sys.executable, argv, env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=(30, 120)
    )
    child.logfile_read = _Transcript()
    return child


class _Transcript(list):
    """Everything the terminal showed, for assertions after the fact."""

    def write(self, text: str) -> None:
        self.append(text)

    def flush(self) -> None:
        pass

    @property
    def text(self) -> str:
        return "".join(self)


def shown_so_far(child: pexpect.spawn) -> str:
    """What the terminal has shown (``spawn`` keeps it in a ``_Transcript``)."""
    transcript = child.logfile_read
    assert isinstance(transcript, _Transcript)
    return transcript.text


def matched(child: pexpect.spawn, group: int) -> str:
    """A group of what the last ``expect`` matched."""
    assert isinstance(child.match, re.Match), child.match
    return child.match.group(group)


def finish(child: pexpect.spawn) -> tuple[int | None, str]:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, shown_so_far(child)


def test_the_status_line_shows_thinking_writing_and_waiting_with_the_time(project: Path):
    content = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(90))
    create = Call("create_file", {"path": "more.py", "content": content, "description": "helpers"})
    thinking = "The test fails because add subtracts. I will add a helper module first. " * 3
    with ScriptedServer(
        replies=[
            Turn(
                tool_calls=[create],
                reasoning=thinking,
                pause=0.004,
                prompt_tokens=1200,
                completion_tokens=340,
            ),
            Turn(tool_calls=[FINISH], prompt_tokens=1500, completion_tokens=20),
        ]
    ) as server:
        child = spawn(project, server)
        child.expect(seen("thinking ", r"\d+\.\d s"))
        child.expect(seen("writing create_file ", r"\d+\.\d s", r" · \d+\.\d kB"))
        child.expect(r"\[1\] Creating more\.py")
        child.expect("✓")
        child.expect(r"\[2\] Finishing")
        child.expect(seen("Task finished: ", "add now adds."))
        child.expect(r"2 steps, 3,060 tokens \(2,700 prompt, 360 completion\)")
        child.expect(re.escape("Accept the new file more.py? [y,n,a,d,A,D,k,q,?]"))
        child.sendline("n")
        status, shown = finish(child)

    assert status == 1
    assert "0 of 1 hunk accepted." in shown
    assert "Nothing was written." in shown
    assert not (project / "more.py").exists()
    assert "│ The test fails" not in shown  # thinking is in the status line, not printed
    assert "Traceback" not in shown


def test_the_answer_is_seen_as_it_streams_before_its_line_ends(project: Path):
    view = Call("view_file", {"path": "calc.py"})
    words = "I will look at calc.py first, then fix add"  # one line, no newline yet
    with ScriptedServer(
        replies=[Turn(content=words, tool_calls=[view], pause=0.2), Turn(tool_calls=[FINISH])]
    ) as server:
        child = spawn(project, server)
        child.expect(re.escape("│ I will look at c"))
        early = screen(shown_so_far(child))
        child.expect(r"\[1\] Reading calc\.py")
        status, shown = finish(child)

    assert "│ I will look at c" in early
    assert "fix add" not in early and "[1]" not in early, "seen before the turn ended"
    assert screen(shown).count(f"│ {words}") == 1
    assert status == 0


def test_a_streamed_answer_is_shown_once(project: Path):
    answer = "add subtracts where it should add.\nChange line 2 to return a + b."
    with ScriptedServer(replies=[Turn(content=answer, pause=0.05)]) as server:
        child = spawn(project, server)
        status, shown = finish(child)

    text = screen(shown)
    assert status == 0
    assert "  │ add subtracts where it should add.\n  │ Change line 2 to return a + b.\n" in text
    assert text.count("add subtracts") == 1 and text.count("Change line 2") == 1
    assert "Task answered.\n" in text


def test_waiting_for_the_endpoint_then_ctrl_c_cancels_cleanly(project: Path):
    with ScriptedServer(replies=[Hang()]) as server:
        child = spawn(project, server)
        child.expect(seen("waiting for the endpoint ", r"0\.\d s"))
        child.expect(seen("waiting for the endpoint ", r"1\.\d s"))  # the clock moves
        child.sendintr()
        child.expect(r"Cancelled\. Nothing was written\. The trace is (\S+)\.")
        trace = Path(matched(child, 1))
        status, shown = finish(child)

    assert status == 130
    assert "Traceback" not in shown and "KeyboardInterrupt" not in shown
    assert "Apply these changes" not in shown
    records = read_trace(trace)
    assert records[-1]["type"] == "end" and records[-1]["ending"] == "cancelled"
    assert (project / "calc.py").read_text("utf-8") == CALC


def test_a_failing_command_gets_a_cross_not_a_tick(project: Path):
    run = Call("run_command", {"command": "python3 -m unittest", "timeout": None})
    with ScriptedServer(replies=[Turn(tool_calls=[run]), Turn(tool_calls=[FINISH])]) as server:
        child = spawn(project, server)
        child.expect(r"\[1\] Running python3 -m unittest")
        child.expect(seen("    ", r"(\S)", r" python3: FAILED \(failures=1\)"))
        mark = matched(child, 1)
        child.expect("Task finished")
        status, _ = finish(child)

    assert mark == "✗"
    assert status == 0  # nothing proposed: nothing to ask


def test_a_silent_endpoint_gives_up_in_time_and_names_the_flag(project: Path):
    with ScriptedServer(replies=[Hang(), Hang()]) as server:
        child = spawn(project, server, "--request-timeout", "0.5", "--max-retries", "1")
        child.expect(
            r"did not start answering within 0\.5 s\. Check the server, or raise --request-timeout"
        )
        status, shown = finish(child)

    assert status == 2
    assert "requestTimeout" not in shown


def test_a_missing_workspace_is_refused_before_the_model_runs(tmp_path: Path):
    with ScriptedServer() as server:
        child = spawn(tmp_path / "nowhere", server)
        status, shown = finish(child)

    assert status == 2
    assert f"surehand: no such directory: {tmp_path / 'nowhere'} (--workspace)" in shown
    assert server.completions == []
    assert "Traceback" not in shown


def test_the_step_limit_names_the_flag(project: Path):
    view = Call("view_file", {"path": "calc.py"})
    with ScriptedServer(replies=[Turn(tool_calls=[view])]) as server:
        child = spawn(project, server, "--max-steps", "1")
        child.expect(
            seen("Task step_limit: ", r"Stopped after 1 steps \(the step limit, --max-steps\)\.")
        )
        status, _ = finish(child)

    assert status == 0
    assert json.loads(json.dumps(server.completions[0].body["model"])) == "scripted"


def test_ctrl_c_at_a_question_cancels_without_a_traceback(project: Path):
    ask = Call("run_command", {"command": "python3 -c print(1)", "timeout": None})
    with ScriptedServer(replies=[Turn(tool_calls=[ask])]) as server:
        child = spawn(project, server)
        child.expect(re.escape("Run `python3 -c 'print(1)'`? [o]nce / always / [N]o"))
        child.sendintr()
        child.expect(r"Cancelled\. Nothing was written\.")
        status, shown = finish(child)

    assert status == 130
    assert "Traceback" not in shown


def test_ctrl_c_while_a_command_runs_stops_it(project: Path):
    sleep = Call(
        "run_command", {"command": "python3 -c 'import time; time.sleep(60)'", "timeout": None}
    )
    with ScriptedServer(replies=[Turn(tool_calls=[sleep])]) as server:
        child = spawn(project, server)
        child.expect(r"\[o\]nce / always / \[N\]o")
        child.sendline("o")
        child.expect(seen("Running python3 .*", r"1\.\d s"))  # running for a second
        child.sendintr()
        child.expect(r"Cancelled\. Nothing was written\.", timeout=15)
        status, shown = finish(child)

    assert status == 130
    assert "Traceback" not in shown


_CONTROL = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\x1b[()][0-9A-Za-z]|\r|\n|[^\x1b\r\n]+")


def screen(raw: str) -> str:
    """What a terminal shows after ``raw``, every line scrolled past included: the
    cursor moves, line erasures and carriage returns of the live display played out,
    styles dropped (lines are not wrapped: the live area's lines never are)."""
    lines = [""]
    row = col = 0
    for found in _CONTROL.finditer(raw):
        text, (params, command) = found.group(), found.groups()
        if text == "\n":
            row += 1
            col = 0
        elif text == "\r":
            col = 0
        elif command is None and not text.startswith("\x1b"):
            line = lines[row].ljust(col)
            lines[row] = line[:col] + text + line[col + len(text) :]
            col += len(text)
        elif command == "A":
            row = max(0, row - int(params or 1))
        elif command == "B":
            row += int(params or 1)
        elif command == "G":
            col = int(params or 1) - 1
        elif command == "K":
            lines[row] = "" if params == "2" else lines[row][:col]
        while len(lines) <= row:
            lines.append("")
    return "\n".join(line.rstrip() for line in lines).strip("\n") + "\n"
