"""The terminal front end: steps as they happen, a live status line, the proposal as a diff.

Everything printed passes the one rule for text a model chose
(``editing.visible``): a control or bidi character in a command, a path,
a label, a line of code or the model's own words is shown as an escape,
never sent to the terminal to act on. Output goes through ``rich``:
colour only on a terminal (and never with ``NO_COLOR``), and on a terminal
one live line under the steps says what the model is doing now (waiting,
thinking, writing a call and how big it is) with the time it has taken.
Messages name the command line's flags (``--max-steps``), not the editor's
setting names. What a step prints is capped (``MAX_SHOWN_CHARS`` of a turn's
streamed text, and of any one message or summary), the rest noted as
"… N more characters in the trace".

The model's answer is printed as it streams: whole lines as they end, and
the line still being written in the live area above the status line. An
answer the task ends with is not printed a second time in the closing
"Task answered" line. A step's tokens, when the endpoint reports them
(``StepUsage``), are shown on the step's line.

Its size: one class, ``Terminal``, whose printing methods share its console,
its live status line and the rule for text a model chose.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.text import Text

from agent.checks.verdicts import Status, Verdict
from agent.config.flags import name_flags
from agent.conversation import Usage
from agent.events import (
    CheckFinished,
    CheckStarted,
    Event,
    ModelCalling,
    ModelRetry,
    ModelText,
    ModelThinking,
    ModelWriting,
    StepStarted,
    StepUsage,
    TaskEnded,
    ToolFinished,
    ToolStarted,
)
from agent.staging.proposal import Proposal
from agent.tools.context import Approval, CommandRequest
from editing.visible import hidden_in, visible_lines
from surehand.terminal.line_input import LineReader
from surehand.terminal.status_line import StatusLine, size_text

TEXT_BAR = "  │ "
MAX_SHOWN_CHARS = 20_000  # of a turn's streamed text, and of any one message of a step


class Terminal:
    def __init__(
        self,
        out: TextIO | None = None,
        *,
        reader: LineReader | None = None,
        interactive: bool | None = None,
    ) -> None:
        self.out = out or sys.stdout
        self.console = Console(file=self.out, highlight=False, soft_wrap=True, emoji=False)
        self.status = StatusLine()
        self.reader = reader
        self._live: Live | None = None
        self._text = ""  # model text not yet printed (the rest of its line is coming)
        self._text_shown = 0  # characters of this turn's text taken to print
        self._text_hidden = 0  # and past MAX_SHOWN_CHARS, not printed
        self._answer = ""  # all of this step's text: the end of a task does not repeat it
        self._tokens: tuple[int, Usage] | None = None  # a step's tokens, not yet shown
        self._interactive = interactive

    @property
    def interactive(self) -> bool:
        """Whether a person answers at a terminal (stdin is one, unless told otherwise)."""
        if self._interactive is not None:
            return self._interactive
        try:
            fd = self.reader.fd if self.reader is not None else sys.stdin.fileno()
            return os.isatty(fd)
        except (AttributeError, ValueError, OSError):
            return False

    @property
    def input_ended(self) -> bool:
        """Whether the answers' input has ended (Ctrl-D, or the end of a pipe)."""
        return self.reader is not None and self.reader.ended

    # -- plain output -------------------------------------------------------------

    def say(self, text: str | Text = "", style: str | None = None) -> None:
        self._flush_text()
        self.console.print(_shown(text), style=style, markup=False)

    def error(self, text: str) -> None:
        self.say(f"surehand: {text}", style="red")

    def heading(self, text: str) -> None:
        self.say(f"── {text}", style="bold")

    # -- a task as it runs ----------------------------------------------------------

    def event(self, event: Event) -> None:
        """Show one step event."""
        status = self.status
        changed = False
        if isinstance(event, StepStarted):
            self._flush_text()
            self._step_tokens()
            self._text_shown = 0
            self._answer = ""
            changed = status.set("waiting for the endpoint", restart=True)
            self._start_live()
        elif isinstance(event, ModelThinking):
            changed = status.think(event.text)
        elif isinstance(event, ModelText):
            changed = status.set("writing the answer")
            self._answer += event.text
            self._add_text(event.text)
        elif isinstance(event, ModelCalling):
            self._flush_text()
            changed = status.set(f"writing {event.name}")
        elif isinstance(event, ModelWriting):
            changed = status.set(f"writing {event.name}", size_text(event.chars))
        elif isinstance(event, ModelRetry):
            self.say(f"    … {name_flags(_capped(event.message))}", style="yellow")
            self._answer = ""  # sent again from the start
            changed = status.set("waiting for the endpoint", restart=True)
        elif isinstance(event, StepUsage):
            self._tokens = (event.step, event.usage) if event.usage.total else None
        elif isinstance(event, ToolStarted):
            self.say(self._started_line(event))
            changed = status.set(event.summary)
        elif isinstance(event, ToolFinished):
            self.say(self._finished_line(event))
        elif isinstance(event, CheckStarted | CheckFinished):
            changed = self._check(event)
        elif isinstance(event, TaskEnded):
            self.stop_live()
            self._flush_text()
            self._step_tokens()
            self.say(self._ended_line(event))
        if changed and self._live is not None:
            self._live.refresh()  # every state is seen, however short

    def _check(self, event: CheckStarted | CheckFinished) -> bool:
        """A test command surehand runs on the proposal, as it starts and ends."""
        if isinstance(event, CheckStarted):
            self.say(f"tests: running `{event.command}` on {_ON[event.on]}", style="dim")
            changed = self.status.set(f"running the tests: {event.command}", restart=True)
            self._start_live()
            return changed
        self.stop_live()
        style = "green" if event.status == "passed" else "red"
        self.say(f"tests: `{event.command}`: {event.result}", style=style)
        return False

    def _started_line(self, event: ToolStarted) -> Text:
        """A tool's line, ``[2] Editing calc.py``, with the step's tokens on its first."""
        line = Text(f"[{event.step}] {_capped(event.summary)}")
        if self._tokens is not None and self._tokens[0] == event.step:
            line.append(f"  · {self._tokens[1].total:,} tokens", style="dim")
            self._tokens = None
        return line

    def _ended_line(self, event: TaskEnded) -> Text:
        """The closing line, ``Task finished: <summary>``. An answer just printed as it
        streamed is not repeated: the message is left out when it is that answer, or
        only the note before it is kept ("The answer was cut off …: <answer>")."""
        message = event.message.strip()
        answer = self._answer.strip()
        note = message[: len(message) - len(answer)].rstrip()
        if answer and message.endswith(answer) and (not note or note.endswith(":")):
            message = note
        if not message:
            return Text(f"Task {event.ending}.", style="bold")
        line = Text(f"Task {event.ending}: ", style="bold")
        line.append(name_flags(_capped(message)))
        return line

    def _step_tokens(self) -> None:
        """A step's tokens not shown on a tool's line (a step that only answered)."""
        if self._tokens is not None:
            step, usage = self._tokens
            self._tokens = None
            self.say(f"    step {step}: {usage.total:,} tokens", style="dim")

    def _finished_line(self, event: ToolFinished) -> Text:
        """✓ only when the call worked and what it ran did too (a failing test run is ✗)."""
        line = Text("    ")
        if event.ok and event.succeeded:
            line.append("✓", style="green")
        else:
            line.append("✗", style="red")
        line.append(f" {_capped(event.summary)}")
        return line

    def totals(self, usage: Usage, steps: int, trace: Path | None) -> None:
        """The tokens a task used, its steps and where its trace is."""
        if usage.total:
            tokens = (
                f"{usage.total:,} tokens ({usage.prompt_tokens:,} prompt, "
                f"{usage.completion_tokens:,} completion)"
            )
        else:
            tokens = "tokens not reported by the endpoint"
        where = f"; trace {trace}" if trace else ""
        self.say(f"{steps} step{'s' if steps != 1 else ''}, {tokens}{where}", style="dim")

    def cancelled(self, trace: Path | None) -> None:
        self.stop_live()
        where = f" The trace is {trace}." if trace else ""
        self.say(f"Cancelled. Nothing was written.{where}", style="yellow")

    # -- the proposal -----------------------------------------------------------------

    def proposal(self, proposal: Proposal) -> None:
        self.stop_live()
        if not proposal.changes:
            self.say("No changes proposed.")
            return
        self.say("Proposed changes:", style="bold")
        for change in proposal.changes:
            labels = "; ".join(change.descriptions)
            self.say(f"{change.path}: {labels}", style="cyan")
            if change.governs:
                self.governs(change.path, change.governs)
            self.diff(change.diff())

    def tests(self, verdicts: Sequence[Verdict]) -> None:
        """The tests' verdicts, one line each, coloured by how they went."""
        for verdict in verdicts:
            self.say(f"  {verdict.line()}", style=_VERDICT_STYLES[verdict.status])

    def governs(self, path: str, what: str) -> None:
        """The flag on a file that changes how tools run (``agent.staging.governing``)."""
        self.say(f"  ⚠ {path} changes how tools run: {what}.", style="bold yellow")

    def diff_lines(self, lines: list[str]) -> None:
        """Lines of a unified diff (``terminal_review.hunk_diff``), each coloured by its
        first character, their hidden characters escaped."""
        for line in lines:
            self.say(line, style=_LINE_STYLES.get(line[:1]))

    def diff(self, text: str) -> None:
        """A unified diff, its added and removed lines coloured; a line of the diff is a
        line of the text (split at line breaks only), its hidden characters escaped."""
        for raw in text.split("\n"):
            line = raw.removesuffix("\r")  # a CRLF file's line ending, not its content
            if line:
                self.say(line, style=_diff_style(line))

    # -- questions --------------------------------------------------------------------

    async def ask(self, question: str, *, keep_case: bool = False) -> str:
        """One line from the user (the live line is put away while they answer), its
        spaces trimmed, in lower case unless ``keep_case``.

        Keys typed before the question was on the screen were meant for
        something else: on a terminal they are dropped, never read as the
        answer (piped answers, read from a file or a pipe, are kept).
        """
        self.stop_live()
        self._flush_text()
        self.console.print(_shown(f"{question} "), end="", markup=False, highlight=False)
        self.out.flush()
        reader = self.reader or LineReader()
        self.reader = reader
        reader.drop_typed_ahead()
        answer = (await reader.line()).strip()
        return answer if keep_case else answer.lower()

    async def approve(self, request: CommandRequest) -> Approval:
        """Ask whether a command may run, saying where and how contained.

        Enter alone denies; "always" must be typed out in full, so no stray
        key allows a command for the rest of the task.
        """
        self.stop_live()
        self.say(request.question(), style="yellow")
        choices = "[o]nce / always / [N]o" if request.may_always else "[o]nce / [N]o"
        answer = await self.ask(f"Run `{request.shown}`? {choices}")
        self._start_live()
        if answer in ("o", "once", "y", "yes"):
            return Approval.ONCE
        if answer == "always" and request.may_always:
            return Approval.ALWAYS
        return Approval.DENY

    # -- the live line and streamed text ----------------------------------------------

    def _start_live(self) -> None:
        if self._live is None and self.console.is_terminal:
            self._live = Live(
                self.status,
                console=self.console,
                transient=True,
                refresh_per_second=8,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()

    def stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _add_text(self, text: str) -> None:
        """Print the model's text a whole line at a time, up to ``MAX_SHOWN_CHARS`` of a
        turn; the line still coming is drawn in the live area, above the status line
        (printed lines cannot be taken back: half a line printed would be cut)."""
        room = MAX_SHOWN_CHARS - self._text_shown
        if len(text) > room:
            self._text_hidden += len(text) - max(room, 0)
            text = text[: max(room, 0)]
        if not text:
            return
        self._text_shown += len(text)
        self._text += text
        if "\n" in text:
            *lines, self._text = self._text.split("\n")
            for line in lines:
                self.console.print(_shown(TEXT_BAR + line), style="dim", markup=False)
        self.status.above = TEXT_BAR + self._text if self._text else ""

    def _flush_text(self) -> None:
        self.status.above = ""
        if self._text:
            text, self._text = self._text, ""
            self.console.print(_shown(TEXT_BAR + text), style="dim", markup=False)
        if self._text_hidden:
            note = f"{TEXT_BAR}… {self._text_hidden:,} more characters in the trace"
            self._text_hidden = 0
            self.console.print(note, style="dim", markup=False)


def _capped(text: str) -> str:
    """``text``, or its first ``MAX_SHOWN_CHARS`` characters and how many more there are."""
    if len(text) <= MAX_SHOWN_CHARS:
        return text
    more = len(text) - MAX_SHOWN_CHARS
    return f"{text[:MAX_SHOWN_CHARS]}\n… {more:,} more characters in the trace"


def _shown(text: str | Text) -> str | Text:
    """``text`` with its hidden characters escaped (``editing.visible``); its line breaks
    and tabs laid out. A styled text that needs escapes keeps its base style only."""
    if isinstance(text, Text):
        if hidden_in(text.plain) is None:
            return text
        return Text(visible_lines(text.plain), style=text.style)
    return visible_lines(text)


_LINE_STYLES = {"@": "cyan", "+": "green", "-": "red", "\\": "dim"}
_VERDICT_STYLES = {
    Status.PASSED: "green",
    Status.FAILED: "red",
    Status.ERROR: "red",
    Status.STALE: "yellow",
    Status.NOT_RUN: "yellow",
}
_ON = {"proposal": "the proposed change", "accepted": "what you accepted"}


def _diff_style(line: str) -> str | None:
    if line.startswith(("+++", "---")):
        return "bold"
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    if line.startswith("@@"):
        return "cyan"
    return None
