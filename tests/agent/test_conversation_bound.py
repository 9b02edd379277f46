"""A conversation that lives through many tasks stays within its context budget.

Compaction stubs old tool outputs, then removes the oldest whole tasks and puts
one note naming them in their place. Whatever it removes, the conversation
must stay one the chat API takes (every tool result follows the assistant
message that made its call, every call has its result), the system prompt and
the current task must stay whole, and the note must stay bounded.

The tasks are pushed the way ``Session`` pushes them (compaction before each
model turn); the session-level test runs the real ``Session`` and client
against the scripted server and reads what was sent.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.config.settings import Settings
from agent.conversation import (
    KEEP_RECENT,
    NOTE_TASKS,
    TASK_LINE_CHARS,
    Conversation,
    Message,
    ModelTurn,
    ToolCall,
)
from agent.loop.session import Session
from agent.messages import (
    CANCELLED_CALL,
    COMPACTED,
    PATCH_IN_ANSWER,
    TASKS_DROPPED,
    TASKS_DROPPED_NO_TEXT,
)
from agent.models.openai_client import OpenAIClient
from agent.staging.proposal import Ending
from tests.support.openai_server import Call, ScriptedServer, Turn

NOTE_HEAD = TASKS_DROPPED.split("(", 1)[0]  # how the note begins
NOTE_MAX = len(TASKS_DROPPED) + 40 + (NOTE_TASKS + 1) * (TASK_LINE_CHARS + 40)


# -- pushing tasks as the session does ------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One model turn: its calls' argument and output sizes (no calls: the final answer)."""

    calls: tuple[tuple[int, int], ...] = ()
    reasoning: int = 0
    nudge: bool = False  # answered with a patch: the session adds a user message


@dataclass(frozen=True)
class Task:
    text: str
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()
    cancelled: bool = False  # the last turn's calls are answered as cancelled


@dataclass
class Pusher:
    """Pushes tasks through a conversation, compacting before each model turn as
    ``Session.step`` does, and checks the invariants after every compaction."""

    budget: int
    system: str = "You are a careful coder.\n" * 8
    conversation: Conversation = field(init=False)
    tasks: list[Task] = field(default_factory=list)
    current: list[Message] = field(default_factory=list)  # the current task as pushed
    calls: int = 0

    def __post_init__(self) -> None:
        self.conversation = Conversation(self.system)

    def push(self, task: Task) -> None:
        self.tasks.append(task)
        self.conversation.task(task.text, task.notes)
        self.current = [self.conversation.messages[-1]]
        for index, step in enumerate(task.steps):
            self.compact()
            self.turn(step, cancel=task.cancelled and index == len(task.steps) - 1)

    def turn(self, step: Step, *, cancel: bool) -> None:
        before = len(self.conversation.messages)
        calls = []
        for size, _ in step.calls:
            self.calls += 1
            arguments = json.dumps({"path": "a" * size})
            calls.append(ToolCall(f"call_{self.calls}", "view_file", arguments))
        content = "" if calls else "Done: " + "d" * 40
        turn = ModelTurn(content, tuple(calls), reasoning="r" * step.reasoning)
        self.conversation.assistant(turn)
        for call, (_, output) in zip(calls, step.calls, strict=True):
            text = CANCELLED_CALL if cancel else f"line one of {call.id}\n" + "o" * output
            self.conversation.tool(call, text)
        if step.nudge and not calls:
            self.conversation.user(PATCH_IN_ANSWER)
        self.current += self.conversation.messages[before:]

    def compact(self) -> None:
        self.conversation.compact(self.budget)
        check(self)


