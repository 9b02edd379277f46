"""The loop, driven by a scripted model through the same client interface."""

import asyncio
import json
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.conversation import ModelTurn
from agent.events import Event, TaskEnded, ToolStarted
from agent.loop.session import MALFORMED_LIMIT, Session
from agent.messages import PATCH_IN_ANSWER
from agent.models.model import ModelUnreachable
from agent.models.scripted import ScriptedModel, ScriptTurn
from agent.staging.proposal import Ending
from agent.tools import apply_patch, create_file, delete_file, edit, finish, multi_edit, view_file
from agent.trace import read_trace

TOOLS = {
    m.TOOL.spec.name: m.TOOL
    for m in (view_file, edit, multi_edit, apply_patch, create_file, delete_file, finish)
}
CALC = "def add(a, b):\n    return a - b\n"
FIX = {
    "path": "calc.py",
    "old": "return a - b",
    "new": "return a + b",
    "replace_all": None,
    "description": "add adds",
}


def turn(*calls, say: str = "") -> ScriptTurn:
    return ScriptTurn(say, tuple(calls))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    return root


def session(project: Path, model, **settings) -> Session:
    trace_dir = project.parent / "traces"
    return Session(
        project,
        model,
        Settings(model="scripted", trace_dir=str(trace_dir), **settings),
        tools=TOOLS,
    )


def test_finished_task_proposes_changes_and_leaves_files_alone(project: Path):
    model = ScriptedModel(
        [
            turn(
                ("view_file", {"path": "calc.py", "start_line": None, "end_line": None}),
                say="Looking.",
            ),
            turn(("edit", FIX)),
            turn(("finish", {"summary": "add now adds."})),
        ]
    )
    events: list[Event] = []
    proposal = asyncio.run(session(project, model).run("fix add", on_event=events.append))
    assert proposal.end.ending == Ending.FINISHED
    assert proposal.summary == "add now adds."
    assert [(c.path, c.before, c.after, c.descriptions) for c in proposal.changes] == [
        ("calc.py", CALC, CALC.replace("-", "+"), ("add adds",))
    ]
    assert (project / "calc.py").read_text() == CALC
    assert [e.summary for e in events if isinstance(e, ToolStarted)] == [
        "Reading calc.py",
        "Editing calc.py",
        "Finishing",
    ]
    assert isinstance(events[-1], TaskEnded)


def test_trace_has_every_step_and_the_ending(project: Path):
    model = ScriptedModel([turn(("edit", FIX)), turn(("finish", {"summary": "done"}))])
    proposal = asyncio.run(session(project, model).run("fix add"))
    assert proposal.trace is not None
    entries = read_trace(proposal.trace)
    assert [e["type"] for e in entries] == ["task", "step", "step", "end"]
    step = entries[1]
    assert step["tools"][0]["name"] == "edit"
    assert step["tools"][0]["ok"] is True
    assert step["tools"][0]["result_chars"] > 0
    assert {"model_ms", "tokens", "model"} <= set(step)
    assert entries[-1]["ending"] == "finished"


def test_a_trace_replays_to_the_same_proposal(project: Path):
    model = ScriptedModel([turn(("edit", FIX)), turn(("finish", {"summary": "done"}))])
    first = asyncio.run(session(project, model).run("fix add"))
    assert first.trace is not None
    replayed = asyncio.run(session(project, ScriptedModel.from_trace(first.trace)).run("fix add"))
    assert replayed.changes == first.changes


def test_errors_go_back_to_the_model_as_results(project: Path):
    model = ScriptedModel(
        [
            turn(("edit", {**FIX, "old": "return a * b"})),
            turn(("no_such_tool", {})),
            turn(("edit", '{"path": "calc.py"')),
            turn(("edit", {"path": "calc.py"})),
            turn(("finish", {"summary": "gave up"})),
        ]
    )
    s = session(project, model)
    asyncio.run(s.run("fix add"))
    results = [m.content for m in s.conversation if m.role == "tool"]
    assert results[0].startswith("Edit not applied to calc.py: old was not found")
    assert results[1].startswith("There is no tool 'no_such_tool'.")
    assert results[2].startswith("The arguments of edit are not a JSON object (not valid JSON")
    assert results[3].startswith("Invalid arguments for edit: 'old' is a required property")


