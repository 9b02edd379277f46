"""Agent events in the editor: progress in words, the trace, structured steps.

Each tool call becomes one progress report ("Reading dateparse.py",
"Running pytest: 12 passed"), every event a line of ``window/logMessage``,
and a ``surehand/step`` notification carries the event as data for clients
that draw their own views (its shapes: ``docs/protocol.md``). Every text
meant for a person (a progress message, a trace line, a step's ``summary``
and ``message``) shows model-chosen characters through ``editing.visible``;
a step's ``arguments`` is data (the model's JSON text, as it wrote it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent.conversation import ToolCall
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
    TaskEnded,
    ToolFinished,
    ToolStarted,
)
from editing.visible import visible, visible_lines

STEP_NOTIFICATION = "surehand/step"
# The ``kind`` of each ``surehand/step`` notification: wire names, never class names.
STEP_STARTED = "step_started"
MODEL_CALLING = "model_calling"
MODEL_RETRY = "model_retry"
TOOL_STARTED = "tool_started"
TOOL_FINISHED = "tool_finished"
TASK_ENDED = "task_ended"
STEP_KINDS = (STEP_STARTED, MODEL_CALLING, MODEL_RETRY, TOOL_STARTED, TOOL_FINISHED, TASK_ENDED)


_ON = {"proposal": "proposed change", "accepted": "accepted part"}


def report_for(event: Event) -> str | None:
    """The progress message for an event, None when it is not worth one."""
    if isinstance(event, ToolStarted):
        return visible(event.summary)
    if isinstance(event, ToolFinished) and event.call.name == "run_command":
        return visible(f"Ran {event.summary}")
    if isinstance(event, ModelRetry):
        return visible(event.message)
    if isinstance(event, CheckStarted):
        return visible(f"Running the tests on the {_ON[event.on]}: {event.command}")
    return None


def log_line(event: Event) -> str | None:
    """The trace line for ``window/logMessage``; model text is logged per step, not per piece."""
    line = _log_line(event)
    return None if line is None else visible_lines(line)


def _log_line(event: Event) -> str | None:
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
    if isinstance(event, CheckFinished):
        return f"[tests on the {_ON[event.on]}] {event.command}: {event.result}"
    return None


def step_payload(event: Event) -> dict[str, Any] | None:
    """The ``surehand/step`` notification's params for an event, None for streamed text.

    The wire names and fields are chosen here, one by one, and documented in
    ``docs/protocol.md``: renaming an event class or one of its fields must not
    change what clients read.
    """
    if isinstance(event, StepStarted):
        return {"kind": STEP_STARTED, "step": event.step}
    if isinstance(event, ModelCalling):
        return {"kind": MODEL_CALLING, "step": event.step, "tool": event.name}
    if isinstance(event, ModelRetry):
        return {"kind": MODEL_RETRY, "step": event.step, "message": visible(event.message)}
    if isinstance(event, ToolStarted):
        return {
            "kind": TOOL_STARTED,
            "step": event.step,
            **_call(event.call),
            "summary": visible(event.summary),
        }
    if isinstance(event, ToolFinished):
        return {
            "kind": TOOL_FINISHED,
            "step": event.step,
            **_call(event.call),
            "ok": event.ok,
            "summary": visible(event.summary),
            "succeeded": event.succeeded,
            "reason": event.reason,
        }
    if isinstance(event, TaskEnded):
        return {
            "kind": TASK_ENDED,
            "ending": str(event.ending),
            "message": visible_lines(event.message),
        }
    return None  # streamed pieces are too many; model_calling and tool events carry the work


def _call(call: ToolCall) -> dict[str, Any]:
    return {"tool": call.name, "arguments": call.arguments}


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
            self.log(visible_lines(f"[step {self.step}] model: {''.join(self.text).strip()}"))
            self.text.clear()
