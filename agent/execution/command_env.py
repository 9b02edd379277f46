"""The environment a command gets: built from an allowlist, never inherited.

The server's environment holds the user's secrets (the model key, cloud
credentials, tokens, database URLs with passwords), and no deny-list can
name them all. So a command gets only the variables named here (locale,
terminal, time zone, the toolchains' own locations) and those the user
added with the ``commandEnvironment`` setting; then ``HOME`` (private in
the sandbox), ``TMPDIR``, the copy's packages first on ``PYTHONPATH`` and
the copy's virtualenv first on ``PATH``, and unbuffered Python output (the
model reads stdout and stderr as one stream, in order) with no bytecode
written (it could outlive a change the copy made). ``PATH`` entries
inside the real workspace are moved to the copy.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

PASSED = frozenset(
    {
        "PATH",
        "LANG",
        "LANGUAGE",
        "TERM",
        "TZ",
        "USER",
        "LOGNAME",
        "SHELL",
        "NO_COLOR",
        "FORCE_COLOR",
        "COLUMNS",
        "CI",
        "PYENV_ROOT",
        "PYENV_VERSION",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
        "GOROOT",
        "GOPATH",
        "GOFLAGS",
        "GOTOOLCHAIN",
        "JAVA_HOME",
        "NVM_DIR",
        "NVM_BIN",
    }
)
PASSED_PREFIXES = ("LC_",)
VENV_NAMES = (".venv", "venv")


def command_environment(
    source: Mapping[str, str],
    *,
    workspace: Path,
    root: Path,
    home: Path,
    tmp: str,
    extra: Iterable[str] = (),
) -> dict[str, str]:
    """The variables for a command run at ``root``, the copy of ``workspace``."""
    names = PASSED | set(extra)
    env = {
        name: value
        for name, value in source.items()
        if name in names or name.startswith(PASSED_PREFIXES)
    }
    path = [_moved(entry, workspace, root) for entry in env.get("PATH", os.defpath).split(":")]
    venv = next((root / n for n in VENV_NAMES if (workspace / n / "pyvenv.cfg").is_file()), None)
    if venv is not None:
        path.insert(0, str(venv / "bin"))
        env["VIRTUAL_ENV"] = str(venv)
    env["PATH"] = ":".join(dict.fromkeys(p for p in path if p))
    packages = [str(root), *([str(root / "src")] if (root / "src").is_dir() else [])]
    env["PYTHONPATH"] = os.pathsep.join(packages)
    env |= {"HOME": str(home), "TMPDIR": tmp, "PWD": str(root)}
    env["GIT_OPTIONAL_LOCKS"] = "0"  # git status must not rewrite the index
    env["PYTHONUNBUFFERED"] = "1"  # stdout and stderr are one stream: keep their order
    # The copy rewrites a file within the same second and at the same size (a - for a +):
    # bytecode stamped with the old mtime would run the old code.
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _moved(entry: str, workspace: Path, root: Path) -> str:
    path = Path(entry)
    if path.is_absolute() and path.is_relative_to(workspace):
        return str(root / path.relative_to(workspace))
    return entry
