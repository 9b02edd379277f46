"""Rules for the allowlisted read-only commands' arguments.

``cat``, ``head``, ``tail``, ``ls``, ``wc`` and ``git diff|show|log|status``
run without asking because they only read. Two things their arguments can
do break that: an option that writes (``git diff --output=FILE``), which
makes the command no longer allowlisted, and, where there is no sandbox to
hide the rest of the machine, a path that leads out of the workspace
(``/home/me/.aws/credentials``, ``../..``, a link in the copy pointing out),
which is refused.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

READERS = frozenset({"cat", "head", "tail", "ls", "wc"})
GIT_READERS = frozenset({"diff", "show", "log", "status"})
GIT_WRITING_OPTIONS = frozenset({"--output", "-o"})


def reads_only(argv: Sequence[str]) -> bool:
    """Whether ``argv`` is one of the read-only commands."""
    if not argv:
        return False
    if argv[0] == "git":
        return len(argv) > 1 and argv[1] in GIT_READERS
    return argv[0] in READERS


def writing_option(argv: Sequence[str]) -> str | None:
    """The option of a read-only command that makes it write a file, if it has one."""
    if not reads_only(argv):
        return None
    for token in argv[1:]:
        name = token.partition("=")[0]
        if name == "--output" or (argv[0] == "git" and name in GIT_WRITING_OPTIONS):
            return token
    return None


def paths_outside(argv: Sequence[str], root: Path, allowed: Sequence[Path]) -> list[str]:
    """The arguments of a read-only command that name a path outside ``root`` and ``allowed``.

    Every argument that is not an option is taken as a path, resolved from
    ``root`` (where commands run) with links followed; a revision such as
    ``HEAD~1`` resolves inside, so it passes.
    """
    if not reads_only(argv):
        return []
    places = [root, *allowed]
    outside = []
    for token in argv[2 if argv[0] == "git" else 1 :]:
        value = token.partition("=")[2] if token.startswith("--") else token
        if not value or (token.startswith("-") and not token.startswith("--")):
            continue
        real = Path(os.path.realpath(root / Path(value).expanduser()))
        if not any(real.is_relative_to(place) for place in places):
            outside.append(value)
    return outside
