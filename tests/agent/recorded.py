"""A recorded task: a small project, a model script, and a run of it through the real client.

``record`` runs the script through ``OpenAIClient`` against the scripted
OpenAI-compatible server and returns the first request the server received
and the task's trace, both with the workspace path replaced by ``ROOT``, so
they can be committed and compared. ``SUREHAND_UPDATE_SNAPSHOTS=1`` makes
the tests that compare against them write them again instead.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from agent.config.settings import Settings
from agent.loop.session import Session
from agent.models.openai_client import OpenAIClient
from agent.staging.proposal import Proposal
from tests.support.openai_server import Call, ScriptedServer, Turn

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("SUREHAND_UPDATE_SNAPSHOTS") == "1"
ROOT = "<workspace>"

TASK = "add subtracts; make it add."
CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
SCRIPT = (
    Turn(
        "I will read calc.py first.",
        tool_calls=[Call("view_file", {"path": "calc.py", "start_line": None, "end_line": None})],
    ),
    Turn(
        tool_calls=[
            Call(
                "edit",
                {
                    "path": "calc.py",
                    "old": "def add(a, b):\n    return a - b",
                    "new": "def add(a, b):\n    return a + b",
                    "replace_all": None,
                    "description": "add adds",
                },
            )
        ]
    ),
    Turn(tool_calls=[Call("finish", {"summary": "add now adds."})]),
)


def make_project(parent: Path) -> Path:
    root = parent / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    return root


def settings_for(server_url: str, model: str, traces: Path) -> Settings:
    return Settings(model=model, base_url=server_url, trace_dir=str(traces))


def record(parent: Path) -> tuple[dict[str, Any], list[dict[str, Any]], Proposal]:
    """The first request and the trace of a real run of ``SCRIPT``, and its proposal."""
    project = make_project(parent)
    with ScriptedServer(replies=SCRIPT) as server:
        settings = settings_for(server.base_url, server.model, parent / "traces")

        async def work() -> Proposal:
            session = Session(project, OpenAIClient(settings, backoff=0.01), settings)
            try:
                return await session.run(TASK)
            finally:
                await session.close()

        proposal = asyncio.run(work())
        first = server.completions[0].body
    assert proposal.trace is not None
    trace = [json.loads(line) for line in proposal.trace.read_text("utf-8").splitlines()]
    return _anonymous(first, project), _anonymous(trace, project), proposal


def _anonymous(value: Any, project: Path) -> Any:
    """``value`` with the workspace's path as ``ROOT`` and the run's clock times as 0."""
    text = json.dumps(value, ensure_ascii=False).replace(str(project.resolve()), ROOT)
    data = json.loads(text)
    for entry in data if isinstance(data, list) else []:
        if "time" in entry:
            entry["time"] = 0
        if "model_ms" in entry:
            entry["model_ms"] = 0
            for tool in entry["tools"]:
                tool["tool_ms"] = 0
    return data


def load_or_update(name: str, value: Any) -> Any:
    """The committed snapshot ``name``; written from ``value`` first when updating."""
    path = SNAPSHOTS / name
    if UPDATE or not path.exists():
        if not UPDATE:
            raise AssertionError(
                f"{path} is missing: run with SUREHAND_UPDATE_SNAPSHOTS=1 to write it"
            )
        path.parent.mkdir(exist_ok=True)
        if name.endswith(".jsonl"):
            lines = [json.dumps(entry, ensure_ascii=False) for entry in value]
            path.write_text("\n".join(lines) + "\n", "utf-8")
        else:
            path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", "utf-8")
    text = path.read_text("utf-8")
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line]
    return json.loads(text)
