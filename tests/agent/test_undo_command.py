"""``surehand history`` and ``surehand undo`` as real processes over real files: a task
taken back whole, the person's change since kept, a clash refused with nothing changed,
created, deleted and moved files, several tasks undone newest first."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.staging.history import FileChange, History

SUREHAND = [sys.executable, "-m", "surehand"]
BEFORE = "def area(w, h):\n    return w * h\n\n\ndef total(xs):\n    return sum(xs)\n"
AFTER = BEFORE.replace("w * h", "w * h  # metres")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    return root


def surehand(root: Path, *args: str, answer: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*SUREHAND, *args, "--workspace", str(root)],
        input=answer,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )


def test_a_task_is_listed_then_undone_after_yes(project: Path):
    (project / "calc.py").write_bytes(AFTER.encode())
    (project / "new.py").write_bytes(b"x = 1\n")
    record = History.of(project).record(
        "label the units",
        [FileChange("calc.py", BEFORE, AFTER), FileChange("new.py", None, "x = 1\n")],
        front="terminal",
    )
    assert record is not None
    listed = surehand(project, "history")
    assert listed.returncode == 0
    assert record.id in listed.stdout and "“label the units”" in listed.stdout
    assert "calc.py changed; new.py created" in listed.stdout

    declined = surehand(project, "undo", answer="n\n")
    assert declined.returncode == 1 and "Nothing was undone." in declined.stdout
    assert (project / "calc.py").read_bytes() == AFTER.encode()

    done = surehand(project, "undo", answer="y\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "-    return w * h  # metres" in done.stdout
    assert (project / "calc.py").read_bytes() == BEFORE.encode()
    assert not (project / "new.py").exists()
    assert "calc.py restored; new.py deleted." in done.stdout
    assert "(undone)" in surehand(project, "history").stdout
    again = surehand(project, "undo", "--yes")
    assert again.returncode == 1 and "No accepted task is left" in again.stdout


def test_the_persons_change_since_is_kept(project: Path):
    mine = AFTER.replace("sum(xs)", "sum(xs)  # mine")
    (project / "calc.py").write_bytes(mine.encode())
    History.of(project).record("units", [FileChange("calc.py", BEFORE, AFTER)], front="editor")
    done = surehand(project, "undo", "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (project / "calc.py").read_bytes() == BEFORE.replace(
        "sum(xs)", "sum(xs)  # mine"
    ).encode()


def test_a_clash_with_the_persons_lines_changes_nothing_and_names_the_file(project: Path):
    mine = AFTER.replace("# metres", "# square metres")
    (project / "calc.py").write_bytes(mine.encode())
    (project / "other.py").write_bytes(b"two\n")
    History.of(project).record(
        "units",
        [FileChange("calc.py", BEFORE, AFTER), FileChange("other.py", "one\n", "two\n")],
        front="terminal",
    )
    done = surehand(project, "undo", "--yes")
    assert done.returncode == 1
    assert "Nothing was undone" in done.stdout
    assert "calc.py: you changed line(s) 2 since" in done.stdout
    assert (project / "calc.py").read_bytes() == mine.encode()
    assert (project / "other.py").read_bytes() == b"two\n", "nothing is half undone"


def test_a_moved_and_a_deleted_file_come_back(project: Path):
    (project / "pkg").mkdir()
    (project / "pkg" / "calc.py").write_bytes(AFTER.encode())
    History.of(project).record(
        "move and drop",
        [
            FileChange("pkg/calc.py", BEFORE, AFTER, source="calc.py"),
            FileChange("old.txt", "kept\r\n", None),
        ],
        front="editor",
    )
    done = surehand(project, "undo", "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (project / "calc.py").read_bytes() == BEFORE.encode()
    assert not (project / "pkg" / "calc.py").exists()
    assert (project / "old.txt").read_bytes() == b"kept\r\n"


def test_tasks_are_undone_newest_first(project: Path):
    second = AFTER.replace("return sum", "return 0 + sum")
    (project / "calc.py").write_bytes(second.encode())
    kept = History.of(project)
    first = kept.record("one", [FileChange("calc.py", BEFORE, AFTER)], front="terminal")
    kept.record("two", [FileChange("calc.py", AFTER, second)], front="terminal")
    assert first is not None
    out_of_order = surehand(project, "undo", "--yes", "--task", first.id)
    assert (
        out_of_order.returncode == 2 and "newest first" in out_of_order.stderr + out_of_order.stdout
    )
    assert surehand(project, "undo", "--yes").returncode == 0
    assert (project / "calc.py").read_bytes() == AFTER.encode()
    assert surehand(project, "undo", "--yes", "--task", first.id).returncode == 0
    assert (project / "calc.py").read_bytes() == BEFORE.encode()
