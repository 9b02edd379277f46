"""Who a shadow copy belongs to, so that a crashed process's copy is removed later.

Each copy lives in a folder ``surehand-shadow-*`` of the temporary
directory, beside a file ``owner`` naming the process that made it (its
PID and, where ``/proc`` tells, its start time, so a reused PID is not
mistaken for it). ``sweep`` removes the folders whose owner is gone; a
folder without that file is not ours to judge, and is left alone.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "surehand-shadow-"
OWNER = "owner"


def make_folder() -> Path:
    """A new folder for a copy, with this process written in it as its owner."""
    folder = Path(tempfile.mkdtemp(prefix=PREFIX)).resolve()
    (folder / OWNER).write_text(json.dumps(_me()), encoding="utf-8")
    return folder


def sweep(where: Path | None = None) -> list[Path]:
    """Remove the copies whose owner process has ended; returns what was removed."""
    removed = []
    for folder in Path(where or tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            owner = json.loads((folder / OWNER).read_text(encoding="utf-8"))
            pid, started = int(owner["pid"]), owner.get("started")
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not a copy made by this version, or not ours at all
        if not _alive(pid, started):
            # rmtree removes links as links: never follows them into the user's tree.
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _me() -> dict[str, object]:
    return {"pid": os.getpid(), "started": _start_time(os.getpid())}


def _alive(pid: int, started: object) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return started is None or _start_time(pid) in (None, started)


def _start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (Linux), None where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])
