"""surehand's non-modal review in Emacs with eglot (Debian ``emacs-nox`` + ``elpa-eglot``).

``eglot_review.el`` runs in ``emacs --batch``: eglot manages calc.py, the
ask goes through ``eglot-execute-command``, and the user accepts one hunk
and rejects the other through ``eglot-code-actions``. eglot sends its
didChange only after a command returns (and after an idle time): what
landed is read from those, never from a wait.

CI installs Emacs and eglot, so there a missing one fails the test instead
of skipping it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.emacs.batch import run_steps
from tests.lsp.editor import settings_for
from tests.support.openai_server import Call, ScriptedServer, Turn, streamed_over
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
    edit,
)
from tests.support.scripted_task import SUB_NOTE as SUB

HERE = Path(__file__).parent
EMACS = shutil.which("emacs")


def has_eglot() -> str:
    """Why Emacs with eglot cannot run here ("" when it can)."""
    if EMACS is None:
        return "no emacs (apt-get install emacs-nox elpa-eglot)"
    found = subprocess.run(
        [EMACS, "--batch", "-q", "--eval", "(require 'eglot)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return "" if found.returncode == 0 else "no eglot (apt-get install elpa-eglot)"


@pytest.fixture(scope="module")
def emacs() -> str:
    why = has_eglot()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"Emacs with eglot must be tested in CI: {why}")
        pytest.skip(why)
    assert EMACS is not None
    return EMACS


def run_emacs(emacs: str, tmp_path: Path, model: ScriptedServer, steps: list[dict]) -> dict:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    result = tmp_path / "result.json"
    spec = {
        "cmd": [sys.executable, "-m", "lsp_server"],
        "settings": settings_for(model.base_url, model.model, tmp_path / "traces"),
        "file": str(root / "calc.py"),
        "task": "fix add",
        "steps": steps,
        "result": str(result),
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [emacs, "--batch", "-q", "-l", str(HERE / "eglot_review.el"), str(spec_file)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    report = f"exit {done.returncode}\nstderr: {done.stderr[-4000:]}"
    assert result.exists(), report
    seen = json.loads(result.read_text(encoding="utf-8"))
    assert done.returncode == 0 and "error" not in seen, seen.get("error", "") + "\n" + report
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC, "nothing written to disk"
    return seen


def test_accept_a_hunk_through_a_code_action(
    emacs: str, tmp_path: Path, openai_server: ScriptedServer
):
    openai_server.add(Turn(tool_calls=[FIX, SUB]), Turn(tool_calls=[FINISH]))
    steps: list[dict[str, Any]] = [
        {"line": 1, "title": "surehand: Accept hunk"},
        {"line": 5, "title": "surehand: Reject hunk"},
    ]

    seen = run_emacs(emacs, tmp_path, openai_server, steps)

    assert seen["asked"]["outcome"] == "started", seen["asked"]
    assert [d["line"] for d in seen["seen"][0]] == [1, 5]
    assert seen["seen"][0][0]["message"].startswith("surehand proposes: add adds")
    assert seen["offered"][0][:2] == [
        "surehand: Accept hunk: add adds",
        "surehand: Reject hunk: add adds",
    ]
    assert "surehand: Show diff" not in seen["offered"][0], "eglot cannot show documents"
    assert [d["line"] for d in seen["seen"][1]] == [5]
    assert seen["outcome"] == (
        "calc.py: accepted: add adds (line 2), rejected: sub noted (line 6)."
    ), "the outcome, as eglot shows the server's message"
    assert seen["text"] == FIXED
    assert seen["modified"] is True


SPOOF = "\x1b[2K\x1b[1G"  # erase the line, back to column 1
RLO = "\u202e"  # right-to-left override
SPOOF_LABEL = f"tidy{SPOOF}add adds{RLO}exe.py"
SPOOF_LINE = f"    return a + b  # {SPOOF}+    return a + b\n"
SPOOF_FIX = edit("def add(a, b):\n    return a - b\n", f"def add(a, b):\n{SPOOF_LINE}", SPOOF_LABEL)
CAPTURE = HERE / "spoof_capture.txt"
"""What Emacs showed in a run of the test below, kept as evidence (the test checks it is
what Emacs shows; ``SUREHAND_WRITE_CAPTURE=1`` rewrites it)."""


def test_a_spoofing_label_reaches_emacs_escaped(
    emacs: str, tmp_path: Path, openai_server: ScriptedServer
):
    """A label and an added line carrying ESC[2K ESC[1G and U+202E: flymake's text,
    the code action titles, the outcome and eglot's messages show the escapes, never
    the characters (which Emacs's bidi engine would reorder); the buffer gets the
    line exactly as the model wrote it."""
    openai_server.add(Turn(tool_calls=[SPOOF_FIX]), Turn(tool_calls=[FINISH]))
    steps = [{"line": 1, "title": "surehand: Accept hunk"}]

    seen = run_emacs(emacs, tmp_path, openai_server, steps)

    shown_label = "tidy\\x1b[2K\\x1b[1Gadd adds\\u202eexe.py"
    (flymake,) = seen["shown"]
    assert f": surehand proposes: {shown_label}\n" in flymake
    assert "+     return a + b  # \\x1b[2K\\x1b[1G+    return a + b" in flymake
    assert seen["offered"][0][0] == f"surehand: Accept hunk: {shown_label}"
    outcome = seen["outcome"]
    assert outcome.startswith(f"calc.py: accepted: {shown_label} (line 2)."), outcome
    assert seen["text"] == CALC.replace("    return a - b\n", SPOOF_LINE, 1), "applied as written"
    shown = [flymake, *seen["offered"][0], outcome, seen["messages"]]
    for text in shown:
        assert SPOOF not in text and RLO not in text and "\x1b" not in text, text
    capture = (
        "What Emacs (eglot, flymake) showed for a proposal whose label and added line\n"
        "carry ESC[2K ESC[1G and U+202E (tests/emacs/test_eglot.py, "
        "test_a_spoofing_label_reaches_emacs_escaped):\n\n"
        f"flymake diagnostic text:\n{flymake}\n\n"
        "code actions offered on line 2:\n"
        + "".join(f"  {title}\n" for title in seen["offered"][0])
        + f"\nthe outcome, as eglot shows the server's message:\n{outcome}\n"
    )
    if os.environ.get("SUREHAND_WRITE_CAPTURE"):
        CAPTURE.write_text(capture, encoding="utf-8")
    assert CAPTURE.read_text(encoding="utf-8") == capture, "the evidence kept is this run's"


# The full scenario, step by step (eglot_scenario.el).

SLOW = 11.0  # seconds of the model's first turn: past eglot's 10-s request timeout
QUICK = 3.0  # the ask answers within this, long before the model's turn ends
TYPED = "import math\n\n"
CAT = Call("run_command", {"command": "cat calc.py", "timeout": None})
SCENARIO_CAPTURE = HERE / "eglot_capture.txt"
"""What Emacs showed in the scenario tests below, kept as evidence (the tests check it is
what Emacs shows; ``SUREHAND_WRITE_CAPTURE=1`` rewrites it)."""


def slow(turn: Turn, seconds: float = SLOW) -> Turn:
    """``turn`` streamed over ``seconds`` (a pause between its chunks)."""
    return streamed_over(turn, seconds)


@dataclasses.dataclass
class Run:
    """What ``eglot_scenario.el`` recorded: one entry per step, then *Messages*."""

    records: list[dict[str, Any]]
    messages: str
    error: str
    root: Path

    def step(self, index: int) -> dict[str, Any]:
        assert index < len(self.records), f"stopped before step {index}: {self.error}"
        record = self.records[index]
        assert "error" not in record["answer"], f"step {index}: {self.error}"
        return record


def run_scenario(
    emacs: str,
    tmp_path: Path,
    model: ScriptedServer,
    files: dict[str, str],
    steps: list[dict],
    *,
    settings: dict | None = None,
) -> Run:
    script = HERE / "eglot_scenario.el"
    seen, report, root = run_steps(
        emacs, script, tmp_path, model, files=files, steps=steps, settings=settings
    )
    return Run(seen["record"], seen.get("messages", ""), seen.get("error", "") + report, root)


def buffer(record: dict, name: str) -> dict[str, Any]:
    found = record["buffers"].get(name)
    assert found is not None, f"no buffer visits {name}"
    return found


def reports(record: dict) -> list[str]:
    """surehand's window/showMessage as eglot wrote them to *Messages* in this step."""
    return [m for m in record["shown"] if m.startswith("[eglot] Server reports")]


def shown_list(texts: list[str]) -> str:
    return "".join(f"  {text}\n" for text in texts)


def flymake_list(shown: dict[str, list[str]]) -> str:
    return "".join(f"  {name}: {line}\n" for name, lines in shown.items() for line in lines)


def messages(run: Run) -> str:
    """eglot's lines in *Messages*, by step (the project's path as <project>)."""
    return "".join(
        f"  [{index} {record['step']}] {line.replace(str(run.root), '<project>')}\n"
        for index, record in enumerate(run.records)
        for line in record["shown"]
        if "Connected!" not in line
    )


def check_capture(test: str, text: str) -> None:
    """TEXT is what the capture file holds for TEST (rewritten with SUREHAND_WRITE_CAPTURE=1)."""
    header = f"=== {test} ===\n"
    sections: dict[str, str] = {}
    if SCENARIO_CAPTURE.exists():
        for part in SCENARIO_CAPTURE.read_text(encoding="utf-8").split("=== ")[1:]:
            name, _, body = part.partition(" ===\n")
            sections[name] = body
    if os.environ.get("SUREHAND_WRITE_CAPTURE"):
        sections[test] = text + "\n"
        SCENARIO_CAPTURE.write_text(
            "What Emacs (eglot 1.9, flymake) showed in tests/emacs/test_eglot.py's scenario tests.\n\n"
            + "".join(f"=== {name} ===\n{body}" for name, body in sorted(sections.items())),
            encoding="utf-8",
        )
    assert sections.get(test) == text + "\n", f"the evidence kept under {header!r} is this run's"


def started_at_once(record: dict) -> None:
    """The ask answered ``started`` long before the model's first turn ended."""
    answer = record["answer"]
    assert answer["outcome"] == "started", answer
    assert answer["seconds"] < QUICK, answer


def test_scenario_hunks_in_two_files(emacs: str, tmp_path: Path, openai_server: ScriptedServer):
    """Ask (longer than eglot's timeout); type above a hunk; accept one hunk and reject
    another through eglot-code-actions; accept the hunk of a file that is not open from
    the open one; the outcome as eglot shows it; the disk never touched."""
    openai_server.add(slow(Turn(tool_calls=[FIX, SUB, HELPER])), Turn(tool_calls=[FINISH]))
    files = {"calc.py": CALC, "helper.py": "X = 1\n"}
    steps: list[dict[str, Any]] = [
        {"do": "ask", "file": "calc.py", "task": "fix add", "until": {"lines": {"calc.py": [0, 1, 5], "helper.py": [0]}, "message": "Review the hunks shown as diagnostics"}},
        {"do": "type", "file": "calc.py", "line": 0, "text": TYPED, "until": {"lines": {"calc.py": [0, 3, 7]}}},
        {"do": "action", "file": "calc.py", "line": 3, "title": "surehand: Accept hunk", "until": {"lines": {"calc.py": [0, 7]}}},
        {"do": "action", "file": "calc.py", "line": 7, "title": "surehand: Reject hunk", "until": {"lines": {"calc.py": [0]}}},
        {"do": "action", "file": "calc.py", "line": 0, "title": "surehand: Accept all changes", "until": {"lines": {"calc.py": [], "helper.py": []}, "message": "surehand: calc.py:"}},
    ]  # fmt: skip

    run = run_scenario(emacs, tmp_path, openai_server, files, steps)

    asked = run.step(0)
    started_at_once(asked)
    hunks = asked["published"]["calc.py"]
    assert hunks[0][1].startswith("surehand: 1 change to review in files that are not open: helper")
    assert hunks[1][1] == "surehand proposes: add adds\n-     return a - b\n+     return a + b"
    assert asked["published"]["helper.py"] == [[0, "surehand proposes: two\n- X = 1\n+ X = 2"]]
    assert list(asked["flymake"]) == ["calc.py"], "eglot shows diagnostics of open files only"
    assert asked["flymake"]["calc.py"][0].startswith(
        "1: eglot-note: surehand [surehand-elsewhere]: surehand: 1 change to review"
    )
    assert asked["buffers"] == {"calc.py": {"text": CALC, "modified": False, "managed": True}}
    assert asked["disk"] == files
    assert any("Review the hunks shown as diagnostics" in m for m in reports(asked)), asked

    typed = run.step(1)
    assert buffer(typed, "calc.py")["text"] == TYPED + CALC, "the hunks moved with the text"
    assert typed["disk"] == files

    accepted = run.step(2)
    assert accepted["answer"]["offered"] == [
        "surehand: Accept hunk: add adds",
        "surehand: Reject hunk: add adds",
        "surehand: Accept all in this file",
        "surehand: Reject all in this file",
        "surehand: Reject all",
    ], "no Show diff: eglot cannot show documents"
    assert buffer(accepted, "calc.py") == {
        "text": TYPED + FIXED,
        "modified": True,
        "managed": True,
    }
    assert accepted["disk"] == files

    rejected = run.step(3)
    assert buffer(rejected, "calc.py")["text"] == TYPED + FIXED
    assert rejected["published"]["helper.py"] == asked["published"]["helper.py"]
    assert rejected["disk"] == files
    assert reports(rejected) == [], "helper.py still waits"

    other = run.step(4)
    assert other["answer"]["offered"] == [
        "surehand: Show the next change",
        "surehand: Accept all changes",
        "surehand: Reject all changes",
    ]
    (question,) = other["asked"]
    assert question.startswith("[eglot] Server wants to edit:") and "helper.py" in question
    assert other["buffers"]["helper.py"] == {"text": "X = 2\n", "modified": True, "managed": True}
    assert buffer(other, "calc.py")["text"] == TYPED + FIXED
    assert other["disk"] == files, "nothing written: the user saves"
    assert other["published"] == {} and other["flymake"] == {}
    assert reports(other) == [
        "[eglot] Server reports (type=2): surehand: calc.py: accepted: add adds (line 4), "
        "rejected: sub noted (line 8). helper.py: accepted: two (line 1)."
    ]
    assert run.error.startswith("exit 0"), run.error

    check_capture(
        "test_scenario_hunks_in_two_files",
        "flymake, after the ask (line: type: text):\n"
        + shown_list(asked["flymake"]["calc.py"])
        + "\ncode actions offered on line 4 of calc.py (eglot-code-actions' menu):\n"
        + shown_list(accepted["answer"]["offered"])
        + "\ncode actions offered on line 1 of calc.py after the two decisions:\n"
        + shown_list(other["answer"]["offered"])
        + "\nwhat eglot asked then:\n"
        + shown_list([q.replace(str(run.root), "<project>") for q in other["asked"]])
        + "\n*Messages* (eglot's lines), step by step:\n"
        + messages(run),
    )


def test_scenario_a_command_file_operations_and_undo(
    emacs: str, tmp_path: Path, openai_server: ScriptedServer
):
    """A command approved through "Allow once"; a new file, a delete (its buffer open)
    and a move accepted through their code actions, done on disk by the server; the
    undo code action takes the move back; the next ask starts."""
    openai_server.add(
        slow(Turn(tool_calls=[CAT])),
        Turn(tool_calls=[CREATE, DELETE, MOVE]),
        Turn(tool_calls=[FINISH]),
        Turn(tool_calls=[FINISH]),
    )
    files = {"calc.py": CALC, "old.py": "OLD = 1\n", "a.py": "def f():\n    return 1\n"}
    steps: list[dict[str, Any]] = [
        {"do": "open", "file": "old.py"},
        {"do": "open", "file": "a.py"},
        {"do": "ask", "file": "calc.py", "task": "reorganise", "until": {"lines": {"calc.py": [0]}}},
        {"do": "action", "file": "calc.py", "line": 0, "title": "surehand: Allow once", "until": {"lines": {"old.py": [0], "a.py": [0]}, "message": "Review the hunks"}},
        {"do": "action", "file": "calc.py", "line": 0, "title": "surehand: Accept new file", "until": {"exists": ["util.py"]}},
        {"do": "action", "file": "old.py", "line": 0, "title": "surehand: Accept deleting", "until": {"message": "old.py was deleted"}},
        {"do": "close", "file": "old.py"},
        {"do": "action", "file": "a.py", "line": 0, "title": "surehand: Accept moving", "until": {"message": "surehand: util.py: created"}},
        {"do": "close", "file": "a.py"},
        {"do": "action", "file": "calc.py", "line": 0, "title": "surehand: Undo moving", "until": {"exists": ["a.py"]}},
        {"do": "ask", "file": "calc.py", "task": "again", "until": {"message": "(type=3): surehand: add now adds.\n"}},
    ]  # fmt: skip

    run = run_scenario(emacs, tmp_path, openai_server, files, steps, settings={"sandbox": "off"})
    opened = run.step(1)
    assert set(opened["buffers"]) == {"calc.py", "old.py", "a.py"}
    asked = run.step(2)
    started_at_once(asked)
    (question,) = asked["published"]["calc.py"]
    assert question[1].startswith("surehand wants to run `cat calc.py`"), question
    assert asked["flymake"]["calc.py"][0].startswith(
        "1: eglot-warning: surehand [a1]: surehand wants to run `cat calc.py`"
    )
    assert asked["published"]["old.py"] == [[0, "surehand waits for your answer at calc.py:1."]]
    assert reports(asked)[-1].startswith(
        "[eglot] Server reports (type=2): surehand waits for your answer: run `cat calc.py`?"
    )
    assert asked["disk"] == files

    allowed = run.step(3)
    assert allowed["answer"]["offered"] == [
        "surehand: Allow once `cat calc.py`",
        "surehand: Deny `cat calc.py`",
        "surehand: Cancel the running task",
    ]
    tool = [m for m in openai_server.completions[1].body["messages"] if m["role"] == "tool"]
    assert tool[0]["content"].startswith("$ cat calc.py\ndef add(a, b):"), tool[0]["content"]
    assert allowed["published"]["calc.py"][0][1].startswith(
        "surehand proposes a new file util.py: new util"
    )
    assert allowed["published"]["old.py"] == [[0, "surehand proposes deleting old.py: old goes"]]
    assert allowed["published"]["a.py"][0][1].startswith(
        "surehand proposes moving a.py to pkg/b.py: move f"
    )
    assert allowed["disk"] == files, "nothing before an accept"

    created = run.step(4)
    assert created["answer"]["offered"][:2] == [
        "surehand: Accept new file util.py",
        "surehand: Reject new file util.py",
    ]
    assert created["disk"] == {**files, "util.py": UTIL}, "the server created it"
    assert "util.py" not in created["buffers"]

    deleted = run.step(5)
    assert deleted["answer"]["offered"][:3] == [
        "surehand: Undo creating util.py",
        "surehand: Accept deleting old.py",
        "surehand: Reject deleting old.py",
    ]
    assert deleted["disk"] == {"calc.py": CALC, "a.py": files["a.py"], "util.py": UTIL}
    assert deleted["buffers"]["old.py"] == {"text": "OLD = 1\n", "modified": False, "managed": True}
    assert reports(deleted) == [
        "[eglot] Server reports (type=2): surehand: old.py was deleted; the editor still has a "
        "buffer of old.py: close it without saving (saving it would write the old file back)."
    ]
    assert "old.py" not in deleted["published"], "the delete is accepted"

    closed = run.step(6)
    assert "old.py" not in closed["buffers"]
    assert closed["disk"] == deleted["disk"]

    moved = run.step(7)
    assert moved["answer"]["offered"][:3] == [
        "surehand: Undo deleting old.py",
        "surehand: Accept moving a.py to pkg/b.py",
        "surehand: Reject moving a.py to pkg/b.py",
    ]
    assert moved["disk"] == {
        "calc.py": CALC,
        "util.py": UTIL,
        "pkg/b.py": "def f():\n    return 2\n",
    }
    assert moved["buffers"]["a.py"]["text"] == files["a.py"], "the buffer the user closes"
    assert moved["published"] == {} and moved["flymake"] == {}
    assert reports(moved) == [
        "[eglot] Server reports (type=2): surehand: a.py was moved to pkg/b.py; the editor still "
        "has a buffer of a.py: close it without saving (saving it would write the old file back).",
        "[eglot] Server reports (type=3): surehand: util.py: created. old.py: deleted. "
        "pkg/b.py: moved from a.py, accepted: move f (line 2). The model's summary: add now adds.",
    ]

    undone = run.step(9)
    assert undone["answer"]["offered"] == ["surehand: Undo moving a.py to pkg/b.py"]
    assert undone["disk"] == {
        "calc.py": CALC,
        "util.py": UTIL,
        "a.py": "def f():\n    return 2\n",
    }
    assert undone["buffers"] == {"calc.py": {"text": CALC, "modified": False, "managed": True}}

    again = run.step(10)
    started_at_once(again)
    assert reports(again) == ["[eglot] Server reports (type=3): surehand: add now adds."]
    assert again["disk"] == undone["disk"]
    assert run.error.startswith("exit 0"), run.error

    check_capture(
        "test_scenario_a_command_file_operations_and_undo",
        "flymake, after the ask (file: line: type: text):\n"
        + flymake_list(asked["flymake"])
        + "\ncode actions offered on line 1 of calc.py then:\n"
        + shown_list(allowed["answer"]["offered"])
        + "\nflymake, after the command ran:\n"
        + flymake_list(allowed["flymake"])
        + "\ncode actions offered on line 1 of old.py, a.py, calc.py, one after the other:\n"
        + shown_list(deleted["answer"]["offered"])
        + "  --\n"
        + shown_list(moved["answer"]["offered"])
        + "  --\n"
        + shown_list(undone["answer"]["offered"])
        + "\n*Messages* (eglot's lines), step by step:\n"
        + messages(run),
    )


def test_scenario_a_task_written_as_a_comment(
    emacs: str, tmp_path: Path, openai_server: ScriptedServer
):
    """``# surehand: make add handle None`` in the buffer: its code action, picked in
    eglot-code-actions' menu, asks (answered at once though the model takes longer than
    eglot's timeout); the proposal takes the comment out."""
    openai_server.add(slow(Turn(tool_calls=[NONE_FIX])), Turn(tool_calls=[FINISH]))
    files = {"calc.py": COMMENT + FIXED}
    steps: list[dict[str, Any]] = [
        {"do": "action", "file": "calc.py", "line": 0, "title": "Ask surehand: make add handle None", "until": {"lines": {"calc.py": [0, 2]}, "message": "Review the hunks"}},
        {"do": "action", "file": "calc.py", "line": 2, "title": "surehand: Accept hunk", "until": {"lines": {"calc.py": [0]}}},
        {"do": "action", "file": "calc.py", "line": 0, "title": "surehand: Accept hunk", "until": {"message": "surehand: calc.py: accepted"}},
    ]  # fmt: skip

    run = run_scenario(emacs, tmp_path, openai_server, files, steps)

    asked = run.step(0)
    assert asked["answer"]["offered"] == ["Ask surehand: make add handle None"]
    assert asked["answer"]["seconds"] < QUICK, "the ask answered before the model's turn ended"
    assert "make add handle None" in openai_server.completions[0].body["messages"][-1]["content"]
    assert asked["published"]["calc.py"][0][1].startswith(
        "surehand proposes: take out the request's comment"
    )
    assert asked["buffers"]["calc.py"] == {
        "text": COMMENT + FIXED,
        "modified": False,
        "managed": True,
    }
    assert asked["disk"] == files
    handled = FIXED.replace(
        "    return a + b\n",
        "    if a is None or b is None:\n        return None\n    return a + b\n",
        1,
    )
    accepted = run.step(1)
    assert accepted["answer"]["offered"][0] == "surehand: Accept hunk: add handles None"
    assert accepted["buffers"]["calc.py"]["text"] == COMMENT + handled
    assert accepted["buffers"]["calc.py"]["modified"] is True
    assert accepted["disk"] == files
    removed = run.step(2)
    assert removed["answer"]["offered"][0].startswith(
        "surehand: Accept hunk: take out the request's comment"
    )
    assert removed["buffers"]["calc.py"]["text"] == handled, "the comment taken out"
    assert removed["disk"] == files
    assert removed["published"] == {} and removed["flymake"] == {}
    assert reports(removed)[-1].startswith(
        "[eglot] Server reports (type=3): surehand: calc.py: accepted:"
    ), removed["shown"]
    assert run.error.startswith("exit 0"), run.error

    check_capture(
        "test_scenario_a_task_written_as_a_comment",
        "code actions offered on the comment's line:\n"
        + shown_list(asked["answer"]["offered"])
        + "\nflymake, after the ask (line: type: text):\n"
        + shown_list(asked["flymake"]["calc.py"])
        + "\n*Messages* (eglot's lines), step by step:\n"
        + messages(run),
    )
