"""What the model reads first, pinned: the request a real run sends (system prompt, task,
tool specs), and a committed trace that ``ScriptedModel.from_trace`` replays to the same
proposal.

A change to the prompt, a tool's description or schema, or the request's shape shows
here as a diff against ``tests/agent/snapshots/first_request.json``. When the change is
meant, write the snapshots again::

    SUREHAND_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/agent/test_first_request.py
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent.config.settings import Settings
from agent.loop.session import Session
from agent.models.scripted import ScriptedModel
from agent.staging.proposal import Ending, Proposal
from tests.agent.recorded import (
    CALC,
    ROOT,
    SNAPSHOTS,
    TASK,
    load_or_update,
    make_project,
    record,
)

Recording = tuple[dict[str, Any], list[dict[str, Any]], Proposal]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """A real run of the recorded task: its first request, its trace, its proposal."""
    return record(tmp_path_factory.mktemp("recorded"))


def test_first_request_matches_the_snapshot(recording: Recording):
    first = recording[0]
    expected = load_or_update("first_request.json", first)
    assert first["messages"] == expected["messages"]
    assert first["tools"] == expected["tools"]
    assert first == expected


def test_snapshot_holds_the_prompt_the_task_and_every_tool(recording: Recording):
    snapshot = load_or_update("first_request.json", recording[0])
    system, user = snapshot["messages"]
    assert system["role"] == "system"
    assert f"working in the user's project at {ROOT}." in system["content"]
    assert user == {"role": "user", "content": TASK}
    names = [tool["function"]["name"] for tool in snapshot["tools"]]
    assert {"view_file", "edit", "apply_patch", "run_command", "finish"} <= set(names)
    assert all(tool["function"]["description"] for tool in snapshot["tools"])


def test_a_run_records_the_committed_trace(recording: Recording):
    _, trace, _ = recording
    committed = load_or_update("fix_add.trace.jsonl", trace)
    assert [e["model"] for e in trace if e["type"] == "step"] == [
        e["model"] for e in committed if e["type"] == "step"
    ]
    assert trace[-1] == committed[-1]


def test_the_committed_trace_replays_to_the_same_proposal(recording: Recording, tmp_path: Path):
    _, trace, proposal = recording
    committed = load_or_update("fix_add.trace.jsonl", trace)
    expected_diff = load_or_update("fix_add.diff.json", {"diff": proposal.diff()})["diff"]
    project = make_project(tmp_path)
    settings = Settings(model="scripted", trace_dir=str(tmp_path / "traces"))
    model = ScriptedModel.from_trace(SNAPSHOTS / "fix_add.trace.jsonl")

    async def work():
        session = Session(project, model, settings)
        try:
            return await session.run(TASK)
        finally:
            await session.close()

    replayed = asyncio.run(work())
    end = next(entry for entry in committed if entry["type"] == "end")
    assert replayed.end.ending == Ending.FINISHED == end["ending"]
    assert replayed.end.message == end["message"] == "add now adds."
    assert replayed.diff() == expected_diff
    assert [(c.path, c.after) for c in replayed.changes] == [
        ("calc.py", CALC.replace("return a - b", "return a + b", 1))
    ]
    assert len(model.requests) == len([e for e in committed if e["type"] == "step"]) == 3
    assert (project / "calc.py").read_text() == CALC
