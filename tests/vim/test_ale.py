"""surehand's non-modal review in Vim 9 with ALE 3.3 (Debian ``vim-nox`` + ``vim-ale``).

Vim runs in tmux with ``vimrc`` (which sources ``surehand.vim``, the
configuration of docs/editors/vim-ale.md). The tests type what the user
types: ``:SurehandAsk``, ``:ALECodeAction`` and the number of the action in
its menu, text in insert mode, ``:e`` and ``:bd!``. After each step they read
the screen, Vim's buffers and ALE's diagnostics (``SurehandRecord``) and the
files on disk.

ALE 3.3 announces no resource operations and never answers
``workspace/applyEdit`` (it applies the text edits all the same): surehand
judges the texts it sent from the buffers' changes, and creates, deletes and
moves files on disk itself.

CI installs Vim, ALE and tmux, so there a missing one fails the test instead
of skipping it.
"""

from __future__ import annotations

import contextlib
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
from tests.support.openai_server import ScriptedServer, Turn, streamed_over
from tests.support.scripted_task import (
    CALC,
    COMMENT,
    CREATE,
    DELETE,
    FINISH,
    FIX,
    FIXED,
    HELPER,
    MOVE,
    NONE_FIX,
    UTIL,
    VERSION,
)
from tests.support.scripted_task import SUB_NOTE as SUB

HERE = Path(__file__).parent
VIM = shutil.which("vim")
TMUX = shutil.which("tmux")
ALE = Path("/usr/share/vim/vimfiles/pack/dist-bundle/opt/ale")
CAPTURE = HERE / "ale_capture.txt"
FILES_CAPTURE = HERE / "ale_files_capture.txt"
"""What Vim showed in runs of the tests, kept as evidence (each test checks its part is
what Vim shows; ``SUREHAND_WRITE_CAPTURE=1`` rewrites it)."""

SLOW = 11.0  # seconds of the model's first turn: past the usual 10 s of a client's request
TYPED = "import math\n"
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
    return streamed_over(turn, seconds)


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

    def keys(self, text: str, enter: bool = True, pause: float = 0.02) -> None:
        """``text`` typed key by key with short pauses, as a person does."""
        for key in text if pause else [text]:
            self.tmux("send-keys", "-t", self.session, "-l", key)
            time.sleep(pause)
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
        self.keys(f":call SurehandRecord('{path}')", pause=0)  # the test's, not the person's
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


def texts(seen: dict, name: str) -> list[str]:
    return [text for _, text in seen["diagnostics"].get(name, [])]


