"""The first minute with the plugin, in Neovim's real terminal UI (tmux), as a person types.

From nothing: the plugin on 'runtimepath' and `setup{}` with the model's
settings, no `surehand` on PATH, no `cmd` or `python` option. Opening files
says once, in one line, what to do (no "Press ENTER", no error per file);
`:checkhealth surehand` says how to get the server; `:SurehandInstall`
installs it (here a stand-in wheel from a local folder, offline: see
test_plugin_install.py) and the server starts by itself; then a first task is
asked, reviewed with `]s` and `<leader>sfa` typed key by key with pauses,
and saved with `:w`. Every screen is read: no "Press ENTER", no Lua error,
no traceback.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest

from tests.lsp.editor import settings_for
from tests.nvim.test_neovim import NVIM, make_project
from tests.nvim.test_plugin_health import without_surehand_path
from tests.nvim.test_plugin_install import install_options, standin_wheel
from tests.nvim.test_tui import TMUX, Pane
from tests.nvim.test_tui_confirm import PLUGIN, _clean, _type
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import (
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
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NVIM is None or TMUX is None, reason="needs nvim and tmux"),
]
PAUSE = 0.4


def status_line(screen: str) -> str:
    return next(
        line for line in screen.splitlines() if line.startswith(("calc.py", "pyproject.toml"))
    )


def wait_status(pane: Pane, pattern: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while True:
        screen = pane.screen()
        try:
            if re.search(pattern, status_line(screen)):
                return screen
        except StopIteration:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"no status line matching {pattern!r}:\n{screen}")
        time.sleep(0.2)


def test_from_nothing_to_a_first_reviewed_task(tmp_path: Path, openai_server: ScriptedServer):
    root = make_project(tmp_path)
    wheels = tmp_path / "wheels"
    standin_wheel(wheels)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    settings = settings_for(openai_server.base_url, openai_server.model, tmp_path / "traces")
    options = {"settings": settings, "install": install_options(wheels)}
    init = tmp_path / "init.lua"
    init.write_text(
        f"vim.opt.runtimepath:prepend({json.dumps(str(PLUGIN))})\n"
        "vim.g.mapleader = ' '\n"
        "vim.o.swapfile = false\n"
        "vim.o.laststatus = 2\n"
        "vim.o.statusline = '%f %m%=%{v:lua.require(\"surehand\").status()}  '\n"
        f"require('surehand').setup(vim.json.decode({json.dumps(json.dumps(options))}))\n",
        encoding="utf-8",
    )
    home = tmp_path / "xdg"
    env = " ".join(
        f"XDG_{kind}_HOME={home / kind.lower()}" for kind in ("CONFIG", "DATA", "STATE", "CACHE")
    )
    path = without_surehand_path()
    pane = Pane(tmp_path)
    try:
        pane.tmux(
            "new-session", "-d", "-s", "t", "-x", "110", "-y", "30", "-c", str(root),
            f"env {env} PATH={path} TERM=xterm-256color {NVIM} --clean -u {init} calc.py",
        )  # fmt: skip
        first = pane.wait_for("surehand: no server found (:SurehandInstall, :checkhealth surehand)")
        _clean(first)
        # Files opened meanwhile: no error, and nothing said again.
        _type(pane, [":e pyproject.toml", "Enter"], PAUSE)
        _type(pane, [":e calc.py", "Enter"], PAUSE)
        # (every message surehand said is kept: one so far)
        _type(pane, [":lua print('said', #require('surehand.say').kept())", "Enter"], PAUSE)
        said = pane.wait_for("said ")
        _clean(said)
        assert "said 1" in said, said

        pane.keys(":checkhealth surehand", "Enter")
        health = pane.wait_for(":SurehandInstall makes")
        _clean(health)
        assert "ERROR no surehand server found" in health, health
        assert "or pip install " in health and "python = '/path/to/python'" in health, health
        _type(pane, [":q", "Enter"], PAUSE)

        pane.keys(":SurehandInstall", "Enter")
        installed = pane.wait_for("surehand: installed (surehand 0.0.1)", timeout=180)
        _clean(installed)
        running = wait_status(pane, r"calc\.py.*\bsurehand\s*$")
        _clean(running)

        pane.keys(":Surehand fix add", "Enter")
        review = wait_status(pane, r"surehand: review 1 hunk")
        _clean(review)
        assert "surehand: add adds (replace 1 line with 1)" in review, review
        assert "◆ add adds (replace 1 line with 1)" in review, "the review list"
        _type(pane, ["]", "s"], PAUSE)
        _type(pane, ["Space", "s", "f", "a"], 0.2)
        done = pane.wait_for("surehand: applied")
        time.sleep(PAUSE)
        done = pane.screen()
        _clean(done)
        assert "✓ accepted: add adds" in done, "the list row shows the decision"
        pane.keys(":w", "Enter")
        deadline = time.monotonic() + 10
        while (root / "calc.py").read_text(encoding="utf-8") != FIXED:
            assert time.monotonic() < deadline, pane.screen()
            time.sleep(0.1)
        (tmp_path / "screen.txt").write_text(done, encoding="utf-8")
    finally:
        pane.kill()


def test_file_operations_wait_for_the_save_in_the_terminal(
    tmp_path: Path, openai_server: ScriptedServer
):
    """A new, a moved and a deleted file accepted with the keys: the disk is untouched
    until `:wa`; `u` in the emptied buffer takes the deletion back (Neovim's own
    TextChanged, as a person types it), and `:wa` then makes the rest."""
    root = make_project(tmp_path)
    (root / "old.py").write_text(OLD, encoding="utf-8")
    (root / "a.py").write_text(A, encoding="utf-8")
    openai_server.add(Turn(tool_calls=[CREATE, DELETE, MOVE]), Turn(tool_calls=[FINISH]))
    settings = settings_for(openai_server.base_url, openai_server.model, tmp_path / "traces")
    init = tmp_path / "init.lua"
    init.write_text(
        f"vim.opt.runtimepath:prepend({json.dumps(str(PLUGIN))})\n"
        "vim.g.mapleader = ' '\n"
        "vim.o.swapfile = false\n"
        "vim.o.laststatus = 2\n"
        "vim.o.statusline = '%f %m%=%{v:lua.require(\"surehand\").status()}  '\n"
        "require('surehand').setup({\n"
        f"  cmd = vim.json.decode({json.dumps(json.dumps([sys.executable, '-m', 'lsp_server']))}),\n"
        f"  settings = vim.json.decode({json.dumps(json.dumps(settings))}),\n"
        "})\n",
        encoding="utf-8",
    )
    home = tmp_path / "xdg"
    env = " ".join(
        f"XDG_{kind}_HOME={home / kind.lower()}" for kind in ("CONFIG", "DATA", "STATE", "CACHE")
    )
    before = sorted(p.name for p in root.iterdir())
    pane = Pane(tmp_path)
    try:
        pane.tmux(
            "new-session", "-d", "-s", "t", "-x", "110", "-y", "30", "-c", str(root),
            f"env {env} TERM=xterm-256color {NVIM} --clean -u {init} calc.py",
        )  # fmt: skip
        wait_status(pane, r"calc\.py.*\bsurehand\s*$")
        pane.keys(":Surehand tidy up", "Enter")
        wait_status(pane, r"surehand: review 1 hunk, 1 new file, 1 rename, 1 deletion")
        # calc.py has nothing to decide (no review keys there): the first change, then
        # each file accepted whole, the cursor going on to the next by itself.
        _type(pane, [":SurehandNext", "Enter"], PAUSE)
        for _ in range(3):
            _type(pane, ["Space", "s", "f", "a"], 0.2)
            time.sleep(PAUSE)
        done = pane.wait_for("surehand: applied")
        _clean(done)
        assert sorted(p.name for p in root.iterdir()) == before, "nothing on disk yet"
        _type(pane, [":b old.py", "Enter"], PAUSE)
        _type(pane, ["u"], PAUSE)  # the deletion taken back
        _type(pane, [":wa", "Enter"], PAUSE * 2)
        saved = pane.screen()
        _clean(saved)
        deadline = time.monotonic() + 10
        while not (root / "util.py").exists() or (root / "a.py").exists():
            assert time.monotonic() < deadline, pane.screen()
            time.sleep(0.1)
        assert (root / "old.py").read_text(encoding="utf-8") == OLD, "kept, as it was"
        assert (root / "util.py").read_text(encoding="utf-8") == UTIL
        assert (root / "pkg" / "b.py").read_text(encoding="utf-8") == MOVED
    finally:
        pane.kill()
