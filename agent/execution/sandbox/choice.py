"""Which sandbox commands run in: chosen once per mode, then reported.

``auto`` takes bubblewrap where it works (it is tried once, for real) and
otherwise runs without a sandbox, where every command is asked first;
``bubblewrap`` insists on it (without it, the same as no sandbox, with the
reason saying it was required); ``off`` never contains commands. Other
platforms have no implementation yet: they run without a sandbox.

With bubblewrap, whether the command's tree can be an overlay of the
workspace is tried once too (``overlay_probe.probe``); where it cannot, commands
run in the copy, and the sandbox's description says so.
"""

from __future__ import annotations

import functools
import sys

from agent.execution.sandbox import bubblewrap, overlay_probe
from agent.execution.sandbox.base import Sandbox, Unsandboxed


@functools.cache
def choose(mode: str) -> Sandbox:
    if mode == "off":
        return Unsandboxed("turned off by the sandbox setting")
    if not sys.platform.startswith("linux"):
        return Unsandboxed(f"no sandbox is implemented for {sys.platform} yet")
    found = bubblewrap.find()
    if isinstance(found, str):
        required = "; the sandbox setting requires it" if mode == "bubblewrap" else ""
        return Unsandboxed(found + required)
    mounter = overlay_probe.probe(found)
    if isinstance(mounter, str):
        return found.with_overlay(None, mounter)
    return found.with_overlay(mounter)