@contextlib.contextmanager
def vim_on(
    tmp_path: Path,
    model: ScriptedServer,
    files: dict[str, str],
    opened: list[str],
    **settings: Any,
) -> Iterator[Vim]:
    """Vim on a project of ``files``, editing ``opened`` (the first shown)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()  # the project's root for ALE (surehand.vim's project_root)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    records = tmp_path / "records"
    records.mkdir()
    spec = {
        "python": sys.executable,
        "settings": settings_for(model.base_url, model.model, tmp_path / "traces", **settings),
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
        "vim", "-u", str(HERE / "vimrc"), "-i", "NONE", *opened,
    ]  # fmt: skip
    subprocess.run(command, check=True, timeout=10, env={**os.environ, "TERM": "xterm"})
    editor = Vim(session, root, records)
    try:
        yield editor
    finally:
        with contextlib.suppress(subprocess.SubprocessError):
            editor.escape()
            editor.keys(":qa!", pause=0)  # Vim ends ALE's server, which cleans up after itself
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                editor.tmux("has-session", "-t", session)
                time.sleep(0.1)
        with contextlib.suppress(subprocess.SubprocessError):
            editor.tmux("kill-session", "-t", session)


def shown(screen: str) -> str:
    """The screen without the filler lines of an empty window, indented."""
    return "".join(f"  {line}\n" for line in screen.rstrip().splitlines() if line != "~")


def last_line(screen: str) -> str:
    return screen.rstrip().splitlines()[-1]


def kept(capture: Path, text: str) -> None:
    """``text`` is what ``capture`` keeps (``SUREHAND_WRITE_CAPTURE=1`` rewrites it)."""
    if os.environ.get("SUREHAND_WRITE_CAPTURE"):
        capture.write_text(text, encoding="utf-8")
    assert capture.read_text(encoding="utf-8") == text, "the evidence kept is this run's"


def test_hunks_in_two_files(vim: str, tmp_path: Path, openai_server: ScriptedServer):
    """A task longer than 10 s asked with ``:SurehandAsk``; type above a hunk; accept one
    hunk and reject another through ``:ALECodeAction``; accept the change to a file that is
    not open from the summary on line 1; the outcome as ALE echoes it; the disk untouched."""
    openai_server.add(slow(Turn(tool_calls=[FIX, SUB, HELPER])), Turn(tool_calls=[FINISH]))
    files = {"calc.py": CALC, "helper.py": "X = 1\n"}

    with vim_on(tmp_path, openai_server, files, ["calc.py"]) as editor:
        editor.keys(":SurehandAsk fix add")
        started = editor.until(lambda seen: seen["answer"] is not None, "the ask's answer")
        assert started["answer"]["result"]["outcome"] == "started", started["answer"]
        assert started["diagnostics"] == {}, "answered before the model's turn ended"

        summary = editor.wait_screen(r"Review the hunks shown as diagnostics", SLOW + WAIT)
        asked = editor.until(lines_are("calc.py", [0, 1, 5]), "the proposal")
        assert texts(asked, "calc.py")[0].startswith(
            "surehand: 1 change to review in files that are not open: helper.py (1)."
        )
        assert texts(asked, "calc.py")[1].startswith("surehand proposes: add adds")
        assert asked["buffers"] == {"calc.py": CALC}, "helper.py is not open"
        assert asked["disk"] == files

        editor.keys("ggO" + TYPED.rstrip("\n"), enter=False)
        editor.escape()
        typed = editor.until(lines_are("calc.py", [0, 2, 6]), "the hunks to move")
        assert typed["buffers"]["calc.py"] == TYPED + CALC
        assert typed["disk"] == files

        menu = editor.action(2, "surehand: Accept hunk")
        accepted = editor.until(lines_are("calc.py", [0, 6]), "the accepted hunk to go")
        assert accepted["buffers"]["calc.py"] == TYPED + FIXED
        assert accepted["modified"]["calc.py"] == 1
        assert accepted["disk"] == files

        editor.action(6, "surehand: Reject hunk")
        rejected = editor.until(lines_are("calc.py", [0]), "the rejected hunk to go")
        assert rejected["buffers"]["calc.py"] == TYPED + FIXED
        assert rejected["disk"] == files

        elsewhere = editor.action(0, "surehand: Accept all changes")
        applied = editor.until(lambda seen: "helper.py" in seen["buffers"], "ALE to open helper.py")
        assert applied["buffers"]["helper.py"] == "X = 2\n", "ALE applied the hunk"
        assert applied["current"] == "calc.py"
        assert texts(applied, "helper.py") == ["surehand proposes: two - X = 1 + X = 2"]
        # ALE tells the server nothing of an edit it applied to a buffer it opened for it:
        # the person looks at the file, ALE checks it, and the server sees the text.
        editor.keys(":b helper.py")
        outcome = editor.wait_screen(r"surehand: calc.py: accepted")  # before a record clears it
        other = editor.until(lambda seen: seen["diagnostics"] == {}, "the review's end")
        assert other["buffers"] == {"calc.py": TYPED + FIXED, "helper.py": "X = 2\n"}, (
            "ALE opened helper.py to apply the hunk"
        )
        assert other["modified"] == {"calc.py": 1, "helper.py": 1}
        assert other["current"] == "helper.py"
        assert other["disk"] == files, "nothing written: the user saves"
    assert last_line(outcome).startswith(
        "Warning:surehand: surehand: calc.py: accepted: add adds (line 3), rejected: sub noted "
        "(line 7). helper.py: accepted: two (line 1)."
    ), outcome

    kept(
        CAPTURE,
        "What Vim 9 with ALE 3.3 showed in tests/vim/test_ale.py, "
        "test_hunks_in_two_files (tmux capture-pane).\n\n"
        "The proposal's summary (window/showMessage, as ALE echoes it):\n"
        + shown(summary)
        + "\nAfter the proposal (ALE's signs and its echo of the diagnostic under the cursor):\n"
        + shown(asked["screen"])
        + "\n:ALECodeAction on line 3:\n"
        + shown(menu)
        + "\n:ALECodeAction on line 1 after the two decisions:\n"
        + shown(elsewhere)
        + "\nThe outcome:\n"
        + shown(outcome),
    )


def test_a_task_written_as_a_comment(vim: str, tmp_path: Path, openai_server: ScriptedServer):
    """``# surehand: make add handle None`` typed into the buffer, asked through its
    "Ask surehand: ..." in ALE's menu; the proposal takes the comment out."""
    openai_server.add(Turn(tool_calls=[NONE_FIX]), Turn(tool_calls=[FINISH]))
    files = {"calc.py": FIXED}
    handled = FIXED.replace(
        "    return a + b\n",
        "    if a is None or b is None:\n        return None\n    return a + b\n",
        1,
    )

    with vim_on(tmp_path, openai_server, files, ["calc.py"]) as editor:
        editor.keys("ggO" + COMMENT.rstrip("\n"), enter=False)
        editor.escape()
        written = editor.until(
            lambda seen: seen["buffers"]["calc.py"] == COMMENT + FIXED, "the comment"
        )
        assert written["disk"] == files

        menu = editor.action(0, "Ask surehand: make add handle None")
        asked = editor.until(lines_are("calc.py", [0, 2]), "the proposal")
        assert "1) Ask surehand: make add handle None" in menu, menu
        assert asked["answer"] is None, "ALE itself sent the code action's command"
        assert (
            "make add handle None" in openai_server.completions[0].body["messages"][-1]["content"]
        )
        assert texts(asked, "calc.py")[0].startswith(
            "surehand proposes: take out the request's comment"
        )
        assert texts(asked, "calc.py")[1].startswith("surehand proposes: add handles None")
        assert asked["buffers"]["calc.py"] == COMMENT + FIXED
        assert asked["disk"] == files

        editor.action(2, "surehand: Accept hunk")
        accepted = editor.until(lines_are("calc.py", [0]), "the accepted hunk to go")
        assert accepted["buffers"]["calc.py"] == COMMENT + handled
        assert accepted["disk"] == files

        editor.action(0, "surehand: Accept hunk")
        outcome = editor.wait_screen(r"surehand: calc.py: accepted")
        removed = editor.until(lines_are("calc.py", []), "the comment's hunk to go")
        assert removed["buffers"]["calc.py"] == handled, "the comment taken out"
        assert removed["disk"] == files
    assert last_line(outcome).startswith("Info:surehand: surehand: calc.py: accepted"), outcome


