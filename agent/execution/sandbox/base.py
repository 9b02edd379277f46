"""The sandbox interface: what a command may see and change, and who enforces it.

A ``Layout`` says what a command is given besides the system's programs:
the shadow copy (its working directory, writable), a private ``HOME``, the
host folders it sees read-only (the project's virtualenv and
``node_modules``, the toolchains on ``PATH``) or writable (only what the user
configured), whether it may use the network, and how much of the machine
it may use (``ResourceLimits``: processes, memory, file and tmpfs sizes). A ``Sandbox`` turns a
command and a layout into the command line that enforces them. There is one
implementation per platform (``bubblewrap`` on Linux) and ``Unsandboxed``,
which enforces nothing and says so: with it, every command is put to the
user first.

A layout may show the command's tree as an overlay (``overlay.OverlayLayers``): the
real workspace read-only beneath, an upper folder taking every write,
mounted only for the command, in its own mount namespace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from agent.execution.sandbox.limits import ResourceLimits
from agent.execution.sandbox.overlay import OverlayLayers, OverlayMounter


@dataclass(frozen=True)
class Mount:
    """A host path shown at ``inside`` in the sandbox."""

    host: Path
    inside: Path


@dataclass(frozen=True)
class Layout:
    root: Path  # the shadow copy: the working directory, and writable
    home: Path  # HOME in the sandbox: empty, private, writable
    read_only: tuple[Mount, ...] = ()
    writable: tuple[Mount, ...] = ()
    hidden: tuple[Mount, ...] = ()  # masked: secrets, git hooks
    network: bool = False
    overlay: OverlayLayers | None = None  # the root is this overlay, mounted for the command
    # what a sandbox lets the command use; None: nothing is limited
    limits: ResourceLimits | None = field(default_factory=ResourceLimits)


class Sandbox(Protocol):
    name: str  # "bubblewrap", "none": the mode reported in the status
    # whether commands really are contained: then none of a command's processes outlives it
    # (the shadow copy counts on it to look at what a command changed as soon as it ends)
    contained: bool
    why: str  # why commands are not contained ("" when they are)
    overlay: OverlayMounter | None  # how to mount an overlay for a command, None: cannot

    def describe(self, network: bool, limits: ResourceLimits | None = None) -> str:
        """What a command in it can do, in a sentence for the user (``limits``: what it may
        use of the machine, the defaults when not given)."""
        ...

    def wrap(self, argv: list[str], layout: Layout) -> list[str]:
        """The command line that runs ``argv`` within ``layout``."""
        ...

    def not_started(self, exit_code: int | None, output: str) -> str | None:
        """Why the sandbox itself could not start the command, if that is what happened."""
        ...


class Unsandboxed:
    """No containment: the command runs as it is, with the user's rights."""

    name = "none"
    contained = False
    overlay: OverlayMounter | None = None

    def __init__(self, why: str) -> None:
        self.why = why  # why there is no sandbox, for the status and the questions

    def describe(self, network: bool, limits: ResourceLimits | None = None) -> str:
        return (
            f"unsandboxed ({self.why}), with your user's rights: it can read your files and "
            "secrets, use the network and change files outside the copy"
        )

    def wrap(self, argv: list[str], layout: Layout) -> list[str]:
        return argv

    def not_started(self, exit_code: int | None, output: str) -> str | None:
        return None
