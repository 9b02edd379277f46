"""``surehand run``'s hunk-by-hunk review in a real pseudo-terminal, as a person types.

The real command against the scripted OpenAI-compatible server; each answer
is typed once its question is on the screen, after a pause to read it (keys
typed earlier are dropped, as they should be). The files on disk are
checked byte for byte afterwards, and the review recorded in the trace.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pexpect
import pytest

from agent.trace import read_trace
from tests.agent.test_terminal_pty import finish, screen, spawn
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import (
    CALC,
    CREATE,
    DELETE,
    FINISH,
    FIX,
    FIXED,
    OLD,
    SUB_NOTE,
    UTIL,
    edit,
)

pytestmark = pytest.mark.slow

KEYS = re.escape("[y,n,a,d,A,D,k,q,?]")
HELPER = "X = 1\nY = 2\n"
X_THREE = edit("X = 1\n", "X = 3\n", "X is three", path="helper.py")
Y_FOUR = edit("Y = 2\n", "Y = 4\n", "Y is four", path="helper.py")
ENVRC = "export A=1\n"
ENV_TWO = edit("export A=1\n", "export A=2\n", "A is two", path=".envrc")
APPLY = re.escape("Apply these changes to your files? [y/N]")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_bytes(CALC.encode())
    (root / "helper.py").write_bytes(HELPER.encode())
    (root / "old.py").write_bytes(OLD.encode())
    (root / ".envrc").write_bytes(ENVRC.encode())
    return root


def files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.is_file()}


def item(child: pexpect.spawn, heading: str, question: str = f"Accept this hunk\\? {KEYS}") -> None:
    """Wait for an item's heading and then its question."""
    child.expect(re.escape(heading))
    child.expect(question)


def typed(child: pexpect.spawn, answer: str) -> None:
    """The person reads the question, then types the answer."""
    time.sleep(0.3)
    child.sendline(answer)


def review_in_trace(project: Path) -> dict:
    (trace,) = (project.parent / "state" / "surehand" / "traces").glob("*.jsonl")
    review = read_trace(trace)[-1]
    assert review["type"] == "review"
    return review


def test_a_partial_review_of_two_files_with_a_step_back(project: Path):
    script = [Turn(tool_calls=[FIX, SUB_NOTE, X_THREE, Y_FOUR]), Turn(tool_calls=[FINISH])]
    with ScriptedServer(replies=script) as server:
        child = spawn(project, server)
        child.expect(re.escape("Proposed changes: 4 hunks in 2 files."))
        item(child, "calc.py · hunk 1 of 4, file 1 of 2 · add adds")
        typed(child, "y")
        item(child, "calc.py · hunk 2 of 4, file 1 of 2 · sub noted")
        typed(child, "n")
        item(child, "helper.py · hunk 3 of 4, file 2 of 2 · X is three")
        typed(child, "k")
        item(child, "calc.py · hunk 2 of 4, file 1 of 2 · sub noted", r"\(you rejected it")
        child.expect(KEYS)
        typed(child, "n")
        item(child, "helper.py · hunk 3 of 4, file 2 of 2 · X is three")
        typed(child, "a")  # and Y is four with it
        status, shown = finish(child)

    assert status == 0
    assert files(project) == {
        ".envrc": ENVRC.encode(),
        "calc.py": FIXED.encode(),
        "helper.py": b"X = 3\nY = 4\n",
        "old.py": OLD.encode(),
    }
    text = screen(shown)
    assert "helper.py · hunk 4 of 4" not in text, "accepted with the rest of its file"
    assert "3 of 4 hunks accepted in 2 files." in text
    assert (
        "Partly applied. calc.py: accepted: add adds (line 2), rejected: sub noted (line 6). "
        "helper.py: accepted: X is three (line 1); Y is four (line 2)." in text
    )
    assert "Wrote 2 file(s)." in text
    review = review_in_trace(project)
    assert review["outcome"] == "partly_applied"
    assert review["files"][0] == {
        "path": "calc.py",
        "operation": "edit",
        "status": "partly_applied",
        "hunks": [
            {"label": "add adds", "line": 2, "status": "accepted", "rebased": False},
            {"label": "sub noted", "line": 6, "status": "rejected", "rebased": False},
        ],
    }
    assert review["files"][1]["status"] == "applied"


