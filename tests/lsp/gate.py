"""A command that blocks until the test opens the gate: the agent is mid-task meanwhile.

The gate is a file in ``gate_folder(tmp_path)``, which the LSP tests' servers
show to the sandbox read-only (``sandboxReadOnlyPaths``): nothing else
outside the copy is visible to a command."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.lsp.editor import Editor, wait_until
from tests.support.openai_server import Call


def gate_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "gate"
    folder.mkdir(exist_ok=True)
    return folder


class Gate:
    def __init__(self, tmp_path: Path) -> None:
        self.path = gate_folder(tmp_path) / "open"

    def call(self) -> Call:
        """The ``run_command`` call that waits for the gate (needs ``python3`` allowed)."""
        code = f"import os, time\nwhile not os.path.exists({str(self.path)!r}): time.sleep(0.02)"
        return Call("run_command", {"command": shlex.join(["python3", "-c", code]), "timeout": 20})

    async def reached(self, editor: Editor) -> None:
        await wait_until(
            lambda: any(
                s["kind"] == "tool_started" and s.get("tool") == "run_command" for s in editor.steps
            ),
            what="the agent to run the gate command",
        )

    def open(self) -> None:
        self.path.write_text("")
