"""A program started now and read later, so the caller can work meanwhile.

The shadow copy's ``git status`` and ``find``, and ``list_files``' ``git
ls-files``, run beside other work; each waits a bounded time for its answer,
and a program that is missing, fails or hangs answers None (the caller then
does the work itself).
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path


class StartedProcess:
    """``argv`` in ``cwd``, started at once; ``output`` waits for its stdout."""

    def __init__(self, argv: Sequence[str], cwd: Path, *, seconds: float) -> None:
        self.seconds = seconds
        try:
            self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
                list(argv),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            self.process = None

    def output(self) -> bytes | None:
        """What it printed, or None if it could not run, failed or took too long."""
        if self.process is None:
            return None
        try:
            out, _ = self.process.communicate(timeout=self.seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()
            return None
        return out if self.process.returncode == 0 else None

    def stop(self) -> None:
        """Kill it if it still runs (its answer is no longer wanted), and reap it."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        if self.process is not None:
            self.process.communicate()


class GitProcess(StartedProcess):
    """``git ARGS`` in ``root``, started at once."""

    def __init__(self, root: Path, *args: str, seconds: float) -> None:
        super().__init__(["git", *args], root, seconds=seconds)
