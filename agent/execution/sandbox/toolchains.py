"""The host folders outside the system that a command needs, shown to it read-only.

Test runners need their interpreter: Python from pyenv lives in
``~/.pyenv``, Rust in ``~/.cargo``, Node from nvm in ``~/.nvm/versions/...``.
So each folder on ``PATH`` that the system mounts do not already show is
shown, as its toolchain: the folder holding ``bin`` (or ``shims``), e.g.
``~/.pyenv/shims`` gives ``~/.pyenv``. Never the home
folder itself or anything holding it, never a folder of secrets
(``~/.ssh``, ``~/.aws``, ...), never the real workspace; within
``~/.local`` only the ``bin`` folder on ``PATH``. Credential files at a
toolchain's top (``~/.cargo/credentials.toml``) are masked.

A project's virtualenv names the interpreter it was made from (``home`` in
its ``pyvenv.cfg``), and a repository can commit that file, naming any
folder. So it is believed only when it names a real Python installation:
a ``python`` program in that folder whose own prefix (the folder above its
``bin``, the link followed) holds ``lib/pythonX.Y/os.py``; outside the
workspace, in a ``pyvenv.cfg`` the repository does not track. Only that
prefix is shown, never the folder named, and never the home folder, a
folder holding it or a folder of secrets. ``PATH`` is the user's, not the
repository's; nothing else a command is shown comes from a project file.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

BIN_NAMES = frozenset({"bin", "sbin", "shims"})
SHARED_HOME_NAMES = frozenset({".local"})  # only the PATH folder itself, not its parent
SECRET_HOME_NAMES = frozenset(
    {".ssh", ".aws", ".gnupg", ".config", ".docker", ".kube", ".azure", ".password-store"}
)
CREDENTIAL_NAMES = ("credentials", "credentials.toml", ".credentials.json", "auth.json")
PYTHON_NAMES = ("python3", "python")
GIT_SECONDS = 10.0


def toolchains(
    path_entries: Iterable[str], prefixes: Iterable[Path], *, home: Path, workspace: Path
) -> list[Path]:
    """The folders to show read-only for these ``PATH`` entries and interpreter prefixes
    (``venv_interpreter``'s, shown as they are)."""
    found: set[Path] = set()
    for folder in (Path(entry) for entry in path_entries if entry):
        if not folder.is_absolute() or not folder.is_dir():
            continue
        root = _root_of(Path(os.path.normpath(folder)), home)
        if root is not None and _allowed(root, home, workspace):
            found.add(root)
    found.update(p for p in prefixes if _allowed(p, home, workspace) and not home.is_relative_to(p))
    return sorted(f for f in found if not any(f != o and f.is_relative_to(o) for o in found))


def credentials(folders: Iterable[Path]) -> list[Path]:
    """Credential files at the top of ``folders``, to be masked."""
    return [f / name for f in folders for name in CREDENTIAL_NAMES if (f / name).is_file()]


def venv_interpreter(venv: Path, *, home: Path, workspace: Path) -> Path | None:
    """The installation prefix of the interpreter a virtualenv was made from, or None.

    ``home`` in ``pyvenv.cfg`` is followed only to a real Python installation
    outside ``workspace`` (see the module's note), and only when the
    repository does not track the file.
    """
    config = venv / "pyvenv.cfg"
    try:
        lines = config.read_text("utf-8", "replace").splitlines()
    except OSError:
        return None
    named = None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            named = Path(value.strip())
    if named is None or not named.is_absolute() or _tracked(config, workspace):
        return None
    prefix = python_prefix(named)
    if prefix is None or home.is_relative_to(prefix):
        return None
    real_workspace = Path(os.path.realpath(workspace))
    if not (_allowed(prefix, home, workspace) and _allowed(prefix, home, real_workspace)):
        return None
    return prefix


def python_prefix(folder: Path) -> Path | None:
    """The installation prefix of the ``python`` in ``folder``, if it is a real one."""
    for name in PYTHON_NAMES:
        program = folder / name
        if not (program.is_file() and os.access(program, os.X_OK)):
            continue
        real = Path(os.path.realpath(program))
        if real.parent.name != "bin":
            continue
        prefix = real.parent.parent
        if any(lib.is_file() for lib in prefix.glob("lib/python3*/os.py")):
            return prefix
    return None


def _tracked(path: Path, workspace: Path) -> bool:
    """Whether the repository at ``workspace`` tracks ``path`` (unsure: yes)."""
    if not os.path.lexists(workspace / ".git"):
        return False
    try:
        done = subprocess.run(
            ["git", "-C", str(workspace), "ls-files", "-z", "--", str(path)],
            check=False,
            capture_output=True,
            timeout=GIT_SECONDS,
        )
    except (OSError, subprocess.SubprocessError):
        return True
    return done.returncode != 0 or bool(done.stdout)


def _root_of(folder: Path, home: Path) -> Path | None:
    root = folder.parent if folder.name in BIN_NAMES else folder
    if root.parent == home and root.name in SHARED_HOME_NAMES:
        root = folder
    if home.is_relative_to(root):  # the home folder itself, or "/"
        return None if home.is_relative_to(folder) else folder
    return root


def _allowed(root: Path, home: Path, workspace: Path) -> bool:
    if root.is_relative_to(workspace) or workspace.is_relative_to(root):
        return False
    if root.is_relative_to(home):
        first = root.relative_to(home).parts[0]
        return first not in SECRET_HOME_NAMES
    return True
