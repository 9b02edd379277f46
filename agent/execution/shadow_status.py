"""Which shadow this machine gives commands, and what it costs, for ``surehand status``.

With a sandbox that can mount an overlay, commands see an overlay of the
workspace: nothing is copied. Otherwise they run in a copy of it
(``agent.execution.shadow``): its size here is what the first command of a session
copies; a later session in the same process takes the copy back and
brings it up to date, as each sync does, by asking git and ``find`` what
changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.execution.sandbox import Sandbox
from agent.execution.sandbox.bubblewrap import Bubblewrap
from agent.execution.shadow_scan import scan


@dataclass(frozen=True)
class ShadowPlan:
    kind: str  # "overlay" or "copy"
    why: str  # why a copy ("" for the overlay)
    files: int  # what a copy holds: files copied
    size: int  # and their bytes
    linked: int  # folders linked (or shown read-only in a sandbox), not copied

    def lines(self) -> list[str]:
        if self.kind == "overlay":
            return [
                "shadow: an overlay of the workspace (nothing is copied; "
                "each command mounts it in its sandbox)"
            ]
        linked = f", {self.linked} folder{'s' * (self.linked != 1)} linked" if self.linked else ""
        return [
            f"shadow: a copy of the workspace ({self.why})",
            f"  {self.files:,} files, {_size(self.size)}{linked}: copied at the first "
            "command of a session, then kept for the next session in this process; "
            "before each command only what git and find say changed is written again",
        ]

    def as_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "why": self.why,
            "files": self.files,
            "bytes": self.size,
            "linked": self.linked,
        }


def shadow_plan(workspace: Path, sandbox: Sandbox) -> ShadowPlan:
    """What commands in ``workspace`` would run in, with ``sandbox``."""
    if sandbox.contained and sandbox.overlay is not None:
        return ShadowPlan("overlay", "", 0, 0, 0)
    if not sandbox.contained:
        why = f"there is no sandbox: {sandbox.why}"
    else:  # bubblewrap, which says why it cannot mount the overlay
        why = (sandbox.shadow if isinstance(sandbox, Bubblewrap) else "") or "no overlay here"
    files, links = scan(workspace)
    size = sum(st.st_size for st in files.values())
    return ShadowPlan("copy", why, len(files), size, len(links))


def _size(figure: int) -> str:
    if figure < 1000:
        return f"{figure:,} bytes"
    value, unit = figure / 1000, "KB"
    for larger in ("MB", "GB"):
        if value < 1000:
            break
        value, unit = value / 1000, larger
    return f"{value:.1f} {unit}"
