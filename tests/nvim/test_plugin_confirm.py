"""The review's decisions are the person's, final and shown as they are (issue 23):
files that change how tools run are flagged and never accepted in bulk, the key
hint on a line names what the key decides, typing on a hunk's last line makes it
stale (a last line without final newline, CRLF files too), and what was
rejected is never offered again in the same task."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.nvim.test_neovim import make_project
from tests.nvim.test_plugin import TWO, decisions, messages, run_plugin, snap
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, edit

ENVRC = Call("create_file", {"path": ".envrc", "content": "export X=1\n", "description": "direnv"})


def test_a_file_that_changes_how_tools_run_is_flagged_and_left_out_of_accept_all(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX, ENVRC]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "fix add"},
            {"do": "wait_review"},
            {"do": "snapshot", "name": "open"},
            {"do": "cmd", "cmd": "SurehandAcceptAll"},
            {"do": "snapshot", "name": "all"},
            {"do": "goto", "path": "new:.envrc", "line": 1},
            {"do": "cmd", "cmd": "SurehandAccept"},  # on its own: accepted
            {"do": "wait_reviewed"},
            {"do": "wait_done"},
        ],
    )

    opened = snap(seen, "open")
    (label,) = opened["buffers"]["new:.envrc"]["labels"]
    assert label["text"].startswith("◆ ⚑ surehand: new file .envrc (1 line): direnv"), label
    assert "⚑ changes how tools run: shell code direnv runs" in label["text"], label
    assert "(accept on its own)" in label["text"]
    assert opened["buffers"]["calc.py"]["labels"][0]["text"].startswith("◆ surehand: add adds")
    envrc = next(q for q in opened["quickfix"] if q["name"] == "new:.envrc")
    assert envrc["text"].startswith("[⚑ new file] ◆ direnv (1 line) (⚑ changes how tools run")
    after_all = snap(seen, "all")
    assert decisions(after_all) == {
        "calc.py": ("accepted", ["accepted"]),
        ".envrc": ("pending", ["pending"]),
    }, "accept all leaves the governing file to decide on its own"
    assert any("left to accept one by one" in m for m in messages(seen))
    assert [h["accepted"] for h in seen["reviewed"]] == [True, True, True]
    assert seen["buffers"][".envrc"] == "export X=1\n"


MOVE_FIRST_LINE = Call(
    "apply_patch",
    {
        "patch": (
            "*** Begin Patch\n*** Update File: a.py\n*** Move to: pkg/b.py\n@@\n"
            "-def f():\n+def g():\n     return 1\n*** End Patch"
        ),
        "description": "rename f",
    },
)


def test_on_a_rename_line_the_key_decides_the_item_whose_label_shows_the_keys(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    (root / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    openai_server.add(Turn(tool_calls=[MOVE_FIRST_LINE]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "rename"},
            {"do": "wait_review"},
            {"do": "snapshot", "name": "open"},
            {"do": "goto", "path": "a.py", "line": 1},
            {"do": "keys", "keys": " sr"},
            {"do": "snapshot", "name": "one"},
            {"do": "cmd", "cmd": "SurehandRejectAll"},
            {"do": "wait_done"},
        ],
        file="a.py",
    )

    labels = snap(seen, "open")["buffers"]["a.py"]["labels"]
    on_first = [label["text"] for label in labels if label["line"] == 0]
    assert len(on_first) == 2, labels
    hinted = [t for t in on_first if t.endswith("[<leader>sa accept · <leader>sr reject]")]
    assert len(hinted) == 1 and hinted[0].startswith("◆ surehand: rename to pkg/b.py"), on_first
    one = decisions(snap(seen, "one"))
    assert one["pkg/b.py"] == ("rejected", ["pending"]), "the key decided the hinted item"


def _no_final_newline(crlf: bool) -> str:
    text = CALC.rstrip("\n")
    return text.replace("\n", "\r\n") if crlf else text


SUB_LAST = edit("def sub(a, b):\n    return a - b", "def sub(a, b):\n    return b - a", "sub swaps")


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_typing_at_the_end_of_a_last_line_without_newline_makes_its_hunk_stale(
    tmp_path: Path, openai_server: ScriptedServer, crlf: bool
):
    calc = _no_final_newline(crlf)
    root = make_project(tmp_path)
    (root / "calc.py").write_bytes(calc.encode("utf-8"))
    openai_server.add(Turn(tool_calls=[FIX, SUB_LAST]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "fix both"},
            {"do": "wait_review"},
            {"do": "goto", "path": "calc.py", "line": 6},
            {"do": "keys", "keys": "A  # mine<Esc>"},
            {"do": "snapshot", "name": "typed"},
            {"do": "cmd", "cmd": "SurehandAccept"},  # refused: stale
            {"do": "snapshot", "name": "refused"},
            {"do": "cmd", "cmd": "SurehandAcceptAll"},
            {"do": "wait_done"},
        ],
    )

    typed = decisions(snap(seen, "typed"))
    assert typed["calc.py"] == ("accepted", ["pending", "pending/stale"]), typed
    assert decisions(snap(seen, "refused"))["calc.py"][1][1] == "pending/stale"
    nl = "\r\n" if crlf else "\n"
    want = _no_final_newline(False).replace("return a - b", "return a + b", 1) + "  # mine"
    assert seen["buffers"]["calc.py"] == want.replace("\n", nl), "never glued to the model's line"
    assert [(h["accepted"], h.get("stale", False)) for h in seen["reviewed"]] == [
        (True, False),
        (False, True),
    ]


def test_a_rejected_hunk_never_comes_back_in_the_same_task(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    openai_server.add(TWO, Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "fix both"},
            {"do": "wait_review"},
            # The person types elsewhere in the file: the server may rebase and propose again.
            {"do": "type", "path": "calc.py", "start": 0, "stop": 0, "lines": ["import math"]},
            {"do": "goto", "path": "calc.py", "line": 3},
            {"do": "cmd", "cmd": "SurehandReject"},  # add: rejected
            {"do": "cmd", "cmd": "SurehandAccept"},  # sub: accepted
            {"do": "wait_done"},
            {"do": "sleep", "ms": 500},
        ],
    )

    reviews = [e for e in seen["events"] if e["what"] == "review"]
    assert "return a + b" not in seen["buffers"]["calc.py"], (reviews, seen["buffers"])
    assert seen["buffers"]["calc.py"].startswith("import math\n")
    assert "return b - a" in seen["buffers"]["calc.py"]
    assert all(not h["accepted"] for h in seen["reviewed"] if h["label"] == "add adds")
    assert seen["done"][0]["outcome"] == "partly_applied", seen["done"]
    assert FIXED not in seen["buffers"].values()
    # The message line counts down with the statusline (no stale "2 hunks" left there).
    said = messages(seen)
    assert "surehand: a review is open in 1 file (]s next, :SurehandList)" in said
    assert not any("review 2 hunks" in m for m in said)
    assert said.index("surehand: rejected · 1 hunk left") < said.index(
        "surehand: accepted · nothing left to decide"
    )


def test_a_second_proposal_in_the_task_keeps_what_was_rejected_rejected(tmp_path: Path):
    from tests.nvim.lua_run import run_lua

    out = run_lua("again_cases.lua", tmp_path, result=tmp_path / "again.json")

    assert (
        out["after_first"][5] == "    return b - a" and out["after_first"][1] == "    return a - b"
    )
    assert out["second_open"] is True
    assert out["second"] == [
        {"label": "add adds", "decision": "rejected", "again": True},
        {"label": "sub swaps", "decision": "pending", "again": False},
    ]
    assert out["third"] == "pending", "a new task may propose it again"
