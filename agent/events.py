"""What a running task reports as it goes, for the caller to show.

Each event is small and typed; the server turns them into progress reports
and notifications, the terminal front end into printed lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent.conversation import ToolCall, Usage


@dataclass(frozen=True)
class StepStarted:
    step: int


@dataclass(frozen=True)
class ModelText:
    """A piece of the model's text as it streams."""

    step: int
    text: str


@dataclass(frozen=True)
class ModelThinking:
    """A piece of the model's reasoning as it streams (never part of its answer)."""

    step: int
    text: str


@dataclass(frozen=True)
class ModelWriting:
    """The arguments of the call to ``name`` have grown to ``chars`` characters."""

    step: int
    name: str
    chars: int


@dataclass(frozen=True)
class ModelCalling:
    """The model has started writing a call to ``name`` (its arguments are still coming)."""

    step: int
    name: str


@dataclass(frozen=True)
class ModelRetry:
    step: int
    message: str


@dataclass(frozen=True)
class ToolStarted:
    step: int
    call: ToolCall
    summary: str  # "Reading dateparse.py"


@dataclass(frozen=True)
class ToolFinished:
    step: int
    call: ToolCall
    ok: bool
    summary: str  # "Running pytest: 12 passed in 0.2s"
    succeeded: bool = True  # False when the call worked but what it ran failed (exit code)
    reason: str | None = None  # a failed call's reason code ("ambiguous", "not_found", ...)


@dataclass(frozen=True)
class StepUsage:
    """The tokens the model's turn of a step used, when the endpoint reports them."""

    step: int
    usage: Usage


@dataclass(frozen=True)
class CheckStarted:
    """surehand runs a test command on the proposal (``on``: "proposal" or "accepted")."""

    command: str
    on: str


@dataclass(frozen=True)
class CheckFinished:
    command: str
    on: str
    status: str  # "passed", "failed", "error"
    result: str  # "2 failed, 39 passed"


@dataclass(frozen=True)
class TaskEnded:
    ending: str
    message: str


Event = (
    StepStarted
    | ModelText
    | ModelThinking
    | ModelWriting
    | ModelCalling
    | ModelRetry
    | ToolStarted
    | ToolFinished
    | TaskEnded
    | StepUsage
    | CheckStarted
    | CheckFinished
)
STREAMED = (ModelText, ModelThinking, ModelWriting)  # many small pieces per step
OnEvent = Callable[[Event], None]
