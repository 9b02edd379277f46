"""surehand's non-modal review in Vim 9 with ALE 3.3 (Debian ``vim-nox`` + ``vim-ale``).

Vim runs in tmux with ``vimrc`` (which sources ``surehand.vim``, the
configuration of docs/editors/vim-ale.md). The test types what the user
types: ``:SurehandAsk``, ``:ALECodeAction`` and the number of the action in
its menu, text in insert mode. After each step it reads the screen, Vim's
buffers and ALE's diagnostics (``SurehandRecord``) and the files on disk.

CI installs Vim, ALE and tmux, so there a missing one fails the test instead
of skipping it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.editor import settings_for
from tests.support.openai_server import ScriptedServer, Turn, _chunks
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, edit

HERE = Path(__file__).parent
VIM = shutil.which("vim")
TMUX = shutil.which("tmux")
ALE = Path("/usr/share/vim/vimfiles/pack/dist-bundle/opt/ale")
CAPTURE = HERE / "ale_capture.txt"
"""What Vim showed in a run of ``test_review_in_vim_with_ale``, kept as evidence (the test
checks it is what Vim shows; ``SUREHAND_WRITE_CAPTURE=1`` rewrites it)."""

SLOW = 11.0  # seconds of the model's first turn: past the usual 10 s of a client's request
SUB = edit(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n", "sub noted"
)
WAIT = 30.0


def why_not() -> str:
    """Why Vim with ALE cannot run here ("" when it can)."""
    if VIM is None or TMUX is None:
        return "no vim or tmux (apt-get install vim-nox vim-ale tmux)"
    if not (ALE / "plugin" / "ale.vim").exists():
        return "no ALE (apt-get install vim-ale)"
    return ""


@pytest.fixture(scope="module")
def vim() -> str:
    why = why_not()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"Vim with ALE must be tested in CI: {why}")
        pytest.skip(why)
    assert VIM is not None
    return VIM


def slow(turn: Turn, seconds: float = SLOW) -> Turn:
    """``turn`` streamed over ``seconds`` (a pause between its chunks)."""
    chunks = len(list(_chunks(turn, 0, "scripted", 8, True)))
    return dataclasses.replace(turn, pause=seconds / (chunks - 1))


@dataclass
class Vim:
    """Vim in a tmux session: keys in, the screen and the recorder's JSON out."""

    session: str
    root: Path
    records: Path
    count: int = 0
    screens: list[str] = field(default_factory=list)

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", *args], capture_output=True, text=True, timeout=10, check=True
        )
        return done.stdout

    def keys(self, text: str, enter: bool = True) -> None:
        self.tmux("send-keys", "-t", self.session, "-l", text)
        if enter:
            self.tmux("send-keys", "-t", self.session, "Enter")
        time.sleep(0.2)

    def escape(self) -> None:
        self.tmux("send-keys", "-t", self.session, "Escape")
        time.sleep(0.1)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session)

    def wait_screen(self, pattern: str, seconds: float = WAIT) -> str:
        deadline = time.monotonic() + seconds
        while True:
            shown = self.screen()
            if re.search(pattern, shown):
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} not on the screen:\n{shown}")
            time.sleep(0.2)

    def record(self) -> dict[str, Any]:
        """Vim's buffers and ALE's surehand diagnostics now, and the files on disk."""
        self.count += 1
        path = self.records / f"{self.count}.json"
        self.keys(f":call SurehandRecord('{path}')")
        deadline = time.monotonic() + 10
        while not path.exists():
            if time.monotonic() > deadline:
                raise AssertionError(f"no record written:\n{self.screen()}")
            time.sleep(0.05)
        seen = json.loads(path.read_text(encoding="utf-8"))
        seen["disk"] = disk(self.root)
        return seen

    def until(self, check: Callable[[dict], bool], what: str, seconds: float = WAIT) -> dict:
        """Record until ``check`` holds; the screen before each record is kept."""
        deadline = time.monotonic() + seconds
        while True:
            screen = self.screen()
            seen = self.record()
            if check(seen):
                seen["screen"] = screen
                return seen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}: {seen}\n{screen}")
            time.sleep(0.3)

    def action(self, line: int, title: str) -> str:
        """``:ALECodeAction`` on ``line`` (0-based), and the number of the action whose
        title starts with ``title`` typed into its menu; the menu as shown."""
        self.keys(f":{line + 1}")
        self.keys(":ALECodeAction")
        menu = self.wait_screen(r"Type number and <Enter>")
        found = re.search(rf"^(\d+)\) {re.escape(title)}", menu, re.MULTILINE)
        assert found, f"no {title!r} in the menu:\n{menu}"
        self.keys(found.group(1))
        return menu


