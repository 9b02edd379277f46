"""What the plugin's review puts on disk, and when (issue 28): only what the person saves.

A new file, a move and a deletion accepted in the review land in buffers,
unsaved, as accepted hunks do: `:qa!` leaves the project as it was (the
harness always ends with `:qa!`), `:wa` makes the new file (and its folder),
moves the file (the new one written, the old one deleted) and deletes the
deleted one (its emptied buffer written). Taking a deletion back with `u`
writes the text again. A file without a final newline, edited by the model,
is written by `:wa` without one, byte for byte (LF and CRLF), and so is a
new file without one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.nvim.test_neovim import NVIM, make_project
from tests.nvim.test_plugin import decisions, messages, project_with_files, run_plugin, snap
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import (
    CALC,
    CREATE,
    DELETE,
    FINISH,
    FIX,
    FIXED,
    MOVE,
    MOVED,
    OLD,
    UTIL,
    A,
    edit,
)

ORIGINAL = ["a.py", "calc.py", "old.py", "pyproject.toml"]

pytestmark = [pytest.mark.slow, pytest.mark.skipif(NVIM is None, reason="no nvim binary")]


TIDY_ACCEPTED = [
    {"do": "ask", "task": "tidy up"},
    {"do": "wait_review"},
    {"do": "cmd", "cmd": "SurehandAcceptAll"},
    {"do": "wait_reviewed"},
    {"do": "wait_done"},
]
"""Ask "tidy up" (``FIX``, ``CREATE``, ``DELETE``, ``MOVE``) and accept all of it."""


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("save", [False, True], ids=["qa-bang", "wa"])
def test_new_moved_and_deleted_files_change_on_disk_only_when_saved(
    tmp_path: Path, openai_server: ScriptedServer, save: bool
):
    root = project_with_files(tmp_path)
    before = files(root)
    openai_server.add(Turn(tool_calls=[FIX, CREATE, DELETE, MOVE]), Turn(tool_calls=[FINISH]))
    steps: list[dict[str, Any]] = [
        *TIDY_ACCEPTED,
        {"do": "snapshot", "name": "unsaved"},
    ]
    if save:
        steps += [
            {"do": "cmd", "cmd": "wa"},
            {"do": "sleep", "ms": 300},
            {"do": "snapshot", "name": "saved"},
        ]

    seen = run_plugin(tmp_path, openai_server, root, steps)

    unsaved = snap(seen, "unsaved")
    assert unsaved["disk"] == ORIGINAL, "nothing on disk before a save"
    said = messages(seen)
    wa = ":wa makes util.py, deletes old.py, moves a.py to pkg/b.py"
    # The server reads the disk, where nothing happened yet: the plugin says it in its words.
    (result,) = seen["done"]
    assert result["outcome"] == "applied", result
    assert result["summary"] == f"{wa} (in your buffers, unsaved)."
    # The server is told they happen on save: it reports them accepted, never "left alone".
    assert (
        "old.py: deleted (accepted; it happens on disk when the user saves)."
        in (result["server_summary"])
    ), result["server_summary"]
    assert "left alone" not in result["server_summary"]
    every = [
        "surehand: working on it… (:SurehandCancel stops it)",
        "surehand: a review is open in 4 files (]s next, :SurehandList)",
        "surehand: accepted every change left · nothing left to decide",
        f"surehand: 6 of 6 accepted, unsaved; {wa}",
        f"surehand: applied. {wa} (in your buffers, unsaved).",
    ]
    if save:
        every += ["surehand: deleted old.py", "surehand: moved a.py to pkg/b.py on disk"]
    assert said == every, said
    shown = [n["message"] for n in seen["notified"]]
    cut = [line for line in shown if line.endswith("… (:SurehandMessages)")]
    assert [line[:45] for line in cut] == [
        "surehand: 6 of 6 accepted, unsaved; :wa makes",
        "surehand: applied. :wa makes util.py, deletes",
    ], "what saving does comes first: a line cut to fit keeps it"
    assert all(len(line) <= 80 for line in shown), "each shown message fits one line"
    if not save:
        assert files(root) == before, ":qa! leaves the project as it was"
        assert seen["modified"] == {
            "calc.py": True,
            "util.py": True,
            "old.py": True,
            "pkg/b.py": True,
        }
        assert seen["buffers"]["old.py"] == "", "the deleted file's buffer is emptied, unsaved"
        return
    saved = snap(seen, "saved")
    assert saved["disk"] == ["calc.py", "pkg/b.py", "pyproject.toml", "util.py"]
    assert files(root) == {
        "calc.py": FIXED.encode(),
        "pkg/b.py": MOVED.encode(),
        "pyproject.toml": before["pyproject.toml"],
        "util.py": UTIL.encode(),
    }
    assert "old.py" not in seen["buffers"], "the deleted file's buffer is gone once saved"
    assert not any(seen["modified"].values()), seen["modified"]


def test_the_undo_of_saved_file_operations_is_made_on_disk_at_once(
    tmp_path: Path, openai_server: ScriptedServer
):
    """The task's new, moved and deleted files were saved; :SurehandUndoTask (confirmed)
    takes them back on disk at once, and calc.py's text back in its buffer, unsaved."""
    root = project_with_files(tmp_path)
    before = files(root)
    openai_server.add(Turn(tool_calls=[FIX, CREATE, DELETE, MOVE]), Turn(tool_calls=[FINISH]))
    steps: list[dict[str, Any]] = [
        *TIDY_ACCEPTED,
        {"do": "cmd", "cmd": "wa"},
        {"do": "sleep", "ms": 300},
        {"do": "cmd", "cmd": "SurehandUndoTask"},  # answered "Undo"
        {"do": "wait_undone"},
    ]

    seen = run_plugin(tmp_path, openai_server, root, steps, confirms=[1])

    said = messages(seen)
    assert said[-3:] == [
        "surehand: deleted util.py",
        "surehand: moved pkg/b.py to a.py on disk",
        "surehand: Undone: “tidy up”.",
    ], said
    assert files(root) == {**before, "calc.py": FIXED.encode()}, "calc.py waits in its buffer"
    assert seen["buffers"]["calc.py"] == before["calc.py"].decode()


