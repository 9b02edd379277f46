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

from tests.lsp.editor import settings_for
from tests.support.openai_server import Call, ScriptedServer, Turn, _chunks
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, edit

HERE = Path(__file__).parent
EMACS = shutil.which("emacs")
SUB = edit(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n", "sub noted"
)


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
    steps = [
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
SUB_DONE = "def sub(a, b):\n    return a - b  # sub\n"
HELPER = edit("X = 1\n", "X = 2\n", "two", path="helper.py")
TYPED = "import math\n\n"
UTIL = "def double(x):\n    return 2 * x\n"
CREATE = Call("create_file", {"path": "util.py", "content": UTIL, "description": "new util"})
DELETE = Call("delete_file", {"path": "old.py", "description": "old goes"})
MOVE = Call(
    "apply_patch",
    {
        "patch": (
            "*** Begin Patch\n*** Update File: a.py\n*** Move to: pkg/b.py\n@@ def f():\n"
            "-    return 1\n+    return 2\n*** End Patch"
        ),
        "description": "move f",
    },
)
CAT = Call("run_command", {"command": "cat calc.py", "timeout": None})
COMMENT = "# surehand: make add handle None\n"
NONE_FIX = edit(
    "def add(a, b):\n    return a + b\n",
    "def add(a, b):\n    if a is None or b is None:\n        return None\n    return a + b\n",
    "add handles None",
)
SCENARIO_CAPTURE = HERE / "eglot_capture.txt"
"""What Emacs showed in the scenario tests below, kept as evidence (the tests check it is
what Emacs shows; ``SUREHAND_WRITE_CAPTURE=1`` rewrites it)."""


def slow(turn: Turn, seconds: float = SLOW) -> Turn:
    """``turn`` streamed over ``seconds`` (a pause between its chunks)."""
    chunks = len(list(_chunks(turn, 0, "scripted", 8, True)))
    return dataclasses.replace(turn, pause=seconds / (chunks - 1))


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
    root = tmp_path / "project"
    root.mkdir()
    for name, content in files.items():
        (root / name).write_text(content, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    result = tmp_path / "result.json"
    spec = {
        "cmd": [sys.executable, "-m", "lsp_server"],
        "settings": {
            **settings_for(model.base_url, model.model, tmp_path / "traces"),
            **(settings or {}),
        },
        "root": str(root),
        "file": str(root / "calc.py"),
        "steps": steps,
        "result": str(result),
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    done = subprocess.run(
        [emacs, "--batch", "-q", "-l", str(HERE / "eglot_scenario.el"), str(spec_file)],
        capture_output=True,
        text=True,
        timeout=150,
        env={**os.environ, "HOME": str(home)},
        cwd=tmp_path,
        check=False,
    )
    report = f"exit {done.returncode}\nstderr: {done.stderr[-4000:]}"
    assert result.exists(), report
    seen = json.loads(result.read_text(encoding="utf-8"))
    return Run(seen["record"], seen.get("messages", ""), seen.get("error", "") + report, root)


def buffer(record: dict, name: str) -> dict | None:
    return record["buffers"].get(name)


def reports(record: dict) -> list[str]:
    """surehand's window/showMessage as eglot wrote them to *Messages* in this step."""
    return [m for m in record["shown"] if m.startswith("[eglot] Server reports")]


def shown_list(texts: list[str]) -> str:
    return "".join(f"  {text}\n" for text in texts)


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
    steps = [
        {"do": "ask", "file": "calc.py", "task": "fix add", "until": {"lines": {"calc.py": [0, 1, 5], "helper.py": [0]}}},
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
