"""The conversation with the model, in the agent's own types.

Only the model adapter turns these into an API payload. ``Conversation``
also keeps the context within budget: when the messages grow past it, the
oldest tool outputs are replaced by a one-line stub (the model can always
look again), newest kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

from agent import messages

Role = Literal["system", "user", "assistant", "tool"]
KEEP_RECENT = 6  # tool outputs never compacted, newest first

# What the model reads when its answer was stopped at the answer ceiling
# (``turn_builder.MAX_ANSWER_CHARS``); these belong with ``agent.messages``.
STOPPED_ARGUMENTS = "{}"  # a stopped call's arguments, as the conversation keeps them


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
    ``stopped_at`` is the ceiling at which surehand stopped reading the answer
    (0: it was read whole); then a call whose arguments are unfinished is cut
    off, like one cut at the endpoint's token limit, and never runs.
    """

    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    finish_reason: str = ""
    reasoning: str = ""
    stopped_at: int = 0

    @property
    def cut_off(self) -> bool:
        return self.finish_reason == "length" or bool(self.stopped_at and self.tool_calls)


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
        # A stopped turn's calls: id -> (its result replaced, else added to, by this text).
        self._stopped: dict[str, tuple[bool, str]] = {}

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def user(self, text: str) -> None:
        self.messages.append(Message("user", text))

    def assistant(self, turn: ModelTurn) -> None:
        reasoning = turn.reasoning if turn.tool_calls else ""
        calls = turn.tool_calls
        self._stopped.clear()
        if turn.stopped_at and calls:
            calls = tuple(self._stop(call, turn.stopped_at) for call in calls)
            last = calls[-1].id
            if last not in self._stopped:  # stopped after its last call: say so there
                self._stopped[last] = (
                    False,
                    messages.ANSWER_STOPPED_AFTER.format(limit=turn.stopped_at),
                )
        self.messages.append(Message("assistant", turn.content, calls, reasoning=reasoning))

    def _stop(self, call: ToolCall, limit: int) -> ToolCall:
        """``call`` as kept: unfinished arguments (the stop cut them) are not sent back."""
        if _is_json(call.arguments):
            return call
        self._stopped[call.id] = (
            True,
            messages.ANSWER_STOPPED_CALL.format(name=call.name, limit=limit),
        )
        return replace(call, arguments=STOPPED_ARGUMENTS)

    def tool(self, call: ToolCall, text: str) -> None:
        """A call's result; a call the answer ceiling cut gets the message that says so."""
        stopped = self._stopped.pop(call.id, None)
        if stopped is not None:
            replaces, note = stopped
            text = note if replaces else text + note
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


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
