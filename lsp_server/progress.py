"""Agent events in the editor: progress in words, the trace, structured steps.

Each tool call becomes one progress report ("Reading dateparse.py",
"Running pytest: 12 passed"), every event a line of ``window/logMessage``,
and a ``surehand/step`` notification carries the event as data for clients
that draw their own views.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from agent.events import (
    STREAMED,
    Event,
    ModelCalling,
    ModelRetry,
    ModelText,
    ModelThinking,
    ModelWriting,
    StepStarted,
    TaskEnded,
    ToolFinished,
    ToolStarted,
)

STEP_NOTIFICATION = "surehand/step"


def report_for(event: Event) -> str | None:
    """The progress message for an event, None when it is not worth one."""
    if isinstance(event, ToolStarted):
        return event.summary
    if isinstance(event, ToolFinished) and event.call.name == "run_command":
        return f"Ran {event.summary}"
    if isinstance(event, ModelRetry):
        return event.message
    return None


def log_line(event: Event) -> str | None:
    """The trace line for ``window/logMessage``; model text is logged per step, not per piece."""
    if isinstance(event, StepStarted):
        return f"[step {event.step}]"
    if isinstance(event, ToolStarted):
        return f"[step {event.step}] {event.call.name} {event.call.arguments}"
    if isinstance(event, ToolFinished):
        mark = "ok" if event.ok else "failed"
        return f"[step {event.step}] {event.call.name} {mark}: {event.summary}"
    if isinstance(event, ModelRetry):
        return f"[step {event.step}] {event.message}"
    if isinstance(event, TaskEnded):
        return f"[task {event.ending}] {event.message}"
    return None


def step_payload(event: Event) -> dict[str, Any] | None:
    """The ``surehand/step`` notification's params for an event."""
    if isinstance(event, STREAMED):
        return None  # pieces of text are too many; ModelCalling and tool events carry the work
    return {"kind": type(event).__name__, **_fields(event)}


def _fields(event: Event) -> dict[str, Any]:
    values = dataclasses.asdict(event)
    call = values.pop("call", None)
    if call is not None:
        values["tool"] = call["name"]
        values["arguments"] = call["arguments"]
    return values


class ModelTextBuffer:
    """Collects a step's streamed text so the trace logs it as one line."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self.log = log
        self.text: list[str] = []
        self.step = 0

    def add(self, event: Event) -> None:
        if isinstance(event, ModelText):
            self.step = event.step
            self.text.append(event.text)
        elif self.text and not isinstance(event, ModelCalling | ModelWriting | ModelThinking):
            self.flush()

    def flush(self) -> None:
        if self.text:
            self.log(f"[step {self.step}] model: {''.join(self.text).strip()}")
            self.text.clear()
