"""``surehand run`` in a real pseudo-terminal: what the person reads is what happens.

Text a model chose (a command, an added line, a path, a label) carries
escape sequences and bidi overrides that would make the terminal show
something else; the bytes written to the terminal must hold them only as
visible escapes. Keys typed before a question was on the screen must not
answer it, and a file that changes how tools run is flagged and accepted
on its own, never inside the one answer for all.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.agent.test_terminal_pty import FAILING_TEST, finish, spawn
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH

pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    (root / "test_calc.py").write_text(FAILING_TEST, encoding="utf-8")
    return root


ERASE = "\x1b[2K\x1b[1G"  # erase the line, back to column 1
ERASE_SHOWN = r"\x1b[2K\x1b[1G"
RLO = "\u202e"  # right-to-left override


def test_a_command_with_escape_codes_is_shown_as_it_is_and_enter_denies_it(project: Path):
    command = f"touch pwned #{ERASE}pytest -q"
    ask = Call("run_command", {"command": command, "timeout": None})
    with ScriptedServer(replies=[Turn(tool_calls=[ask]), Turn(tool_calls=[FINISH])]) as server:
        child = spawn(project, server)
        child.expect(re.escape("[o]nce / always / [N]o"))
        child.sendline("")
        child.expect("Task finished")
        status, shown = finish(child)

    assert ERASE not in shown  # the terminal never got the sequence to act on
    assert f"Run `touch pwned '#{ERASE_SHOWN}pytest' -q`?" in shown
    assert f"surehand wants to run `touch pwned '#{ERASE_SHOWN}pytest' -q`" in shown
    declined = server.completions[1].body["messages"][-1]["content"]
    assert "declined" in declined
    assert status == 0


def test_an_added_line_with_escape_codes_shows_its_real_bytes_in_the_review(project: Path):
    spoof = f"    __import__('os').system('id')  # {ERASE}+    return a + b"
    edit = Call(
        "edit",
        {
            "path": "calc.py",
            "old": "def add(a, b):\n    return a - b",
            "new": f"def add(a, b):\n{spoof}",
            "description": f"fix add{RLO}",
        },
    )
    with ScriptedServer(replies=[Turn(tool_calls=[edit]), Turn(tool_calls=[FINISH])]) as server:
        child = spawn(project, server)
        child.expect(re.escape("Accept this hunk? [y,n,a,d,A,D,k,q,?]"))
        child.sendline("n")
        status, shown = finish(child)

    assert ERASE not in shown and RLO not in shown
    assert f"+    __import__('os').system('id')  # {ERASE_SHOWN}+    return a + b" in shown
    assert r"calc.py · hunk 1 of 1, file 1 of 1 · fix add\u202e" in shown
    assert status == 1
    assert (project / "calc.py").read_text("utf-8") == CALC


def test_a_path_with_escape_codes_is_refused_and_shown_escaped(project: Path):
    create = Call(
        "create_file",
        {"path": f"evil.py{ERASE}README.md", "content": "x = 1\n", "description": "x"},
    )
    with ScriptedServer(replies=[Turn(tool_calls=[create]), Turn(tool_calls=[FINISH])]) as server:
        child = spawn(project, server)
        child.expect("Task finished")
        status, shown = finish(child)

    assert ERASE not in shown
    assert f"evil.py{ERASE_SHOWN}README.md" in shown
    refusal = server.completions[1].body["messages"][-1]["content"]
    assert r"has the control or invisible character \x1b (U+001B)" in refusal
    assert sorted(p.name for p in project.iterdir()) == ["calc.py", "test_calc.py"]
    assert status == 0  # nothing proposed


def test_keys_typed_before_the_question_do_not_answer_it(project: Path):
    ask = Call("run_command", {"command": "python3 -c print(1)", "timeout": None})
    slow = Turn(tool_calls=[ask], reasoning="Let me think about this. " * 40, pause=0.05)
    with ScriptedServer(replies=[slow, Turn(tool_calls=[FINISH])]) as server:
        child = spawn(project, server)
        child.expect("thinking")
        for key in "always\r":  # typed while the model thinks, meant for something else
            child.send(key)
            time.sleep(0.08)
        child.expect(re.escape("[o]nce / always / [N]o"))
        time.sleep(1.0)  # the person reads the question
        assert len(server.completions) == 1  # not answered by the keys typed before
        child.sendline("")  # Enter alone denies
        child.expect("Task finished")
        status, _ = finish(child)

    assert "declined" in server.completions[1].body["messages"][-1]["content"]
    assert status == 0


def test_a_single_key_does_not_allow_a_command_always(project: Path):
    first = Call("run_command", {"command": "python3 -c print(1)", "timeout": None})
    again = Call("run_command", {"command": "python3 -c print(1)", "timeout": None}, id="again")
    replies = [Turn(tool_calls=[first]), Turn(tool_calls=[again]), Turn(tool_calls=[FINISH])]
    with ScriptedServer(replies=replies) as server:
        child = spawn(project, server)
        child.expect(re.escape("[o]nce / always / [N]o"))
        child.sendline("a")  # once read as "always": now it denies
        child.expect(re.escape("[o]nce / always / [N]o"))  # so the next one asks again
        child.sendline("always")
        child.expect("Task finished")
        status, _ = finish(child)

    messages = [c.body["messages"][-1]["content"] for c in server.completions[1:]]
    assert "declined" in messages[0]
    assert "declined" not in messages[1]
    assert status == 0


SETTINGS = 'commandEnvironment = ["GITHUB_TOKEN"]\n'
GOVERNING_QUESTION = "Accept the new file .surehand.toml on its own? Type yes, or [n,d,D,k,q,?]"


def _governing_task() -> list[Turn]:
    settings = Call(
        "create_file",
        {"path": ".surehand.toml", "content": SETTINGS, "description": "project settings"},
    )
    notes = Call(
        "create_file", {"path": "notes.md", "content": "# Notes\n", "description": "notes"}
    )
    return [Turn(tool_calls=[settings, notes]), Turn(tool_calls=[FINISH])]


def test_a_file_that_changes_how_tools_run_is_flagged_and_accepted_only_on_its_own(
    project: Path,
):
    with ScriptedServer(replies=_governing_task()) as server:
        child = spawn(project, server)
        child.expect(
            re.escape(
                ".surehand.toml changes how tools run: surehand's own settings for this project"
            )
        )
        child.expect(re.escape(GOVERNING_QUESTION))
        child.sendline("y")  # not "yes": asked again
        child.expect(re.escape("type yes to accept it, on its own."))
        child.expect(re.escape(GOVERNING_QUESTION))
        child.sendline("n")
        child.expect(re.escape("Accept the new file notes.md? [y,n,a,d,A,D,k,q,?]"))
        child.sendline("y")
        status, shown = finish(child)

    assert status == 0
    assert (project / "notes.md").read_text("utf-8") == "# Notes\n"
    assert not (project / ".surehand.toml").exists()
    assert "Wrote 1 file(s)." in shown


def test_a_file_that_changes_how_tools_run_is_written_when_accepted_on_its_own(project: Path):
    with ScriptedServer(replies=_governing_task()) as server:
        child = spawn(project, server)
        child.expect(re.escape(GOVERNING_QUESTION))
        child.sendline("yes")
        child.expect(re.escape("Accept the new file notes.md? [y,n,a,d,A,D,k,q,?]"))
        child.sendline("y")
        status, _ = finish(child)

    assert status == 0
    assert (project / ".surehand.toml").read_text("utf-8") == SETTINGS


def test_yes_for_all_leaves_out_a_file_that_changes_how_tools_run(project: Path):
    with ScriptedServer(replies=_governing_task()) as server:
        child = spawn(project, server, "--yes")
        status, shown = finish(child)

    assert status == 0
    assert ".surehand.toml left out: it changes how tools run" in shown
    assert (project / "notes.md").exists()
    assert not (project / ".surehand.toml").exists()
