"""Whether an overlay can be mounted for a command here: tried once, for real.

``probe`` mounts one with a time limit, as a command's would be: a file
read through the overlay, one written and one deleted, the lower folder
unchanged. What fails is said, and commands then run in the copy.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from agent.execution import shadow_owner
from agent.execution.sandbox.base import Layout
from agent.execution.sandbox.bubblewrap import Bubblewrap
from agent.execution.sandbox.overlay import OverlayLayers, OverlayMounter, run_mount, usable_path


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
    why = run_mount(with_mounter.wrap(["/bin/sh", "-c", script], layout), expect="lower\n")
    if why is not None:
        return why
    gone = os.lstat(layers.upper / "gone")
    lower_intact = sorted(p.name for p in layers.lower.iterdir()) == ["gone", "kept"]
    if not lower_intact or (layers.upper / "made").read_text() != "upper\n":
        return "the overlay did not keep its writes apart"
    if not (stat.S_ISCHR(gone.st_mode) and gone.st_rdev == 0):
        return "the overlay did not record a deletion as a whiteout"
    return mounter