def test_repeating_a_failed_call_gets_a_hint(project: Path):
    bad = ("edit", {**FIX, "old": "return a * b"})
    model = ScriptedModel([turn(bad), turn(bad), turn(("finish", {"summary": "x"}))])
    s = session(project, model)
    asyncio.run(s.run("fix add"))
    results = [m.content for m in s.conversation if m.role == "tool"]
    assert "You made this exact call before" not in results[0]
    assert "You made this exact call before and it failed the same way" in results[1]


def test_answer_without_tools_ends_the_task(project: Path):
    model = ScriptedModel([turn(say="There is nothing to fix.")])
    proposal = asyncio.run(session(project, model).run("check add"))
    assert proposal.end.ending == Ending.ANSWERED
    assert proposal.summary == "There is nothing to fix."


def test_step_limit(project: Path):
    look = ("view_file", {"path": "calc.py", "start_line": None, "end_line": None})
    model = ScriptedModel([turn(look)] * 5)
    proposal = asyncio.run(session(project, model, max_steps=3).run("look"))
    assert proposal.end.ending == Ending.STEP_LIMIT
    assert proposal.steps == 3


def test_unusable_calls_in_a_row_end_the_task(project: Path):
    model = ScriptedModel([turn(("bogus", {}))] * 5)
    proposal = asyncio.run(session(project, model).run("x"))
    assert proposal.end.ending == Ending.MALFORMED
    assert proposal.steps == 3


class Unreachable:
    async def complete(self, messages, tools, on_delta):
        raise ModelUnreachable("Cannot reach the model endpoint http://127.0.0.1:9/v1.")


def test_model_failure_is_an_ending_not_an_exception(project: Path):
    proposal = asyncio.run(session(project, Unreachable()).run("x"))
    assert proposal.end.ending == Ending.MODEL_ERROR
    assert "Cannot reach" in proposal.summary


class Stalls:
    """Answers the script, then waits forever (a model that stops responding)."""

    def __init__(self, turns):
        self.script = ScriptedModel(turns)

    async def complete(self, messages, tools, on_delta) -> ModelTurn:
        if self.script._next < len(self.script.turns):
            return await self.script.complete(messages, tools, on_delta)
        await asyncio.Event().wait()
        raise AssertionError


def test_cancelling_keeps_the_overlay_and_a_partial_proposal(project: Path):
    s = session(project, Stalls([turn(("edit", FIX))]))

    async def cancel_midway():
        task = asyncio.create_task(s.run("fix add"))
        while not s.overlay.staged:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_midway())
    from agent.staging.proposal import RunEnd

    partial = s.proposal(RunEnd(Ending.CANCELLED, "Cancelled."))
    assert [c.after for c in partial.changes] == [CALC.replace("-", "+")]
    assert partial.trace is not None
    entries = read_trace(partial.trace)
    assert entries[-1]["ending"] == "cancelled"


def test_follow_up_keeps_conversation_and_staged_changes(project: Path):
    model = ScriptedModel(
        [
            turn(("edit", FIX)),
            turn(("finish", {"summary": "fixed"})),
            turn(
                (
                    "create_file",
                    {"path": "test_calc.py", "content": "import calc\n", "description": "test"},
                )
            ),
            turn(("finish", {"summary": "tested"})),
        ]
    )
    s = session(project, model)
    asyncio.run(s.run("fix add"))
    s.tell("The user rejected nothing.")
    proposal = asyncio.run(s.run("now add a test"))
    assert sorted(c.path for c in proposal.changes) == ["calc.py", "test_calc.py"]
    last_request = model.requests[-1]
    users = [m.content for m in last_request if m.role == "user"]
    assert users == ["fix add", "The user rejected nothing.\n\nnow add a test"]


