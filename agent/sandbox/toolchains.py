"""The host folders outside the system that a command needs, shown to it read-only.

Test runners need their interpreter: Python from pyenv lives in
``~/.pyenv``, Rust in ``~/.cargo``, Node from nvm in ``~/.nvm/versions/...``.
So each folder on ``PATH`` that the system mounts do not already show is
shown, as its toolchain: the folder holding ``bin`` (or ``shims``), e.g.
``~/.pyenv/shims`` gives ``~/.pyenv``; and so is the interpreter a
virtualenv was made from (``home`` in its ``pyvenv.cfg``). Never the home
folder itself or anything holding it, never a folder of secrets
(``~/.ssh``, ``~/.aws``, ...), never the real workspace; within
``~/.local`` only the ``bin`` folder on ``PATH``. Credential files at a
toolchain's top (``~/.cargo/credentials.toml``) are masked.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

BIN_NAMES = frozenset({"bin", "sbin", "shims"})
SHARED_HOME_NAMES = frozenset({".local"})  # only the PATH folder itself, not its parent
SECRET_HOME_NAMES = frozenset(
    {".ssh", ".aws", ".gnupg", ".config", ".docker", ".kube", ".azure", ".password-store"}
)
CREDENTIAL_NAMES = ("credentials", "credentials.toml", ".credentials.json", "auth.json")


def toolchains(
    path_entries: Iterable[str], interpreters: Iterable[Path], *, home: Path, workspace: Path
) -> list[Path]:
    """The folders to show read-only for these ``PATH`` entries and interpreter folders."""
    found: set[Path] = set()
    candidates = [Path(entry) for entry in path_entries if entry] + list(interpreters)
    for folder in candidates:
        if not folder.is_absolute() or not folder.is_dir():
            continue
        root = _root_of(Path(os.path.normpath(folder)), home)
        if root is not None and _allowed(root, home, workspace):
            found.add(root)
    return sorted(f for f in found if not any(f != o and f.is_relative_to(o) for o in found))


def credentials(folders: Iterable[Path]) -> list[Path]:
    """Credential files at the top of ``folders``, to be masked."""
    return [f / name for f in folders for name in CREDENTIAL_NAMES if (f / name).is_file()]


def venv_interpreter(venv: Path) -> Path | None:
    """The folder of the interpreter a virtualenv was made from (``home`` in pyvenv.cfg)."""
    try:
        lines = (venv / "pyvenv.cfg").read_text("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return Path(value.strip())
    return None


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
