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

``overlay_probe`` tries it all once, for real, with a time limit.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

PROBE_SECONDS = 10.0
UNSAFE_IN_OPTIONS = frozenset(",:\\\n")  # these would split or escape the mount options
# No redirects, index, metacopy or inode numbers across layers: an upper folder with only
# whole files and plain whiteouts, which ``agent.execution.shadow_overlay`` reads, and a lower
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
class OverlayLayers:
    """The folders of an overlay mounted at the layout's root for one command."""

    lower: Path  # the real workspace: read, never written
    upper: Path  # what the command and the staged texts wrote
    work: Path  # the kernel's scratch folder, on the upper folder's file system


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
        return run_mount(argv)


def usable_path(path: Path) -> bool:
    """Whether a folder can be named in the mount options."""
    return not UNSAFE_IN_OPTIONS.intersection(str(path))


def run_mount(argv: list[str], expect: str | None = None) -> str | None:
    """Run a command that mounts an overlay, with a time limit: why it failed, or None."""
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