def check(pusher: Pusher) -> None:
    """Every invariant of a compacted conversation."""
    conversation = pusher.conversation
    sent = conversation.messages
    assert sent[0] == Message("system", pusher.system), "the system message stays first, whole"
    assert all(m.role != "system" for m in sent[1:])
    assert api_errors(sent) == []
    starts = [i for i, m in enumerate(sent) if m.task_line]
    first, current = starts[0], starts[-1]
    assert_intact(sent[current:], pusher.current)
    kept = [m.task_line for m in sent if m.task_line]
    pushed = [line_of(t.text) for t in pusher.tasks]
    assert kept == pushed[len(pushed) - len(kept) :], "the newest tasks are kept, whole"
    dropped = conversation.dropped
    assert dropped.count == len(pushed) - len(kept)
    if dropped.count:
        assert first == 2, "one note stands for every removed task"
        note = sent[1]
        assert note.role == "user" and note.content.startswith(NOTE_HEAD)
        assert note.content == dropped.note().content
        assert len(note.content) <= NOTE_MAX
        listed = pushed[: dropped.count][-NOTE_TASKS:]
        assert dropped.lines == tuple(listed)
        assert all(f"- {line}\n" in note.content[:-1] + "\n" for line in listed)
        unlisted = dropped.count - len(listed)
        assert (f"({unlisted} earlier tasks, not listed)" in note.content) == bool(unlisted)
    else:
        assert first == 1
    if conversation.size > pusher.budget:  # only when the current task alone is too big
        assert first == current, "no earlier task is kept past the budget"
        outputs = [m for m in sent[current:] if m.role == "tool"]
        older = [m for m in outputs[:-KEEP_RECENT] if not m.compacted]
        assert all(len(m.content) <= len(stub_of(m)) for m in older), "all it can is stubbed"


def api_errors(sent: list[Message]) -> list[str]:
    """What the chat API would reject: a tool message that does not answer a call of the
    assistant message just before its run of tool messages, or a call left unanswered."""
    errors = []
    waiting: set[str] = set()
    for index, message in enumerate(sent):
        if message.role == "tool":
            if message.tool_call_id not in waiting:
                errors.append(f"message {index} answers no call waiting: {message.tool_call_id}")
            waiting.discard(message.tool_call_id)
            continue
        if waiting:
            errors.append(f"calls {sorted(waiting)} unanswered before message {index}")
        waiting = {c.id for c in message.tool_calls} if message.role == "assistant" else set()
    if waiting:
        errors.append(f"calls {sorted(waiting)} unanswered at the end")
    return errors


def assert_intact(kept: list[Message], pushed: list[Message]) -> None:
    """The current task as pushed, but tool outputs that may have become stubs."""
    assert len(kept) == len(pushed)
    for now, then in zip(kept, pushed, strict=True):
        if now.compacted and not then.compacted:
            assert now.role == "tool" and now.tool_call_id == then.tool_call_id
            assert now.content.startswith(f"[output of {then.tool_name} compacted")
        else:
            assert now == then


def stub_of(message: Message) -> str:
    first_line = message.content.split("\n", 1)[0][:120]
    return COMPACTED.format(
        tool=message.tool_name, size=len(message.content), first_line=first_line
    )


def line_of(text: str) -> str:
    """How the note names a task: its first non-blank line, spaces collapsed, cut short."""
    line = next((" ".join(line.split()) for line in text.split("\n") if line.strip()), "")
    if len(line) > TASK_LINE_CHARS:
        return line[: TASK_LINE_CHARS - 1] + "…"
    return line or TASKS_DROPPED_NO_TEXT


def bench_task(n: int) -> Task:
    """A task shaped like the memory benchmark's: four turns of calls, then an answer."""
    look = Step(((60, 1_500), (60, 3_000)))
    edit, run = Step(((300, 400),)), Step(((50, 2_000),))
    return Task(f"Task {n}: round shelf {n}'s prices.\nDetails follow.", (look, edit, run, Step()))


# -- unit tests ---------------------------------------------------------------------------------


def test_many_tasks_stay_within_the_budget_and_the_note_names_the_removed():
    pusher = Pusher(budget=20_000)
    for n in range(1, 151):
        pusher.push(bench_task(n))
        pusher.compact()  # as before the next task's first turn
        assert pusher.conversation.size <= pusher.budget
    dropped = pusher.conversation.dropped
    assert dropped.count > 100
    note = pusher.conversation.messages[1].content
    assert f"({dropped.count} in all)" in note
    assert f"- Task {dropped.count}: round shelf {dropped.count}'s prices." in note
    assert f"({dropped.count - NOTE_TASKS} earlier tasks, not listed)" in note
    assert "Details follow" not in note  # only each task's first line


def test_within_the_budget_nothing_is_removed():
    pusher = Pusher(budget=1_000_000)
    for n in range(1, 30):
        pusher.push(bench_task(n))
    assert pusher.conversation.dropped.count == 0
    assert sum(1 for m in pusher.conversation if m.compacted) == 0


def test_stubs_come_before_removing_tasks():
    """Stubbing earlier tasks' outputs is enough here: no task is removed."""
    pusher = Pusher(budget=14_000)
    for n in range(1, 4):
        pusher.push(bench_task(n))
    pusher.compact()
    assert pusher.conversation.dropped.count == 0
    assert any(m.compacted for m in pusher.conversation)


