"""A git command started now and read later, so the caller can work meanwhile.

The shadow copy's ``git status`` and ``list_files``' ``git ls-files`` run
beside other work; each waits a bounded time for its answer, and a git
that is missing, fails or hangs answers None (the caller then walks).
"""

from __future__ import annotations

import subprocess
from pathlib import Path


class GitProcess:
    """``git ARGS`` in ``root``, started at once; ``output`` waits for its stdout."""

    def __init__(self, root: Path, *args: str, seconds: float) -> None:
        self.seconds = seconds
        try:
            self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
                ["git", *args],
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            self.process = None

    def output(self) -> bytes | None:
        """What git printed, or None if it could not run, failed or took too long."""
        if self.process is None:
            return None
        try:
            out, _ = self.process.communicate(timeout=self.seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()
            return None
        return out if self.process.returncode == 0 else None