def test_a_new_and_a_deleted_file_are_items_and_quit_rejects_the_rest(project: Path):
    script = [Turn(tool_calls=[CREATE, DELETE, FIX]), Turn(tool_calls=[FINISH])]
    with ScriptedServer(replies=script) as server:
        child = spawn(project, server)
        item(child, "util.py · hunk 1 of 3", f"Accept the new file util.py\\? {KEYS}")
        typed(child, "y")
        item(child, "old.py · hunk 2 of 3", f"Accept deleting old.py\\? {KEYS}")
        typed(child, "n")
        item(child, "calc.py · hunk 3 of 3")
        typed(child, "q")
        status, shown = finish(child)

    assert status == 0
    assert files(project) == {
        ".envrc": ENVRC.encode(),
        "calc.py": CALC.encode(),
        "helper.py": HELPER.encode(),
        "old.py": OLD.encode(),
        "util.py": UTIL.encode(),
    }
    text = screen(shown)
    assert "New file util.py:\n@@ -0,0 +1,2 @@\n+def double(x):\n+    return 2 * x\n" in text
    assert "Delete old.py, which holds:\n@@ -1,1 +0,0 @@\n-OLD = 1\n" in text
    assert "1 of 3 hunks accepted in 1 file." in text
    assert "Partly applied. util.py: created. old.py: not deleted" in text


def test_a_file_that_changes_how_tools_run_needs_a_typed_yes(project: Path):
    script = [Turn(tool_calls=[FIX, ENV_TWO]), Turn(tool_calls=[FINISH])]
    with ScriptedServer(replies=script) as server:
        child = spawn(project, server)
        item(child, "calc.py · hunk 1 of 2")
        typed(child, "A")  # every hunk still undecided, but not .envrc
        question = re.escape("Accept this hunk of .envrc on its own? Type yes, or [n,d,D,k,q,?]")
        item(child, ".envrc · hunk 2 of 2, file 2 of 2 · A is two", question)
        typed(child, "y")
        child.expect(re.escape(".envrc changes how tools run: type yes to accept it, on its own."))
        child.expect(question)
        typed(child, "yes")
        status, shown = finish(child)

    assert status == 0
    assert files(project)[".envrc"] == b"export A=2\n"
    assert files(project)["calc.py"] == FIXED.encode()
    text = screen(shown)
    assert "⚠ .envrc changes how tools run: shell code direnv runs" in text
    assert "2 of 2 hunks accepted in 2 files." in text


def test_your_changes_during_the_review_are_kept_and_the_hunks_rebased_onto_them(
    project: Path,
):
    script = [Turn(tool_calls=[FIX, SUB_NOTE]), Turn(tool_calls=[FINISH])]
    mul = "\n\ndef mul(a, b):\n    return a * b\n"
    with ScriptedServer(replies=script) as server:
        child = spawn(project, server)
        item(child, "calc.py · hunk 1 of 2")
        (project / "calc.py").write_bytes((CALC + mul).encode())  # the person types meanwhile
        typed(child, "y")
        item(child, "calc.py · hunk 2 of 2")
        typed(child, "n")
        child.expect(re.escape("calc.py changed since the agent read it; the changes are rebased"))
        child.expect(APPLY)
        (project / "calc.py").write_bytes(("# mine\n" + CALC + mul).encode())  # and again
        typed(child, "y")
        child.expect(re.escape("calc.py changed while you were deciding"))
        child.expect(APPLY)
        typed(child, "y")
        status, shown = finish(child)

    assert status == 0
    assert files(project)["calc.py"] == ("# mine\n" + FIXED + mul).encode()
    text = screen(shown)
    assert text.count("Apply these changes to your files? [y/N]") == 2
    assert (
        "Partly applied. calc.py: accepted: add adds (line 3), rejected: sub noted (line 6), "
        "rebased onto your changes." in text
    )


def test_ctrl_c_during_the_review_writes_nothing(project: Path):
    script = [Turn(tool_calls=[FIX, X_THREE]), Turn(tool_calls=[FINISH])]
    with ScriptedServer(replies=script) as server:
        child = spawn(project, server)
        item(child, "calc.py · hunk 1 of 2")
        typed(child, "y")
        item(child, "helper.py · hunk 2 of 2")
        time.sleep(0.3)
        child.sendintr()
        child.expect(r"Cancelled\. Nothing was written\.")
        status, shown = finish(child)

    assert status == 130
    assert "Traceback" not in shown
    assert files(project)["calc.py"] == CALC.encode()
    assert files(project)["helper.py"] == HELPER.encode()
