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


def descendants(ancestor: int, argv: list[str]) -> list[int]:
    """Host PIDs of live processes running exactly ``argv`` that descend from ``ancestor``.

    A sandboxed command runs under the sandbox's own processes, so its parent
    is not the one that started it: the whole line of parents is followed.
    """
    parents: dict[int, int] = {}
    matching = []
    wanted = "\0".join(argv).encode() + b"\0"
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents[int(entry.name)] = int(fields[1])
        if command == wanted and fields[0] != "Z":
            matching.append(int(entry.name))
    found = []
    for pid in matching:
        parent = parents.get(pid, 0)
        while parent > 1 and parent != ancestor:
            parent = parents.get(parent, 0)
        if parent == ancestor:
            found.append(pid)
    return found