def disk(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def lines_are(name: str, wanted: list[int]) -> Callable[[dict], bool]:
    return lambda seen: [d[0] for d in seen["diagnostics"].get(name, [])] == wanted


@contextlib.contextmanager
def vim_on(
    tmp_path: Path, model: ScriptedServer, files: dict[str, str], first: str
) -> Iterator[Vim]:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()  # the project's root for ALE (surehand.vim's project_root)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    records = tmp_path / "records"
    records.mkdir()
    spec = {
        "python": sys.executable,
        "settings": settings_for(model.base_url, model.model, tmp_path / "traces"),
        "root": str(root),
        "here": str(HERE),
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    session = f"surehand-ale-{os.getpid()}-{tmp_path.name}"
    env = {"SUREHAND_SPEC": str(spec_file), "HOME": str(tmp_path)}
    command = [
        "tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "50", "-c", str(root),
        *[arg for name, value in env.items() for arg in ("-e", f"{name}={value}")],
        "vim", "-u", str(HERE / "vimrc"), "-i", "NONE", first,
    ]  # fmt: skip
    subprocess.run(command, check=True, timeout=10, env={**os.environ, "TERM": "xterm"})
    editor = Vim(session, root, records)
    try:
        yield editor
    finally:
        with contextlib.suppress(subprocess.SubprocessError):
            editor.tmux("kill-session", "-t", session)


def test_review_in_vim_with_ale(vim: str, tmp_path: Path, openai_server: ScriptedServer):
    """Ask; type above a hunk; accept one hunk and reject the other through
    ``:ALECodeAction``; the outcome as ALE shows it; the disk never touched."""
    openai_server.add(slow(Turn(tool_calls=[FIX, SUB])), Turn(tool_calls=[FINISH]))
    files = {"calc.py": CALC}

    with vim_on(tmp_path, openai_server, files, "calc.py") as editor:
        editor.keys(":SurehandAsk fix add")
        asked = editor.until(lines_are("calc.py", [1, 5]), "the proposal", SLOW + WAIT)
        assert asked["buffers"]["calc.py"] == CALC
        assert asked["disk"] == files
        assert asked["diagnostics"]["calc.py"][0][1].startswith("surehand proposes: add adds")

        editor.keys("ggOimport math", enter=False)
        editor.escape()
        typed = editor.until(lines_are("calc.py", [2, 6]), "the hunks to move")
        assert typed["buffers"]["calc.py"] == "import math\n" + CALC
        assert typed["disk"] == files

        menu = editor.action(2, "surehand: Accept hunk")
        accepted = editor.until(lines_are("calc.py", [6]), "the accepted hunk to go")
        assert accepted["buffers"]["calc.py"] == "import math\n" + FIXED
        assert accepted["modified"]["calc.py"] == 1
        assert accepted["disk"] == files

        editor.action(6, "surehand: Reject hunk")
        outcome = editor.wait_screen(r"surehand: calc.py: accepted")  # before a record clears it
        rejected = editor.until(lines_are("calc.py", []), "the rejected hunk to go")
        assert rejected["buffers"]["calc.py"] == "import math\n" + FIXED
        assert rejected["disk"] == files
    assert (
        outcome.rstrip()
        .splitlines()[-1]
        .startswith(
            "Warning:surehand: surehand: calc.py: accepted: add adds (line 3), rejected: sub noted (line 7)."
        )
    ), outcome

    def shown(screen: str) -> str:  # the screen without the filler lines of an empty window
        return "".join(f"  {line}\n" for line in screen.rstrip().splitlines() if line != "~")

    capture = (
        "What Vim 9 with ALE 3.3 showed in tests/vim/test_ale.py, "
        "test_review_in_vim_with_ale (tmux capture-pane).\n\n"
        "After the proposal (ALE's signs and its echo of the diagnostic under the cursor):\n"
        + shown(asked["screen"])
        + "\n:ALECodeAction on line 3:\n"
        + shown(menu)
        + "\nThe outcome (window/showMessage, as ALE echoes it):\n"
        + shown(outcome)
    )
    if os.environ.get("SUREHAND_WRITE_CAPTURE"):
        CAPTURE.write_text(capture, encoding="utf-8")
    assert CAPTURE.read_text(encoding="utf-8") == capture, "the evidence kept is this run's"
