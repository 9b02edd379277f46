"""Finding a test's processes on the host, by a marker in their command line.

A sandboxed command has its own PID namespace, so the PIDs it sees mean
nothing outside: tests start ``sleep`` with a duration nobody else uses
and look for it among the host's processes.
"""

import time
import uuid
from pathlib import Path


def marker() -> str:
    """A ``sleep`` duration unique to the caller, e.g. ``"600.1234567"``."""
    return f"600.{uuid.uuid4().int % 10**7:07d}"


def running(mark: str) -> list[int]:
    """Host PIDs of live (not zombie) processes with ``mark`` as an argument."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if mark.encode() in argv and state != "Z":
            found.append(int(entry.name))
    return found


def gone(mark: str, wait: float = 5.0) -> bool:
    """Whether every process with ``mark`` has exited (within ``wait`` seconds)."""
    deadline = time.monotonic() + wait
    while running(mark):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
