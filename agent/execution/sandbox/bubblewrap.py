"""The Linux sandbox: bubblewrap (``bwrap``), as Flatpak and Claude Code's sandbox use it.

A command gets new mount, PID, IPC, UTS, cgroup, user and network
namespaces (``--unshare-all``; ``--share-net`` only when the network is
allowed), no capabilities, a session of its own (no typing into the
user's terminal) and dies with its parent. What it sees:

- the system read-only: ``/usr``, ``/etc``, ``/opt`` and the ``/bin``,
  ``/lib`` ... links; the password hashes and private keys in ``/etc``
  masked;
- its own ``/proc`` (only its own processes: no other process's
  environment), a minimal ``/dev``, a private empty ``/tmp``;
- an empty private ``HOME`` (a tmpfs at the same path), with the
  toolchains found on ``PATH`` bound read-only inside it;
- the shadow copy, the only writable tree, and the layout's read-only and
  writable folders (the project's virtualenv and ``node_modules``, its
  ``.git`` with ``hooks`` masked).

It may use only so much of the machine (``agent.execution.sandbox.limits``):
processes, memory a process, the size of a file, of ``/tmp`` and of
``HOME``.

The command's tree is the shadow copy, or, where ``overlay_probe.probe`` finds it
works, an overlay of the real workspace mounted for that command only
(``agent.execution.sandbox.overlay``): bwrap is then started by ``unshare`` in a
mount namespace of its own, holding the mount.

Everything else, the real workspace and the rest of the user's home
included, does not exist in the sandbox. When the command's first process
ends, the PID namespace ends, and every process it left behind with it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from agent.execution.sandbox.base import Layout, Mount
from agent.execution.sandbox.limits import ResourceLimits, in_cgroup, pids_cgroup, supervised
from agent.execution.sandbox.overlay import OverlayMounter

SYSTEM_DIRS = ("/usr", "/etc", "/opt")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
MASKED_FILES = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers")
SSH_HOST_KEYS = "ssh_host_*_key"  # in /etc/ssh
MASKED_DIRS = ("/etc/sudoers.d", "/etc/ssl/private")
PROBE_SECONDS = 10.0


class Bubblewrap:
    name = "bubblewrap"
    contained = True
    why = ""

    def __init__(
        self,
        program: str,
        version: str,
        overlay: OverlayMounter | None = None,
        shadow: str = "",
        sizes: bool = True,
    ) -> None:
        self.program = program
        self.version = version
        self.overlay = overlay  # how to mount the workspace overlay, None: the copy is used
        self.shadow = shadow  # why the copy is used ("" when it is the overlay, or not probed)
        self.sizes = sizes  # whether this bwrap bounds a tmpfs (``--size``, bwrap 0.7 and later)

    def with_overlay(self, overlay: OverlayMounter | None, why_not: str = "") -> Bubblewrap:
        return Bubblewrap(self.program, self.version, overlay, why_not, self.sizes)

    def describe(self, network: bool, limits: ResourceLimits | None = None) -> str:
        net = "network allowed" if network else "no network"
        if self.overlay is not None:
            copy = "an overlay of your workspace, where only the staged files are written"
        else:
            copy = "a full copy of your workspace" + (f": {self.shadow}" if self.shadow else "")
        limits = limits or ResourceLimits()
        return (
            f"sandboxed ({self.version}): {net}; it sees the system read-only and writes "
            f"only the copy ({copy}) and a private temporary folder; your home and your "
            f"real workspace are not visible; at most {limits.describe()}"
        )

    def wrap(self, argv: list[str], layout: Layout) -> list[str]:
        args: list[str] = []
        as_user: list[str] = []
        if layout.overlay is not None:
            if self.overlay is None:
                raise ValueError("this sandbox cannot mount an overlay")
            args += self.overlay.prefix(layout.overlay, layout.root)
            as_user = self.overlay.bwrap_args()
        args += [self.program, "--unshare-all", "--die-with-parent", "--new-session", *as_user]
        args += ["--cap-drop", "ALL"]
        if layout.network:
            args.append("--share-net")
        args += _system()
        limits = layout.limits
        tmp = self._size(limits.tmp_size) if limits else []
        home = self._size(limits.home_size) if limits else []
        args += ["--proc", "/proc", "--dev", "/dev", *tmp, "--tmpfs", "/tmp"]
        args += ["--dir", "/var", *tmp, "--tmpfs", "/var/tmp"]
        if layout.network:
            args += _resolver()
        mounts: list[tuple[Path, list[str]]] = [(layout.home, [*home, "--tmpfs", str(layout.home)])]
        mounts.append((layout.root, ["--bind", str(layout.root), str(layout.root)]))
        mounts += [(m.inside, ["--ro-bind", str(m.host), str(m.inside)]) for m in layout.read_only]
        mounts += [(m.inside, ["--bind", str(m.host), str(m.inside)]) for m in layout.writable]
        for _, mount in sorted(mounts, key=lambda item: len(item[0].parts)):  # parents first
            args += mount
        for mask in layout.hidden:
            args += _mask(mask)
        if limits is None:
            return [*args, "--chdir", str(layout.root), "--", *argv]
        cgroup = pids_cgroup(limits.processes) if os.geteuid() == 0 else None
        inside = supervised(argv, limits, layout.home, rlimit_processes=os.geteuid() != 0)
        args += ["--chdir", str(layout.root), "--", *inside]
        return in_cgroup(cgroup, limits.processes, args) if cgroup is not None else args

    def _size(self, figure: int) -> list[str]:
        return ["--size", str(figure)] if self.sizes else []

    def not_started(self, exit_code: int | None, output: str) -> str | None:
        """What went wrong when bwrap itself failed (it says ``bwrap: ...``), else None."""
        if exit_code == 1 and output.startswith("bwrap: "):
            return output.strip().splitlines()[0]
        return None


def find() -> Bubblewrap | str:
    """A working bubblewrap, or why there is none (it is run once, to be sure)."""
    program = shutil.which("bwrap")
    if program is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        version = subprocess.run(
            [program, "--version"],
            check=False,
            capture_output=True,
            text=True,
            timeout=PROBE_SECONDS,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as error:
        return f"bwrap cannot run ({error})"
    try:
        usage = subprocess.run(
            [program, "--help"], check=False, capture_output=True, text=True, timeout=PROBE_SECONDS
        ).stdout
    except (OSError, subprocess.SubprocessError) as error:
        return f"bwrap cannot run ({error})"
    sandbox = Bubblewrap(program, version or "bubblewrap", sizes="--size" in usage)
    with tempfile.TemporaryDirectory(prefix="surehand-probe-") as folder:
        root = Path(folder).resolve()
        (root / "home").mkdir()
        argv = sandbox.wrap(["true"], Layout(root=root, home=root / "home"))
        try:
            done = subprocess.run(
                argv, check=False, capture_output=True, text=True, timeout=PROBE_SECONDS
            )
        except (OSError, subprocess.SubprocessError) as error:
            return f"bwrap cannot run ({error})"
    if done.returncode != 0:
        why = done.stderr.strip().removeprefix("bwrap: ") or f"exit code {done.returncode}"
        return f"bwrap cannot make a sandbox here ({why}; are user namespaces disabled?)"
    return sandbox


def _system() -> list[str]:
    args: list[str] = []
    for folder in SYSTEM_DIRS:
        if Path(folder).is_dir():
            args += ["--ro-bind", folder, folder]
    for link in SYSTEM_LINKS:
        path = Path(link)
        if path.is_symlink():
            args += ["--symlink", str(path.readlink()), link]
        elif path.is_dir():
            args += ["--ro-bind", link, link]
    masked = [*MASKED_FILES, *(str(p) for p in Path("/etc/ssh").glob(SSH_HOST_KEYS))]
    for file in masked:
        if Path(file).is_file():
            args += ["--ro-bind", "/dev/null", file]
    for folder in MASKED_DIRS:
        if Path(folder).is_dir():
            args += ["--tmpfs", folder]
    return args


def _resolver() -> list[str]:
    """With the network on: the resolver ``/etc/resolv.conf`` points to under ``/run``."""
    target = Path("/etc/resolv.conf").resolve()
    if target.parts[:2] == ("/", "run") and target.exists():
        return ["--ro-bind", str(target.parent), str(target.parent)]
    return []


def _mask(mask: Mount) -> list[str]:
    """An empty folder, or an empty file, over ``mask.inside`` (as the host path is)."""
    if mask.host.is_dir():
        return ["--tmpfs", str(mask.inside)]
    return ["--ro-bind", "/dev/null", str(mask.inside)]


def visible(path: Path) -> bool:
    """Whether the system mounts already show ``path`` (so it needs no mount of its own)."""
    real = Path(os.path.realpath(path))
    return any(real.is_relative_to(folder) for folder in SYSTEM_DIRS)


__all__ = ["Bubblewrap", "Mount", "find", "visible"]
