"""``surehand acp`` driven by acpx on a terminal (tmux): a person answers each hunk.

acpx asks ``[permission] Allow <title> [<kind>]? (y/N)`` for every permission request,
then ``Allow write? (y/N)`` before each ``fs/write_text_file``, with the text to write.
Keys are typed with a person's pauses; the disk is checked while each question waits.
The per-hunk questions are kept in ``docs/captures/acpx_review.txt`` (refreshed with
``SUREHAND_CAPTURE=1``).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.acp.acpx_wire import (
    ASKED_TO_RUN,
    BEFORE,
    SCRIPT,
    TASK,
    TITLES,
    acpx_argv,
    environment,
    make_project,
    no_surehand_left,
    on_disk,
)
from tests.agent.sandboxes import bubblewrap
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_task import FIXED, OLD, UTIL

pytestmark = pytest.mark.slow

CAPTURE = Path(__file__).parents[2] / "docs" / "captures" / "acpx_review.txt"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def tmux() -> str:
    found = shutil.which("tmux")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("tmux must be installed in CI")
        pytest.skip("needs tmux")
    return found


class Pane:
    """A tmux server of its own (its socket in the test's folder) with one 120x40 pane."""

    def __init__(self, folder: Path) -> None:
        self.socket = str(folder / "tmux.sock")
        self.program = tmux()

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            [self.program, "-S", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
        return done.stdout

    def start(self, command: str, folder: Path) -> None:
        self.tmux(
            "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "-c", str(folder), command
        )

    def screen(self) -> str:
        """The screen, wrapped lines joined (the temporary paths are long)."""
        return self.tmux("capture-pane", "-p", "-J", "-t", "t")

    def everything(self) -> str:
        """The whole session, wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t")

    def asked(self, question: str, timeout: float = 30) -> str:
        """Waits until the last line on the screen is ``question`` (a pattern), unanswered."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            lines = [line.rstrip() for line in screen.splitlines() if line.strip()]
            if lines and re.fullmatch(question, lines[-1]):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"not asked {question!r}:\n{self.everything()}")
            time.sleep(0.1)

    def answer(self, key: str) -> None:
        """A person's answer: a key, a pause, Enter."""
        time.sleep(0.5)
        self.tmux("send-keys", "-t", "t", key)
        time.sleep(0.5)
        self.tmux("send-keys", "-t", "t", "Enter")

    def kill(self) -> None:
        subprocess.run([self.program, "-S", self.socket, "kill-server"], check=False, timeout=20)


def question(title: str, kind: str) -> str:
    """acpx's question for a permission request (its ``promptForToolPermission``), a pattern.

    The kind is the request's tool call's, else acpx's guess from the title's first word
    ("Run" reads as ``execute``).
    """
    return rf"\[permission\] Allow {re.escape(title)} \[{kind}\]\? \(y/N\)"


HUNK = "edit"


def scrubbed(text: str, tmp_path: Path) -> str:
    text = text.replace(str(tmp_path), "/tmp/acpx-test")
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip() + "\n"


def test_on_a_terminal_each_hunk_is_asked_and_only_the_accepted_are_written(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    bubblewrap()
    openai_server.add(*SCRIPT)
    own = environment(tmp_path)
    env = [f"{k}={own[k]}" for k in ("HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "OPENAI_API_KEY")]
    command = shlex.join(["env", *env, *acpx_argv(project, openai_server)])
    pane = Pane(tmp_path)
    calc, util = project / "calc.py", project / "util.py"
    try:
        pane.start(f'{command}; echo "[acpx exited: $?]"; sleep 300', project)
        pane.asked(question(ASKED_TO_RUN, "execute"))
        assert on_disk(project) == BEFORE
        pane.answer("y")
        for title, key in zip(TITLES, "ynyn", strict=True):
            screen = pane.asked(question(title, HUNK))
            assert f"[tool] {title} (pending)" in screen
            assert on_disk(project) == BEFORE, f"written before the answer to {title!r}"
            pane.answer(key)
        screen = pane.asked(re.escape("Allow write? (y/N)"))
        assert f"[permission] Allow write to {calc}?" in screen
        assert FIXED in screen, "acpx shows the text it is asked to write"
        assert on_disk(project) == BEFORE, "nothing written before acpx's own question"
        pane.answer("y")
        screen = pane.asked(re.escape("Allow write? (y/N)"))
        assert f"[permission] Allow write to {util}?" in screen
        assert on_disk(project) == {**BEFORE, "calc.py": FIXED.encode()}
        pane.answer("y")
        deadline = time.monotonic() + 30
        while "[acpx exited:" not in pane.screen():
            assert time.monotonic() < deadline, pane.everything()
            time.sleep(0.1)
        everything = pane.everything()
    finally:
        pane.kill()
    assert "[acpx exited: 0]" in everything, everything
    assert on_disk(project) == {
        "calc.py": FIXED.encode(),
        "old.py": OLD.encode(),
        "util.py": UTIL.encode(),
    }
    assert "python3: 42" in everything
    assert "Partly applied." in everything and "rejected: sub noted" in everything
    assert "answered sooner than a person reads one" not in everything
    assert "[done] end_turn" in everything
    for title, key in zip(TITLES, "ynyn", strict=True):
        assert re.search(f"{question(title, HUNK)} {key}", everything), title
    assert f"diff {calc} (line count unchanged)" in everything, "acpx's line for a hunk's diff"
    assert no_surehand_left(openai_server)
    review = everything[everything.index("[plan]") :]
    text = scrubbed(f"$ acpx --agent 'surehand acp ...' exec {TASK!r}\n...\n{review}", tmp_path)
    if os.environ.get("SUREHAND_CAPTURE"):
        CAPTURE.write_text(text)
