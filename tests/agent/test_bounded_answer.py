"""A model's answer is kept up to a ceiling: past it the stream is stopped, nothing cut
runs, and the model is told in its next turn where it was stopped.

The real ``openai`` client talks HTTP to the local scripted server; the
session runs the real tools, the trace is written to a real folder and the
terminal prints into a string.
"""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.loop.session import Session
from agent.messages import ANSWER_STOPPED_CALL
from agent.models.openai_client import OpenAIClient
from agent.models.turn_builder import MAX_ANSWER_CHARS
from agent.staging.proposal import Ending, Proposal
from agent.trace import read_trace
from surehand.terminal.screen import Terminal
from tests.support.openai_server import Call, ScriptedServer, Turn, Whole

HUGE = 4_400_000  # characters, as the answer that was printed twice and traced whole
FINISH = Call("finish", {"summary": "done"})


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SUREHAND_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server():
    with ScriptedServer(piece_size=64_000) as server:
        yield server


def run_task(server: ScriptedServer, root: Path, traces: Path) -> tuple[Proposal, str]:
    settings = Settings(model=server.model, base_url=server.base_url, trace_dir=str(traces))
    out = io.StringIO()
    terminal = Terminal(out)

    async def work() -> Proposal:
        session = Session(root, OpenAIClient(settings, backoff=0.01), settings)
        try:
            return await session.run("Write the data file.", on_event=terminal.event)
        finally:
            await session.close()

    return asyncio.run(work()), out.getvalue()


def test_a_huge_call_is_stopped_never_run_and_the_model_is_told(
    server: ScriptedServer, tmp_path: Path
):
    root = tmp_path / "project"
    root.mkdir()
    content = "".join(f"row {i}\n" for i in range(HUGE // 8))
    server.add(
        Turn(tool_calls=[Call("create_file", {"path": "data.txt", "content": content})]),
        Turn(tool_calls=[FINISH]),
    )
    proposal, printed = run_task(server, root, tmp_path / "traces")

    assert proposal.end.ending == Ending.FINISHED
    assert proposal.changes == ()  # the cut call never ran
    second = server.completions[1].body["messages"]
    told = [m["content"] for m in second if m["role"] == "tool"]
    assert told == [ANSWER_STOPPED_CALL.format(name="create_file", limit=MAX_ANSWER_CHARS)]
    assert f"{MAX_ANSWER_CHARS:,} characters" in told[0]
    assert "smaller edits" in told[0]
    sent_back = json.dumps(second)
    assert len(sent_back) < 20_000  # the cut arguments are not sent back whole
    assert proposal.trace is not None
    assert proposal.trace.stat().st_size < 3 * MAX_ANSWER_CHARS
    assert len(printed) < 20_000
    assert f"stopped at {MAX_ANSWER_CHARS:,} characters" in printed  # the person reads why
    assert "token limit" not in printed


def test_a_huge_text_answer_is_stopped_and_printed_in_part(server: ScriptedServer, tmp_path: Path):
    root = tmp_path / "project"
    root.mkdir()
    server.add(Turn("Here is everything:\n" + "word " * (HUGE // 5)))
    proposal, printed = run_task(server, root, tmp_path / "traces")

    assert proposal.end.ending == Ending.ANSWERED
    assert len(proposal.end.message) < MAX_ANSWER_CHARS + 200
    assert f"stopped this answer at {MAX_ANSWER_CHARS:,} characters" in proposal.end.message
    assert len(printed) < 60_000
    assert "more characters in the trace" in printed
    assert proposal.trace is not None
    assert proposal.trace.stat().st_size < 3 * MAX_ANSWER_CHARS
    steps = [e for e in read_trace(proposal.trace) if e["type"] == "step"]
    assert len(steps[0]["model"]["content"]) <= MAX_ANSWER_CHARS + 200


@pytest.mark.asyncio
async def test_the_client_stops_reading_at_the_ceiling(server: ScriptedServer):
    from agent.conversation import Message
    from agent.models.model import ToolSpec

    spec = ToolSpec("create_file", "make a file", {"type": "object", "properties": {}})
    server.add(Turn(tool_calls=[Call("create_file", {"content": "x" * HUGE})]))
    settings = Settings(model=server.model, base_url=server.base_url)
    client = OpenAIClient(settings, backoff=0.01)
    shown: list[int] = []
    try:
        turn = await client.complete(
            [Message("user", "go")], [spec], lambda d: shown.append(len(d.arguments))
        )
    finally:
        await client.close()
    assert turn.stopped_at == MAX_ANSWER_CHARS
    assert turn.cut_off
    assert len(turn.tool_calls[0].arguments) == MAX_ANSWER_CHARS
    assert sum(shown) == MAX_ANSWER_CHARS


def test_the_ceiling_is_well_above_a_large_edit():
    assert 100_000 <= MAX_ANSWER_CHARS <= 2_000_000


@pytest.mark.asyncio
async def test_a_whole_json_answer_is_held_to_the_ceiling(server: ScriptedServer):
    from agent.conversation import Message

    server.add(Whole(Turn("w" * HUGE)))
    client = OpenAIClient(Settings(model=server.model, base_url=server.base_url), backoff=0.01)
    try:
        turn = await client.complete([Message("user", "go")], [], None)
    finally:
        await client.close()
    assert turn.stopped_at == MAX_ANSWER_CHARS
    assert turn.content.startswith("w" * MAX_ANSWER_CHARS + "\n\n[surehand stopped")
    assert len(turn.content) < MAX_ANSWER_CHARS + 200