def test_old_tool_outputs_are_compacted_past_the_budget(project: Path):
    (project / "big.py").write_text("x = 1\n" * 3000, encoding="utf-8")
    look = ("view_file", {"path": "big.py", "start_line": None, "end_line": None})
    model = ScriptedModel([turn(look)] * 9 + [turn(("finish", {"summary": "x"}))])
    s = session(project, model, context_budget=20_000)
    asyncio.run(s.run("read"))
    tool_messages = [m for m in s.conversation if m.role == "tool"]
    assert any(m.compacted for m in tool_messages)
    assert all(not m.compacted for m in tool_messages[-6:])
    assert tool_messages[0].content.startswith("[output of view_file compacted")


def test_tool_specs_and_prompt_size(project: Path):
    model = ScriptedModel([turn(("finish", {"summary": "x"}))])
    asyncio.run(session(project, model).run("x"))
    system = model.requests[0][0]
    assert system.role == "system"
    assert str(project) in system.content
    sizes = sum(
        len(json.dumps(t.spec.parameters)) + len(t.spec.description) for t in TOOLS.values()
    )
    assert sizes < 8_000


def test_new_settings_reach_the_files_and_commands_of_a_running_session(project: Path):
    """``configure`` between tasks: the size cap of reads, the command output cap and
    the model client change; the conversation and the shadow copy stay."""
    py = "python3"  # on PATH: the test runner's venv is not visible in the sandbox
    show = ("view_file", {"path": "calc.py", "start_line": None, "end_line": None})
    shout = ("run_command", {"command": f'{py} -c "print(500 * chr(120))"', "timeout": None})
    first = ScriptedModel([turn(show, shout), turn(("finish", {"summary": "ran"}))])
    settings = Settings(
        model="scripted",
        trace_dir=str(project.parent / "traces"),
        command_allowlist=(f"{py} -c",),
    )
    s = Session(project, first, settings)
    try:
        asyncio.run(s.run("look"))
        second = ScriptedModel([turn(show, shout), turn(("finish", {"summary": "ran"}))])
        s.configure(settings.replace(max_file_bytes=10, output_max_chars=100), second)
        asyncio.run(s.run("look again"))
    finally:
        asyncio.run(s.close())
    assert len(first.requests) == 2 and len(second.requests) == 2
    before, after = (
        [m.content for m in model.requests[1] if m.role == "tool"][-2:] for model in (first, second)
    )
    assert "return a - b" in before[0] and "x" * 500 in before[1]
    assert "return a - b" not in after[0] and "the limit is 10)" in after[0]
    assert "x" * 500 not in after[1] and "characters cut" in after[1]


PATCH = """*** Begin Patch
*** Update File: calc.py
@@ def add(a, b):
-    return a - b
+    return a + b
*** End Patch"""


def test_a_patch_written_as_the_answer_is_sent_back_to_the_tool(project: Path):
    model = ScriptedModel(
        [
            turn(say=f"Here is the fix:\n\n{PATCH}\n"),
            turn(("apply_patch", {"patch": PATCH, "description": "add adds"})),
            turn(("finish", {"summary": "add now adds."})),
        ]
    )
    proposal = asyncio.run(session(project, model).run("fix add"))
    assert proposal.end.ending == Ending.FINISHED
    assert [(c.path, c.after) for c in proposal.changes] == [("calc.py", CALC.replace("-", "+"))]
    told = [m.content for m in model.requests[1] if m.role == "user"]
    assert told == ["fix add", PATCH_IN_ANSWER]


def test_a_model_that_keeps_answering_with_patches_is_stopped(project: Path):
    model = ScriptedModel([turn(say=PATCH)] * MALFORMED_LIMIT)
    proposal = asyncio.run(session(project, model).run("fix add"))
    assert proposal.end.ending == Ending.MALFORMED
    assert proposal.changes == ()
    assert len(model.requests) == MALFORMED_LIMIT
