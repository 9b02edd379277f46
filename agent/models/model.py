"""What the loop needs from a model, whatever serves it.

``ModelClient.complete`` takes the conversation and the tool specs and
returns one ``ModelTurn``, reporting text and tool-call pieces to
``on_delta`` as they stream in. A failure is a ``ModelError`` with a stable
reason and a message a person can act on, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from agent.conversation import Message, ModelTurn


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class Delta:
    """A piece of a turn as it streams: text, reasoning, or part of a tool call's arguments.

    ``reasoning`` is the model's thinking (a reasoning field, or a
    ``<think>`` block in its text): progress to show, never part of the
    answer. ``restart`` says the pieces so far are void: the request failed
    midway and is being sent again (``reason`` says why).
    """

    text: str = ""
    reasoning: str = ""
    tool_index: int = -1
    tool_name: str = ""
    arguments: str = ""
    restart: bool = False
    reason: str = ""


OnDelta = Callable[[Delta], None]


class ModelClient(Protocol):
    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], on_delta: OnDelta | None
    ) -> ModelTurn: ...

    async def close(self) -> None: ...


class ModelError(Exception):
    """The model could not answer. ``reason`` is stable; ``message`` says what to do."""

    reason: ClassVar[str] = "model_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ModelUnreachable(ModelError):
    reason = "unreachable"


class ModelAuthFailed(ModelError):
    reason = "auth"


class ModelNotFound(ModelError):
    reason = "model_not_found"


class ModelTimedOut(ModelError):
    reason = "timeout"


class ModelRateLimited(ModelError):
    reason = "rate_limited"


class ModelServerFailed(ModelError):
    reason = "server_error"


class ModelRequestRefused(ModelError):
    reason = "bad_request"


class ModelContentFiltered(ModelError):
    """The endpoint's content filter withheld (part of) the answer."""

    reason = "content_filter"


class ScriptExhausted(ModelError):
    reason = "script_exhausted"
