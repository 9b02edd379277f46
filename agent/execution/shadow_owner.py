"""Who a shadow copy belongs to, so that a crashed process's copy is removed later.

Each copy lives in a folder ``surehand-shadow-*`` of the temporary
directory, beside a file ``owner`` naming the process that made it (its
PID and, where ``/proc`` tells, its start time, so a reused PID is not
mistaken for it), and the workspace it is a copy of. ``sweep`` removes
the folders whose owner is gone; a folder without that file is not ours to
judge, and is left alone.

``remove`` takes a folder away whatever it holds: links as links (never
followed), and folders without permissions, as an overlay's work folder
holds (``work/work``, mode 000).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

PREFIX = "surehand-shadow-"
OWNER = "owner"


def make_folder(workspace: Path | None = None) -> Path:
    """A new folder for a copy, with this process written in it as its owner (and the
    workspace it is a copy of, for whoever looks at the folder)."""
    folder = Path(tempfile.mkdtemp(prefix=PREFIX)).resolve()
    owner = _me() if workspace is None else {**_me(), "workspace": str(workspace)}
    (folder / OWNER).write_text(json.dumps(owner), encoding="utf-8")
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
            remove(folder)
            removed.append(folder)
    return removed


def remove(folder: Path) -> None:
    """Remove ``folder`` and everything in it, as far as this process may.

    rmtree removes links as links: it never follows them into the user's
    tree. A folder it cannot read or empty (mode 000) is given its owner's
    permissions (``chmod`` does not follow links) and tried again.
    """

    def retry(_function: object, failed: str, _error: object) -> None:
        path = Path(failed)
        for each in (path, path.parent):
            with contextlib.suppress(OSError):
                st = each.lstat()
                if stat.S_ISDIR(st.st_mode):
                    each.chmod(stat.S_IMODE(st.st_mode) | stat.S_IRWXU)
        with contextlib.suppress(OSError):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink()

    shutil.rmtree(folder, onerror=retry)
    if os.path.lexists(folder):  # what the first pass could not reach, opened up now
        shutil.rmtree(folder, ignore_errors=True)


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
