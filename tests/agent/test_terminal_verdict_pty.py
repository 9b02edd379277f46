"""The tests' verdict in ``surehand run``, in a real pseudo-terminal, as a person types.

The proposal is shown with its tests' verdict (the model's last run, on
exactly the proposed text, and the baseline); a partial accept that breaks
the suite is caught before anything is written, and one that keeps it
green is written without another question. The files on disk are checked
byte for byte.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.agent.sandboxes import bubblewrap
from tests.agent.test_terminal_pty import finish, screen, spawn
from tests.agent.test_terminal_review_pty import KEYS, item, typed
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, SUB_NOTE

pytestmark = pytest.mark.slow

TESTS_PY = (
    "import unittest\n\nfrom calc import add, sub\n\n\nclass CalcTest(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n"
    "    def test_sub(self):\n        self.assertEqual(sub(3, 2), 1)\n"
)
UNITTEST = Call("run_command", {"command": "python3 -m unittest", "timeout": None})
SCRIPT = [
    Turn(tool_calls=[UNITTEST]),
    Turn(tool_calls=[FIX, SUB_NOTE]),
    Turn(tool_calls=[UNITTEST]),
    Turn(tool_calls=[FINISH]),
]
ANYWAY = re.escape(
    "Tests fail on what you accepted that pass on the whole proposal. Write it anyway? [y/N]"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    bubblewrap()
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_bytes(CALC.encode())
    (root / "test_calc.py").write_bytes(TESTS_PY.encode())
    return root


def test_a_partial_accept_that_breaks_the_suite_is_caught_before_writing(project: Path):
    with ScriptedServer(replies=SCRIPT) as server:
        child = spawn(project, server)
        child.expect(re.escape("Tests on the proposed change:"))
        item(child, "calc.py · hunk 1 of 2, file 1 of 1 · add adds")
        typed(child, "n")
        item(child, "calc.py · hunk 2 of 2, file 1 of 1 · sub noted")
        typed(child, "y")
        child.expect(ANYWAY)
        typed(child, "n")
        status, shown = finish(child)

    assert status == 1
    assert (project / "calc.py").read_bytes() == CALC.encode()
    text = " ".join(screen(shown).split())
    assert (
        "tests `python3 -m unittest`: 2 passed on the proposed change; run by the model, "
        "sandboxed (bubblewrap, no network), in a copy of the workspace" in text
    )
    assert "on the untouched workspace: 1 failed, 1 passed." in text
    assert "tests: running `python3 -m unittest` on what you accepted" in text
    assert (
        "tests `python3 -m unittest`: 1 failed, 1 passed on what you accepted (1 of 2 hunks "
        "rejected); failing: test_add (test_calc.CalcTest.test_add); run by surehand" in text
    )
    assert "Nothing was written." in text


def test_a_partial_accept_that_keeps_the_suite_green_is_written(project: Path):
    with ScriptedServer(replies=SCRIPT) as server:
        child = spawn(project, server)
        item(child, "calc.py · hunk 1 of 2, file 1 of 1 · add adds", f"Accept this hunk\\? {KEYS}")
        typed(child, "y")
        item(child, "calc.py · hunk 2 of 2, file 1 of 1 · sub noted")
        typed(child, "n")
        status, shown = finish(child)

    assert status == 0
    assert (project / "calc.py").read_bytes() == FIXED.encode()
    text = " ".join(screen(shown).split())
    assert "2 passed on what you accepted (1 of 2 hunks rejected)" in text
    assert "Write it anyway" not in text
    assert "Wrote 1 file(s)." in text
