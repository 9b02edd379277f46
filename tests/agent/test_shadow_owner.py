"""Copies a crashed process left behind are removed by the next one, and only those."""

import json
import os
import subprocess
import sys
from pathlib import Path

from agent.execution import shadow_owner
from agent.execution.shadow import ShadowCopy


def leftover(where: Path, name: str, owner: object | None) -> Path:
    folder = where / f"surehand-shadow-{name}"
    (folder / "copy").mkdir(parents=True)
    (folder / "copy/app.py").write_text("x = 1\n")
    if owner is not None:
        (folder / "owner").write_text(json.dumps(owner))
    return folder


def ended_process() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_only_the_copies_of_ended_processes_are_swept(tmp_path: Path):
    dead = leftover(tmp_path, "dead", {"pid": ended_process(), "started": 1})
    mine = leftover(
        tmp_path, "mine", {"pid": os.getpid(), "started": shadow_owner._start_time(os.getpid())}
    )
    reused = leftover(tmp_path, "reused", {"pid": os.getpid(), "started": -1})  # the PID lives on
    foreign = leftover(tmp_path, "foreign", None)
    garbled = leftover(tmp_path, "garbled", None)
    (garbled / "owner").write_text("not json")
    (tmp_path / "elsewhere").mkdir()
    link = dead / "copy/linked"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)

    assert sorted(shadow_owner.sweep(tmp_path)) == sorted([dead, reused])
    assert not dead.exists() and not reused.exists()
    assert mine.exists() and foreign.exists() and garbled.exists()
    assert (tmp_path / "elsewhere").is_dir(), "links are removed, never followed"


def test_a_new_copy_sweeps_and_its_close_leaves_nothing(tmp_path: Path, monkeypatch):
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr("tempfile.tempdir", None)
    dead = leftover(temp, "dead", {"pid": ended_process(), "started": None})
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws/app.py").write_text("x = 1\n")
    copy = ShadowCopy(tmp_path / "ws")
    assert not dead.exists()
    assert copy.root.parent.parent == temp
    assert json.loads((copy.root.parent / "owner").read_text())["pid"] == os.getpid()
    copy.close()
    assert list(temp.iterdir()) == []


def test_a_front_ends_start_sweeps_what_a_killed_process_left(tmp_path: Path):
    """The warm-up a front end starts once the editor is answered removes the copies of
    ended processes (a killed server cannot remove its own; a restarted one may never run
    a command, so its first copy would not sweep them)."""
    dead = leftover(tmp_path, "dead", {"pid": ended_process(), "started": 1})
    alive = leftover(tmp_path, "alive", {"pid": os.getpid(), "started": None})
    program = "from agent.loop import warm_up; warm_up.start().join(120)"
    done = subprocess.run(
        [sys.executable, "-c", program],
        env={**os.environ, "TMPDIR": str(tmp_path)},
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert not dead.exists()
    assert alive.exists()