def test_a_command_new_deleted_moved_files_and_undo(
    vim: str, tmp_path: Path, openai_server: ScriptedServer
):
    """A command allowed through "surehand: Allow once"; a new file, the delete of a file
    open in a buffer (the message to close it) and the move of a file not open accepted
    through ``:ALECodeAction``, done by the server on disk; "surehand: Undo ..." takes
    the move back."""
    openai_server.add(
        Turn(tool_calls=[VERSION]),
        Turn(tool_calls=[CREATE, DELETE, MOVE]),
        Turn(tool_calls=[FINISH]),
    )
    files = {"calc.py": CALC, "old.py": "OLD = 1\n", "a.py": "def f():\n    return 1\n"}
    moved_files = {"calc.py": CALC, "util.py": UTIL, "pkg/b.py": "def f():\n    return 2\n"}

    with vim_on(tmp_path, openai_server, files, ["calc.py"], sandbox="off") as editor:
        editor.keys(":e old.py")
        editor.keys(":b calc.py")
        editor.keys(":SurehandAsk reorganise")
        asked = editor.until(lines_are("calc.py", [0]), "the question")
        assert asked["answer"]["result"]["outcome"] == "started", asked["answer"]
        assert texts(asked, "calc.py")[0].startswith("surehand wants to run `python3 --version`")
        assert asked["buffers"] == {"calc.py": CALC, "old.py": "OLD = 1\n"}
        assert asked["disk"] == files

        question = editor.action(0, "surehand: Allow once `python3 --version`")
        allowed = editor.until(lines_are("old.py", [0, 0]), "the proposal")
        tool = [m for m in openai_server.completions[1].body["messages"] if m["role"] == "tool"]
        assert tool[0]["content"].startswith("$ python3 --version\nPython 3"), tool[0]
        assert texts(allowed, "calc.py")[0].startswith(
            "surehand proposes a new file util.py: new util"
        )
        assert texts(allowed, "old.py")[0] == "surehand proposes deleting old.py: old goes"
        elsewhere = "surehand: 1 change to review in files that are not open: a.py (1)."
        assert texts(allowed, "calc.py")[1].startswith(elsewhere)
        assert texts(allowed, "old.py")[1].startswith(elsewhere)
        assert allowed["buffers"] == {"calc.py": CALC, "old.py": "OLD = 1\n"}
        assert allowed["disk"] == files, "nothing before an accept"

        new = editor.action(0, "surehand: Accept new file util.py")
        created = editor.until(lambda seen: "util.py" in seen["disk"], "util.py on disk")
        assert created["disk"] == {**files, "util.py": UTIL}
        assert created["buffers"] == {"calc.py": CALC, "old.py": "OLD = 1\n"}
        assert lines_are("calc.py", [0])(created), created["diagnostics"]

        editor.keys(":b old.py")
        delete = editor.action(0, "surehand: Accept deleting old.py")
        close = editor.wait_screen(r"old.py was deleted")
        deleted = editor.until(lambda seen: "old.py" not in seen["disk"], "old.py gone")
        assert deleted["buffers"]["old.py"] == "OLD = 1\n", "the buffer is the person's to close"
        assert deleted["disk"] == {"calc.py": CALC, "a.py": files["a.py"], "util.py": UTIL}

        editor.keys(":bd!")
        closed = editor.record()
        assert closed["buffers"] == {"calc.py": CALC}
        assert closed["current"] == "calc.py"
        assert closed["disk"] == deleted["disk"]

        move = editor.action(0, "surehand: Accept all changes")
        outcome = editor.wait_screen(r"surehand: util.py: created")
        moved = editor.until(lambda seen: seen["diagnostics"] == {}, "the review's end")
        assert moved["disk"] == moved_files
        assert moved["buffers"] == {"calc.py": CALC}

        undo = editor.action(0, "surehand: Undo moving a.py to pkg/b.py")
        undone = editor.until(lambda seen: "a.py" in seen["disk"], "the move undone")
        assert undone["disk"] == {
            "calc.py": CALC,
            "util.py": UTIL,
            "a.py": "def f():\n    return 2\n",
        }
        assert undone["buffers"] == {"calc.py": CALC}
        assert undone["diagnostics"] == {}
    assert last_line(close).startswith(
        "Warning:surehand: surehand: old.py was deleted; the editor still has a buffer of "
        "old.py: close it without saving"
    ), close
    assert last_line(outcome).startswith(
        "Info:surehand: surehand: util.py: created. old.py: deleted. pkg/b.py: moved from a.py, "
        "accepted: move f (line 2)."
    ), outcome

    kept(
        FILES_CAPTURE,
        "What Vim 9 with ALE 3.3 showed in tests/vim/test_ale.py, "
        "test_a_command_new_deleted_moved_files_and_undo (tmux capture-pane).\n\n"
        ":ALECodeAction on line 1 of calc.py, the command's question:\n"
        + shown(question)
        + "\n:ALECodeAction on line 1 of calc.py, the new file:\n"
        + shown(new)
        + "\n:ALECodeAction on line 1 of old.py:\n"
        + shown(delete)
        + "\nAfter accepting the delete (window/showMessage):\n"
        + shown(close)
        + "\n:ALECodeAction on line 1 of calc.py, the move of a.py (not open):\n"
        + shown(move)
        + "\nThe outcome:\n"
        + shown(outcome)
        + "\n:ALECodeAction on line 1 of calc.py after the review:\n"
        + shown(undo),
    )
