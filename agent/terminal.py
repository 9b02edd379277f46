"""The terminal front end: steps as they happen, the proposal as a coloured diff."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TextIO

from .events import Event, ModelRetry, ModelText, TaskEnded, ToolFinished, ToolStarted
from .proposal import Proposal
from .tools.context import Approval, CommandRequest

_COLOURS = {"red": "31", "green": "32", "cyan": "36", "dim": "2", "bold": "1", "yellow": "33"}


class Terminal:
    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.colour = self.out.isatty() and "NO_COLOR" not in os.environ
        self._in_text = False

    def paint(self, text: str, colour: str) -> str:
        return f"\033[{_COLOURS[colour]}m{text}\033[0m" if self.colour else text

    def say(self, text: str = "") -> None:
        self._end_text()
        print(text, file=self.out, flush=True)

    def heading(self, text: str) -> None:
        self.say(self.paint(f"── {text}", "bold"))

    def event(self, event: Event) -> None:
        """Print one step event."""
        if isinstance(event, ModelText):
            if not self._in_text:
                self.out.write(self.paint("  │ ", "dim"))
                self._in_text = True
            self.out.write(self.paint(event.text.replace("\n", "\n  │ "), "dim"))
            self.out.flush()
        elif isinstance(event, ToolStarted):
            self.say(f"[{event.step}] {event.summary}")
        elif isinstance(event, ToolFinished):
            mark = self.paint("✓", "green") if event.ok else self.paint("✗", "red")
            self.say(f"    {mark} {event.summary}")
        elif isinstance(event, ModelRetry):
            self.say(self.paint(f"    … {event.message}", "yellow"))
        elif isinstance(event, TaskEnded):
            self.say(self.paint(f"Task {event.ending}: ", "bold") + event.message)

    def proposal(self, proposal: Proposal) -> None:
        if not proposal.changes:
            self.say("No changes proposed.")
            return
        self.say(self.paint("Proposed changes:", "bold"))
        for change in proposal.changes:
            labels = "; ".join(change.descriptions)
            self.say(self.paint(f"{change.path}: {labels}", "cyan"))
            for line in change.diff().splitlines():
                self.say(self.diff_line(line))

    def diff_line(self, line: str) -> str:
        if line.startswith(("+++", "---")):
            return self.paint(line, "bold")
        if line.startswith("+"):
            return self.paint(line, "green")
        if line.startswith("-"):
            return self.paint(line, "red")
        if line.startswith("@@"):
            return self.paint(line, "cyan")
        return line

    async def ask(self, question: str) -> str:
        self._end_text()
        answer = await asyncio.to_thread(_input, f"{question} ")
        return answer.strip().lower()

    async def approve(self, request: CommandRequest) -> Approval:
        """Ask whether a command may run, saying where and how contained."""
        self.say(self.paint(request.question(), "yellow"))
        choices = "[o]nce / [a]lways / [N]o" if request.may_always else "[o]nce / [N]o"
        answer = await self.ask(f"Run `{request.command}`? {choices}")
        if answer in ("o", "once", "y", "yes"):
            return Approval.ONCE
        if answer in ("a", "always") and request.may_always:
            return Approval.ALWAYS
        return Approval.DENY

    def _end_text(self) -> None:
        if self._in_text:
            self.out.write("\n")
            self._in_text = False


def _input(prompt: str) -> str:
    try:
        return input(prompt)
    except EOFError:
        return ""
