"""Deciding a whole file in the plugin's review, and a list that follows (issue 28).

`<leader>sfa` (or `:SurehandAcceptFile`) accepts every change left in the file
at the cursor, `<leader>sfr` (`:SurehandRejectFile`) rejects them; the cursor
goes on to the next change to decide. Each decision is said in the message
line with what is left. The review list (quickfix) has a row per decision: a
decided row stays where it was and shows its decision, the title counts what
is left, and the current row stays the current row.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.nvim.test_neovim import NVIM
from tests.nvim.test_plugin import SUB, decisions, messages, project_with_files, run_plugin, snap
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import CREATE, FINISH, FIX, FIXED, edit

A_EDIT = edit("def f():\n    return 1\n", "def f():\n    return 3\n", "f gives 3", path="a.py")

pytestmark = [pytest.mark.slow, pytest.mark.skipif(NVIM is None, reason="no nvim binary")]


def test_accept_a_file_reject_a_file_and_the_list_follows(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = project_with_files(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX, SUB, A_EDIT, CREATE]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "tidy up"},
            {"do": "wait_review"},
            {"do": "snapshot", "name": "open"},
            {"do": "cmd", "cmd": "cnext"},  # the person walks the list: row 2 is current
            {"do": "goto", "path": "calc.py", "line": 1},
            {"do": "keys", "keys": " sfa"},  # both hunks of calc.py
            {"do": "snapshot", "name": "calc"},
            {"do": "keys", "keys": " sfr"},  # the cursor went on to a.py: rejected
            {"do": "snapshot", "name": "a"},
            {"do": "goto", "path": "new:util.py", "line": 1},
            {"do": "cmd", "cmd": "SurehandAcceptFile"},
            {"do": "wait_reviewed"},
            {"do": "wait_done"},
            {"do": "snapshot", "name": "done"},
        ],
    )

    opened = snap(seen, "open")
    assert [q["text"] for q in opened["quickfix"]] == [
        "◆ add adds (replace 1 line with 1)",
        "◆ sub swaps (replace 1 line with 1)",
        "◆ f gives 3 (replace 1 line with 1)",
        "[new file] ◆ new util (2 lines)",
    ]
    assert opened["quickfix_title"] == "surehand review · 3 hunks, 1 new file left"

    calc = snap(seen, "calc")
    assert decisions(calc) == {
        "calc.py": ("accepted", ["accepted", "accepted"]),
        "a.py": ("accepted", ["pending"]),
        "util.py": ("pending", ["pending"]),
    }
    assert [q["text"] for q in calc["quickfix"]][:3] == [
        "✓ accepted: add adds (replace 1 line with 1)",
        "✓ accepted: sub swaps (replace 1 line with 1)",
        "◆ f gives 3 (replace 1 line with 1)",
    ], "decided rows show their decision, in place"
    assert calc["quickfix_title"] == "surehand review · 1 hunk, 1 new file left"
    assert calc["quickfix_idx"] == 2, "the current row stays the current row"
    assert calc["current"] == "a.py", "on to the next change to decide"
    assert [label["text"] for label in calc["buffers"]["calc.py"]["labels"]] == [
        "✓ surehand: accepted: add adds",
        "✓ surehand: accepted: sub swaps",
    ]

    a = snap(seen, "a")
    assert decisions(a)["a.py"] == ("accepted", ["rejected"])
    assert a["quickfix"][2]["text"] == "✗ rejected: f gives 3 (replace 1 line with 1)"
    assert a["current"] == "new:util.py"

    assert messages(seen) == [
        "surehand: working on it… (:SurehandCancel stops it)",
        "surehand: a review is open in 3 files (]s next, :SurehandList)",
        "surehand: accepted calc.py · 1 hunk, 1 new file left",
        "surehand: rejected a.py · 1 new file left",
        "surehand: accepted util.py · nothing left to decide",
        "surehand: 4 of 5 accepted, unsaved; :wa makes util.py",
        "surehand: partly_applied. :wa makes util.py (in your buffers, unsaved).",
    ]
    shown = [n["message"] for n in seen["notified"]]
    assert "surehand: accepted util.py · nothing left to decide" not in shown, (
        "said in the same moment as the end of the review: the last one shows"
    )
    done = snap(seen, "done")
    assert done["quickfix_title"] == "surehand review (done)"
    assert [q["text"] for q in done["quickfix"]] == [
        "✓ accepted: add adds (replace 1 line with 1)",
        "✓ accepted: sub swaps (replace 1 line with 1)",
        "✗ rejected: f gives 3 (replace 1 line with 1)",
        "[new file] ✓ accepted: new util (2 lines)",
    ]
    assert seen["buffers"]["calc.py"] == FIXED.replace("return a - b", "return b - a")
    assert seen["buffers"]["a.py"] == "def f():\n    return 1\n"
    assert [h["accepted"] for h in seen["reviewed"]] == [True, True, False, True, True]
