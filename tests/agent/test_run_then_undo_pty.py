"""A task reviewed hunk by hunk in a real terminal, the person's own change made since,
then ``surehand history`` and ``surehand undo``: the task goes back, their change stays.
The session's screen is kept in ``docs/captures/terminal_undo.txt`` (refreshed with
``SUREHAND_CAPTURE=1``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.agent.test_terminal_pty import finish, screen, spawn, surehand
from tests.agent.test_terminal_review_pty import KEYS, item, typed
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import CALC, CREATE, FINISH, FIX, FIXED, SUB_NOTE, UTIL

pytestmark = pytest.mark.slow

CAPTURE = Path(__file__).parents[2] / "docs" / "captures" / "terminal_undo.txt"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_bytes(CALC.encode())
    return root


def test_a_partly_accepted_task_is_undone_and_the_persons_change_since_kept(project: Path):
    script = [Turn(tool_calls=[FIX, SUB_NOTE, CREATE]), Turn(tool_calls=[FINISH])]
    with ScriptedServer(replies=script) as server:
        run = spawn(project, server, task="Fix add, note sub, add a util.")
        item(run, "calc.py · hunk 1 of 3, file 1 of 2 · add adds")
        typed(run, "y")
        item(run, "calc.py · hunk 2 of 3, file 1 of 2 · sub noted")
        typed(run, "n")
        item(run, "util.py · hunk 3 of 3, file 2 of 2 · new util", re.escape("? ") + KEYS)
        typed(run, "y")
        status, ran = finish(run)
    assert status == 0, ran
    assert (project / "calc.py").read_bytes() == FIXED.encode()
    assert (project / "util.py").read_bytes() == UTIL.encode()
    assert re.search(r"\[1\] .* · [\d,]+ tokens", screen(ran)), "a step's tokens on its line"

    mine = FIXED.replace("def sub(a, b):", "def sub(a, b):  # by hand")
    (project / "calc.py").write_bytes(mine.encode())
    listed = surehand(project, "history")
    _, history = finish(listed)
    assert "“Fix add, note sub, add a util.”" in screen(history)
    assert "calc.py changed; util.py created" in screen(history)

    undo = surehand(project, "undo")
    undo.expect(re.escape("Undo these changes? [y/N]"))
    typed(undo, "y")
    status, undone = finish(undo)

    assert status == 0, undone
    assert (project / "calc.py").read_bytes() == CALC.replace(
        "def sub(a, b):", "def sub(a, b):  # by hand"
    ).encode(), "the task taken out, the person's line kept"
    assert not (project / "util.py").exists()
    assert "calc.py restored; util.py deleted." in screen(undone)
    again = surehand(project, "undo", "--yes")
    status, _ = finish(again)
    assert status == 1
    if os.environ.get("SUREHAND_CAPTURE"):
        session = [
            f"$ surehand run {'Fix add, note sub, add a util.'!r}",
            screen(ran).split("Proposed changes", 1)[-1].join(["Proposed changes", ""]),
            "$ surehand history",
            screen(history),
            "$ surehand undo",
            screen(undone),
        ]
        CAPTURE.write_text("\n".join(line.rstrip() for line in session) + "\n")