def test_a_current_task_over_the_budget_alone_keeps_only_itself_and_its_outputs_stubbed():
    pusher = Pusher(budget=6_000)
    for n in range(1, 4):
        pusher.push(bench_task(n))
    big = Task("One big task", tuple(Step(((40, 3_000),)) for _ in range(12)))
    pusher.push(big)
    pusher.compact()
    sent = pusher.conversation.messages
    assert pusher.conversation.size > pusher.budget
    assert [m.task_line for m in sent if m.task_line] == ["One big task"]
    assert sent[1].content.startswith(NOTE_HEAD) and "- Task 3: round shelf 3's prices." in (
        sent[1].content
    )
    outputs = [m for m in sent if m.role == "tool"]
    assert all(m.compacted for m in outputs[:-KEEP_RECENT])
    assert not any(m.compacted for m in outputs[-KEEP_RECENT:])


def test_earlier_tasks_go_before_the_current_task_loses_an_output():
    pusher = Pusher(budget=15_000)
    for n in range(1, 6):
        pusher.push(bench_task(n))
    pusher.push(Task("Many looks", tuple(Step(((40, 1_000),)) for _ in range(10))))
    pusher.compact()
    sent = pusher.conversation.messages
    assert pusher.conversation.size <= pusher.budget
    assert pusher.conversation.dropped.count > 0
    assert not any(m.compacted for m in sent[sent.index(pusher.current[0]) :])


def test_later_removals_merge_into_one_bounded_note():
    pusher = Pusher(budget=8_000)
    for n in range(1, 60):
        pusher.push(bench_task(n))
        notes = [m for m in pusher.conversation if m.content.startswith(NOTE_HEAD)]
        assert len(notes) <= 1
    note = pusher.conversation.messages[1].content
    assert len(note) <= NOTE_MAX
    assert note.count("\n- Task ") == NOTE_TASKS


def test_a_task_is_named_by_its_own_first_line_not_the_notes_before_it():
    pusher = Pusher(budget=5_000)
    rejected = ("The user rejected your last proposal.",)
    long_line = "Rename " + "x" * 300
    for n in range(1, 6):
        text = f"\n  Task {n}:   rename   things\n" if n != 2 else long_line
        pusher.push(Task(text, bench_task(n).steps, notes=rejected))
    note = pusher.conversation.messages[1].content
    assert "rejected" not in note
    assert "- Task 1: rename things" in note
    assert "- Rename " + "x" * (TASK_LINE_CHARS - 8) + "…" in note
    assert pusher.conversation.messages[2].content.startswith(rejected[0] + "\n\n")


def test_a_nudge_within_a_task_is_no_task_boundary():
    """The user message that asks for a patch through apply_patch stays with its task."""
    nudged = Step(nudge=True)
    pusher = Pusher(budget=7_000)
    for n in range(1, 20):
        steps = bench_task(n).steps
        pusher.push(Task(f"Task {n}", (steps[0], nudged, *steps[1:])))
    sent = pusher.conversation.messages
    nudges = [i for i, m in enumerate(sent) if m.content == PATCH_IN_ANSWER]
    assert nudges and all(sent[i - 1].role == "assistant" for i in nudges)
    assert pusher.conversation.dropped.count > 0


def test_thinking_sent_back_counts_against_the_budget():
    pusher = Pusher(budget=10_000)
    thinking = Step(((40, 100),), reasoning=4_000)
    for n in range(1, 10):
        pusher.push(Task(f"Task {n}", (thinking, Step())))
        pusher.compact()
        assert pusher.conversation.size <= pusher.budget
    assert pusher.conversation.dropped.count > 0


def test_a_short_output_is_not_replaced_by_a_longer_stub():
    pusher = Pusher(budget=3_000)
    pusher.push(Task("Short outputs", tuple(Step(((10, 5),)) for _ in range(60))))
    pusher.compact()
    assert not any(m.compacted for m in pusher.conversation)


def test_conversation_without_task_starts_only_stubs():
    """Messages added with ``user`` alone mark no task: nothing is removed."""
    conversation = Conversation("system")
    for n in range(20):
        conversation.user(f"question {n}")
        call = ToolCall(f"c{n}", "view_file", "{}")
        conversation.assistant(ModelTurn("", (call,)))
        conversation.tool(call, "o" * 2_000)
        conversation.compact(5_000)
    assert conversation.dropped.count == 0
    assert len(conversation.messages) == 61
    assert api_errors(conversation.messages) == []


