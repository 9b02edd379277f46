"""An overlay of the workspace, mounted for one sandboxed command only.

The kernel's overlayfs is mounted in a private mount namespace that
``unshare`` makes for the command, and bubblewrap, started in it, binds the
mount as the command's tree. When the command's last process ends, the
namespace and the mount end with it: nothing is ever mounted on the host,
and nothing is left to unmount after a crash.

As root, the namespace is a mount namespace only (the overlay keeps its
metadata in ``trusted.overlay.*`` attributes). As another user, it is also a
user namespace where the user is root (``unshare -r``: ``mount`` insists on
uid 0), the overlay mounted with ``userxattr`` (``user.overlay.*``), and
bubblewrap told to run the command as the user again. One way is chosen per
process (by its user), so an upper folder is always read the way it was
written.

``probe`` tries it all once, for real, with a time limit: a file read
through the overlay, one written and one deleted, the lower folder
unchanged.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import shadow_owner
from .base import Layout, OverlayLayers

if TYPE_CHECKING:
    from .bubblewrap import Bubblewrap

PROBE_SECONDS = 10.0
UNSAFE_IN_OPTIONS = frozenset(",:\\\n")  # these would split or escape the mount options
# No redirects, index, metacopy or inode numbers across layers: an upper folder with only
# whole files and plain whiteouts, which ``agent.shadow_overlay`` reads, and a lower
# folder that may change between mounts.
ROOT_OPTIONS = "redirect_dir=off,index=off,metacopy=off,xino=off"
USER_OPTIONS = "userxattr,redirect_dir=nofollow,index=off,metacopy=off,xino=off"
# "$1" lower, "$2" upper, "$3" work, "$4" the mount point, "$5" more options; then bwrap.
SCRIPT = (
    'o="lowerdir=$1,upperdir=$2,workdir=$3,$5"; m="$4"; shift 5; '
    'err=$(mount -t overlay overlay -o "$o" "$m" 2>&1) || '
    '{ echo "bwrap: cannot mount the workspace overlay: $err"; exit 1; }; exec "$@"'
)


@dataclass(frozen=True)
class OverlayMounter:
    """How this process mounts an overlay for a command."""

    unshare: str  # the program's path
    as_user: bool  # in a user namespace (not root): userxattr, and bwrap maps the user back
    uid: int
    gid: int

    @property
    def xattr(self) -> str:
        """The prefix of the overlay's own attributes in the upper folder."""
        return "user.overlay." if self.as_user else "trusted.overlay."

    def prefix(self, layers: OverlayLayers, root: Path) -> list[str]:
        """The command line before bwrap's: a mount namespace with the overlay at ``root``."""
        namespace = ["-rm"] if self.as_user else ["-m"]
        options = USER_OPTIONS if self.as_user else ROOT_OPTIONS
        folders = [str(layers.lower), str(layers.upper), str(layers.work), str(root)]
        return [
            self.unshare,
            *namespace,
            "--propagation",
            "private",
            "--",
            "/bin/sh",
            "-c",
            SCRIPT,
            "sh",
            *folders,
            options,
        ]

    def bwrap_args(self) -> list[str]:
        """bwrap's options to run the command as the user (in the user namespace, uid 0)."""
        return ["--uid", str(self.uid), "--gid", str(self.gid)] if self.as_user else []

    def check(self, layers: OverlayLayers, root: Path) -> str | None:
        """Mount these layers once, at once unmounted (the namespace ends): why not, or None."""
        argv = [*self.prefix(layers, root), "/bin/true"]
        return _run(argv)


def usable_path(path: Path) -> bool:
    """Whether a folder can be named in the mount options."""
    return not UNSAFE_IN_OPTIONS.intersection(str(path))


def probe(sandbox: Bubblewrap) -> OverlayMounter | str:
    """A way to mount an overlay for a command here, or why there is none."""
    if os.environ.get("SUREHAND_SHADOW") == "copy":  # for tests of the copy on any machine
        return "the copy was asked for (SUREHAND_SHADOW=copy)"
    program = shutil.which("unshare")
    if program is None:
        return "unshare is not installed"
    mounter = OverlayMounter(program, os.geteuid() != 0, os.getuid(), os.getgid())
    folder = Path(tempfile.mkdtemp(prefix="surehand-probe-")).resolve()
    try:
        if not usable_path(folder):
            return f"the temporary folder's path ({folder}) cannot be named to mount"
        return _try(sandbox, mounter, folder)
    finally:
        shadow_owner.remove(folder)  # the work folder holds a folder of mode 000


def _try(sandbox: Bubblewrap, mounter: OverlayMounter, folder: Path) -> OverlayMounter | str:
    layers = OverlayLayers(folder / "lower", folder / "upper", folder / "work")
    root = folder / "merged"
    for path in (layers.lower, layers.upper, layers.work, root, folder / "home"):
        path.mkdir()
    (layers.lower / "kept").write_text("lower\n")
    (layers.lower / "gone").write_text("lower\n")
    with_mounter = sandbox.with_overlay(mounter)
    layout = Layout(root=root, home=folder / "home", overlay=layers)
    script = "read line < kept && echo upper > made && rm gone && echo $line"
    why = _run(with_mounter.wrap(["/bin/sh", "-c", script], layout), expect="lower\n")
    if why is not None:
        return why
    gone = os.lstat(layers.upper / "gone")
    lower_intact = sorted(p.name for p in layers.lower.iterdir()) == ["gone", "kept"]
    if not lower_intact or (layers.upper / "made").read_text() != "upper\n":
        return "the overlay did not keep its writes apart"
    if not (stat.S_ISCHR(gone.st_mode) and gone.st_rdev == 0):
        return "the overlay did not record a deletion as a whiteout"
    return mounter


def _run(argv: list[str], expect: str | None = None) -> str | None:
    try:
        done = subprocess.run(
            argv, check=False, capture_output=True, text=True, timeout=PROBE_SECONDS
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"cannot mount an overlay ({error})"
    if done.returncode != 0 or (expect is not None and done.stdout != expect):
        said = (done.stdout + done.stderr).strip().removeprefix("bwrap: ")
        return f"cannot mount an overlay ({said or f'exit code {done.returncode}'})"
    return None
