"""What of the machine a command in the shadow copy is shown: the sandbox ``Layout``.

The copy, writable, at its own path. Each folder the copy links (the
virtualenv, ``node_modules``, other ignored folders, ``.git``) shown
read-only at its place in the copy; a virtualenv and ``node_modules`` also
at their real path, where the scripts in them point (``#!/real/.venv/bin/
python``). ``.git/hooks`` masked. The toolchains on ``PATH`` and the
virtualenv's interpreter read-only (``agent.execution.sandbox.toolchains``: only the
prefix of a real installation, whatever the repository's ``pyvenv.cfg``
says), their
credential files masked; the folders the user configured
(``sandboxReadOnlyPaths``, ``sandboxWritablePaths``); an empty private
``HOME`` at the user's home path, so tools that look there find nothing of
the user's; and the resource limits (``agent.execution.sandbox.limits``).

With an overlay (``ShadowOverlay``) the copy's path is the overlay's mount
point, and the same folders are shown read-only over it.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent.config.settings import Settings
from agent.execution.command_env import VENV_NAMES
from agent.execution.sandbox import Layout, Mount
from agent.execution.sandbox.bubblewrap import visible
from agent.execution.sandbox.limits import MIB, ResourceLimits
from agent.execution.sandbox.toolchains import credentials, toolchains, venv_interpreter
from agent.execution.shadow import ShadowCopy
from agent.execution.shadow_overlay import ShadowOverlay
from agent.execution.shadow_scan import LINKED_NAMES

FALLBACK_HOME = Path("/tmp/home")  # when the user's home cannot be used (unset, "/", system)


def command_layout(
    shadow: ShadowCopy | ShadowOverlay, settings: Settings, *, contained: bool
) -> Layout:
    """The layout for the next command; without a sandbox, only its paths matter."""
    if not contained:
        real_home = Path(os.environ.get("HOME") or "/")
        return Layout(root=shadow.root, home=real_home, network=True)
    home = _home()
    source, root = shadow.source, shadow.root
    read_only = [Mount(source / link, root / link) for link in sorted(shadow.links)]
    read_only += [
        Mount(source / link, source / link)
        for link in sorted(shadow.links)
        if link.rpartition("/")[2] in LINKED_NAMES and not visible(source / link)
    ]
    read_only += _worktree_git(source)
    venvs = [source / name for name in VENV_NAMES if name in shadow.links]
    found = (venv_interpreter(venv, home=home, workspace=source) for venv in venvs)
    interpreters = [p for p in found if p is not None]
    path = os.environ.get("PATH", os.defpath).split(":")
    chains = toolchains(path, interpreters, home=home, workspace=source)
    read_only += [Mount(t, t) for t in chains if not visible(t)]
    read_only += [Mount(Path(p), Path(p)) for p in settings.sandbox_read_only_paths]
    writable = [Mount(Path(p), Path(p)) for p in settings.sandbox_writable_paths]
    hidden = [Mount(f, f) for f in credentials(chains)]
    if ".git" in shadow.links and (source / ".git" / "hooks").is_dir():
        hidden.append(Mount(source / ".git" / "hooks", root / ".git" / "hooks"))
    return Layout(
        root=root,
        home=home,
        read_only=tuple(m for m in read_only if m.host.exists()),
        writable=tuple(m for m in writable if m.host.exists()),
        hidden=tuple(hidden),
        network=settings.sandbox_network,
        overlay=shadow.layers,
        limits=resource_limits(settings),
    )


def resource_limits(settings: Settings) -> ResourceLimits:
    """What a sandboxed command may use of the machine, from the settings (a project's
    file may only lower them: ``agent.config.settings_table``)."""
    return ResourceLimits(
        processes=settings.sandbox_processes,
        memory=settings.sandbox_memory_mb * MIB,
        file_size=settings.sandbox_file_mb * MIB,
        tmp_size=settings.sandbox_tmp_mb * MIB,
        home_size=settings.sandbox_home_mb * MIB,
    )


def _home() -> Path:
    home = Path(os.environ.get("HOME") or "/")
    if not home.is_absolute() or home == Path("/") or visible(home):
        return FALLBACK_HOME
    return home


def _worktree_git(source: Path) -> list[Mount]:
    """A ``.git`` file's git folder (``gitdir: ...``) and its common folder, read-only."""
    try:
        text = (source / ".git").read_text("utf-8") if (source / ".git").is_file() else ""
    except OSError:
        return []
    if not text.startswith("gitdir:"):
        return []
    gitdir = (source / text.removeprefix("gitdir:").strip()).resolve()
    folders = [gitdir]
    try:
        common = (gitdir / "commondir").read_text("utf-8").strip()
        folders.append((gitdir / common).resolve())
    except OSError:
        pass
    return [Mount(f, f) for f in folders if f.is_dir()]