def test_taking_a_deletion_back_with_u_keeps_the_file(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = project_with_files(tmp_path)
    openai_server.add(Turn(tool_calls=[DELETE]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "drop old"},
            {"do": "wait_review"},
            {"do": "goto", "path": "old.py", "line": 1},
            {"do": "cmd", "cmd": "SurehandAccept"},
            {"do": "wait_reviewed"},
            {"do": "wait_done"},
            {"do": "snapshot", "name": "emptied"},
            {"do": "goto", "path": "old.py", "line": 1},
            {"do": "cmd", "cmd": "undo"},
            {"do": "cmd", "cmd": "wa"},
            {"do": "sleep", "ms": 300},
        ],
    )

    assert snap(seen, "emptied")["lines"] == [""]
    assert (root / "old.py").read_bytes() == OLD.encode(), "the text back, written as it was"
    assert (root / "a.py").read_bytes() == A.encode()
    assert messages(seen) == [
        "surehand: working on it… (:SurehandCancel stops it)",
        "surehand: a review is open in 1 file (]s next, :SurehandList)",
        "surehand: accepted · nothing left to decide",
        "surehand: 1 of 1 accepted, unsaved; :wa deletes old.py",
        "surehand: applied. :wa deletes old.py (in your buffers, unsaved).",
    ], "nothing said of a deletion: there was none"


NO_EOL = CALC.rstrip("\n")
SUB_LAST = edit("def sub(a, b):\n    return a - b", "def sub(a, b):\n    return b - a", "sub swaps")
NOTE = Call(
    "create_file", {"path": "notes/todo.txt", "content": "one\ntwo", "description": "notes"}
)


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_a_file_without_final_newline_is_written_without_one(
    tmp_path: Path, openai_server: ScriptedServer, newline: str
):
    root = make_project(tmp_path)
    text = NO_EOL.replace("\n", newline)
    (root / "calc.py").write_bytes(text.encode())
    openai_server.add(Turn(tool_calls=[FIX, SUB_LAST, NOTE]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "fix both"},
            {"do": "wait_review"},
            {"do": "snapshot", "name": "open"},
            {"do": "cmd", "cmd": "SurehandAcceptAll"},
            {"do": "wait_done"},
            {"do": "cmd", "cmd": "wa"},
            {"do": "sleep", "ms": 300},
        ],
    )

    assert decisions(snap(seen, "open"))["calc.py"] == ("accepted", ["pending", "pending"])
    assert messages(seen)[3:] == [
        "surehand: 4 of 4 accepted, unsaved; :wa makes notes/todo.txt",
        "surehand: applied. :wa makes notes/todo.txt (in your buffers, unsaved).",
    ]
    want = FIXED.rstrip("\n").replace("return a - b", "return b - a").replace("\n", newline)
    assert (root / "calc.py").read_bytes() == want.encode(), "no final newline added by :wa"
    assert (root / "notes" / "todo.txt").read_bytes() == b"one\ntwo", "nor to a new file"
