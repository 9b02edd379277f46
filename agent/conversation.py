"""The conversation with the model, in the agent's own types.

Only the model adapter turns these into an API payload. ``Conversation``
also keeps the context within budget: when the messages grow past it, the
oldest tool outputs are replaced by a one-line stub (the model can always
look again), newest kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

from . import messages

Role = Literal["system", "user", "assistant", "tool"]
KEEP_RECENT = 6  # tool outputs never compacted, newest first


@dataclass(frozen=True)
class ToolCall:
    """A call as the model sent it; ``arguments`` is its JSON text, unparsed."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class ModelTurn:
    """What the model said in one completion.

    ``finish_reason`` is the endpoint's word for why it stopped ("stop",
    "tool_calls", "length": cut off at the token limit; "" when not said).
    ``reasoning`` is thinking the endpoint wants back with the calls it came
    with (sent as ``reasoning_content``, as DeepSeek asks); never the answer.
    """

    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    finish_reason: str = ""
    reasoning: str = ""

    @property
    def cut_off(self) -> bool:
        return self.finish_reason == "length"


@dataclass(frozen=True)
class Message:
    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    tool_name: str = ""
    compacted: bool = False
    reasoning: str = ""  # see ModelTurn.reasoning


class Conversation:
    def __init__(self, system: str) -> None:
        self.messages: list[Message] = [Message("system", system)]

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def user(self, text: str) -> None:
        self.messages.append(Message("user", text))

    def assistant(self, turn: ModelTurn) -> None:
        reasoning = turn.reasoning if turn.tool_calls else ""
        self.messages.append(
            Message("assistant", turn.content, turn.tool_calls, reasoning=reasoning)
        )

    def tool(self, call: ToolCall, text: str) -> None:
        self.messages.append(Message("tool", text, tool_call_id=call.id, tool_name=call.name))

    @property
    def size(self) -> int:
        """Characters in the conversation, a stand-in for its token count."""
        return sum(len(m.content) + sum(len(c.arguments) for c in m.tool_calls) for m in self)

    def compact(self, budget: int) -> int:
        """Stub the oldest tool outputs until the size is within ``budget``; returns how many."""
        tool_indexes = [i for i, m in enumerate(self.messages) if m.role == "tool"]
        candidates = [i for i in tool_indexes[:-KEEP_RECENT] if not self.messages[i].compacted]
        done = 0
        for index in candidates:
            if self.size <= budget:
                break
            message = self.messages[index]
            first_line = message.content.split("\n", 1)[0][:120]
            stub = messages.COMPACTED.format(
                tool=message.tool_name, size=len(message.content), first_line=first_line
            )
            self.messages[index] = replace(message, content=stub, compacted=True)
            done += 1
        return done
