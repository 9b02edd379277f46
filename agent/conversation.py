"""The conversation with the model, in the agent's own types.

Only the model adapter turns these into an API payload. ``Conversation``
also keeps the context within budget (``compact``), giving up first what the
model misses least: the oldest tool outputs of earlier tasks become a
one-line stub (the model can always look again); then the oldest whole tasks
go, one note in their place naming them; last, the current task's oldest
outputs are stubbed. The system prompt, the current task and the newest
outputs always stay, so a session that lives through many tasks keeps within
the budget, or within its current task when that alone is larger.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from agent import messages

Role = Literal["system", "user", "assistant", "tool"]
KEEP_RECENT = 6  # tool outputs never compacted, newest first
NOTE_TASKS = 20  # removed tasks the note names, the newest; older ones are only counted
TASK_LINE_CHARS = 100  # of a removed task's first line in the note

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
    task_line: str = ""  # on the message that starts a task: the task's first line

    @property
    def size(self) -> int:
        """Characters sent for the message (its text, thinking and calls' arguments)."""
        return (
            len(self.content) + len(self.reasoning) + sum(len(c.arguments) for c in self.tool_calls)
        )


@dataclass(frozen=True)
class DroppedTasks:
    """The tasks compaction removed: how many, and the first lines of the newest
    ``NOTE_TASKS``, so the note that stands in for them stays bounded."""

    count: int = 0
    lines: tuple[str, ...] = ()

    def plus(self, lines: Sequence[str]) -> DroppedTasks:
        return DroppedTasks(self.count + len(lines), (*self.lines, *lines)[-NOTE_TASKS:])

    def note(self) -> Message:
        listed = [messages.TASKS_DROPPED_LINE.format(line=line) for line in self.lines]
        unlisted = self.count - len(self.lines)
        if unlisted:
            listed.insert(0, messages.TASKS_DROPPED_UNLISTED.format(count=unlisted))
        text = messages.TASKS_DROPPED.format(count=self.count, lines="\n".join(listed))
        return Message("user", text)


class Conversation:
    def __init__(self, system: str) -> None:
        self.messages: list[Message] = [Message("system", system)]
        # A stopped turn's calls: id -> (its result replaced, else added to, by this text).
        self._stopped: dict[str, tuple[bool, str]] = {}
        self.dropped = DroppedTasks()

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def task(self, text: str, notes: Sequence[str] = ()) -> None:
        """The user message that starts a task: ``notes`` (what the model should know
        first), then the task. Compaction removes whole tasks, from one such message to
        the next, so an assistant's calls never lose their results."""
        content = "\n\n".join([*notes, text])
        self.messages.append(Message("user", content, task_line=_first_line(text)))

    def user(self, text: str) -> None:
        """A user message within the task (a nudge), not the start of one."""
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
        return sum(m.size for m in self)

    def compact(self, budget: int) -> int:
        """Bring the size within ``budget``: stub earlier tasks' oldest outputs, then remove
        the oldest whole tasks, then stub the current task's oldest outputs; returns how
        many outputs were stubbed (``dropped`` counts the tasks removed)."""
        stubbed = self._stub(budget, before=self._current_task())
        if self.size > budget:
            self._drop_tasks(budget)
        if self.size > budget:
            stubbed += self._stub(budget, before=len(self.messages))
        return stubbed

    def _current_task(self) -> int:
        """Where the last task starts (1 when no message starts one: all is the current task)."""
        starts = self._task_starts()
        return starts[-1] if starts else 1

    def _task_starts(self) -> list[int]:
        return [i for i, m in enumerate(self.messages) if m.task_line]

    def _stub(self, budget: int, before: int) -> int:
        """Stub the oldest tool outputs before index ``before``, never the ``KEEP_RECENT``
        newest, until the size is within ``budget``; an output shorter than its stub stays."""
        tool_indexes = [i for i, m in enumerate(self.messages) if m.role == "tool"]
        size = self.size
        done = 0
        for index in tool_indexes[:-KEEP_RECENT]:
            message = self.messages[index]
            if size <= budget or index >= before:
                break
            if message.compacted:
                continue
            stub = _stub_text(message)
            if len(stub) >= len(message.content):
                continue
            size -= len(message.content) - len(stub)
            self.messages[index] = replace(message, content=stub, compacted=True)
            done += 1
        return done

    def _drop_tasks(self, budget: int) -> None:
        """Put one note in place of the oldest whole tasks (and of the note for tasks removed
        before): the fewest that bring the size within ``budget``, else all but the current."""
        starts = self._task_starts()
        if len(starts) < 2:
            return
        after = [0] * (len(self.messages) + 1)  # after[i]: the size of messages[i:]
        for index in range(len(self.messages) - 1, -1, -1):
            after[index] = after[index + 1] + self.messages[index].size
        head = self.messages[0].size
        for taken, cut in enumerate(starts[1:], 1):
            dropped = self.dropped.plus([self.messages[s].task_line for s in starts[:taken]])
            note = dropped.note()
            if head + note.size + after[cut] <= budget:
                break
        self.dropped = dropped
        self.messages[1:cut] = [note]


def _stub_text(message: Message) -> str:
    first_line = message.content.split("\n", 1)[0][:120]
    return messages.COMPACTED.format(
        tool=message.tool_name, size=len(message.content), first_line=first_line
    )


def _first_line(text: str) -> str:
    """A task's first non-blank line, its spaces collapsed, cut to ``TASK_LINE_CHARS``."""
    line = next((" ".join(line.split()) for line in text.splitlines() if line.strip()), "")
    if len(line) > TASK_LINE_CHARS:
        line = line[: TASK_LINE_CHARS - 1] + "…"
    return line or messages.TASKS_DROPPED_NO_TEXT


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