# -- the property -------------------------------------------------------------------------------

steps = st.builds(
    Step,
    calls=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 4_000)), max_size=3).map(tuple),
    reasoning=st.sampled_from([0, 0, 200, 3_000]),
    nudge=st.booleans(),
)
texts = st.text(st.sampled_from("ab \nTask"), max_size=150)
tasks = st.builds(
    Task,
    text=texts,
    steps=st.lists(steps, max_size=8).map(tuple),
    notes=st.lists(st.text(max_size=80), max_size=2).map(tuple),
    cancelled=st.booleans(),
)


@settings(max_examples=200, deadline=None, database=None)
@given(
    budget=st.integers(300, 30_000),
    system=st.integers(1, 3_000),
    tasks=st.lists(tasks, min_size=1, max_size=25),
)
def test_any_tasks_any_budget_keep_the_invariants(budget: int, system: int, tasks: list[Task]):
    pusher = Pusher(budget=budget, system="s" * system)
    for task in tasks:
        pusher.push(task)
        pusher.compact()


# -- the real session -----------------------------------------------------------------------


def request_size(body: dict[str, Any]) -> int:
    """Characters of a request's messages, counted as ``Conversation.size`` counts them."""
    size = 0
    for message in body["messages"]:
        size += len(message.get("content") or "") + len(message.get("reasoning_content") or "")
        size += sum(len(c["function"]["arguments"]) for c in message.get("tool_calls") or ())
    return size


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SUREHAND_MODEL"):
        monkeypatch.delenv(name, raising=False)


def test_a_long_session_sends_bounded_requests_with_the_note(tmp_path: Path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("".join(f"note {i}: keep it\n" for i in range(200)))
    budget, tasks = 12_000, 40
    view = {"path": "notes.txt", "start_line": None, "end_line": None}
    with ScriptedServer(piece_size=4_096) as server:
        for n in range(1, tasks + 1):
            server.add(
                Turn(tool_calls=[Call("view_file", view)], reasoning=f"Read the notes {n}."),
                Turn(tool_calls=[Call("finish", {"summary": f"Read them for task {n}."})]),
            )
        settings = Settings(
            model=server.model,
            base_url=server.base_url,
            trace_dir=str(tmp_path / "traces"),
            context_budget=budget,
        )

        async def work() -> list[Ending]:
            session = Session(root, OpenAIClient(settings, backoff=0.01), settings)
            try:
                endings = []
                for n in range(1, tasks + 1):
                    session.tell(f"Review of task {n - 1}: nothing to review.")
                    proposal = await session.run(f"Task {n}: read the notes.\nAll of them.")
                    endings.append(proposal.end.ending)
                return endings
            finally:
                await session.close()

        endings = asyncio.run(work())
        assert not server.overruns
    assert endings == [Ending.FINISHED] * tasks
    bodies = [r.body for r in server.completions]
    sizes = [request_size(b) for b in bodies]
    assert max(sizes) <= budget
    assert sum(sizes[:4]) < sum(sizes[-4:]), "the budget is reached, not avoided"
    last = [
        Message(m["role"], m.get("content") or "", tool_call_id=m.get("tool_call_id", ""))
        for m in bodies[-1]["messages"]
    ]
    calls = {
        i: tuple(
            ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
            for c in m.get("tool_calls") or ()
        )
        for i, m in enumerate(bodies[-1]["messages"])
    }
    last = [Message(m.role, m.content, calls[i], m.tool_call_id) for i, m in enumerate(last)]
    assert api_errors(last) == []
    assert last[0].role == "system"
    note = last[1].content
    assert note.startswith(NOTE_HEAD)
    count = int(note.split(" in all)", 1)[0].rsplit("(", 1)[1])
    assert count > NOTE_TASKS
    assert note.endswith(f"- Task {count}: read the notes.]") and "Review of task" not in note
    assert f"({count - NOTE_TASKS} earlier tasks, not listed)" in note
    assert "All of them" not in note
    assert last[-3].content.endswith(f"Task {tasks}: read the notes.\nAll of them.")
    assert last[-3].content.startswith(f"Review of task {tasks - 1}")
    assert last[-1].role == "tool" and "note 199: keep it" in last[-1].content
    assert bodies[-1]["messages"][-2]["reasoning_content"] == f"Read the notes {tasks}."
