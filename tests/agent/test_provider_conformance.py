"""Each provider's wire shape, replayed through the real client and loop to a finished task.

``tests/providers/<name>/`` holds one task's answers as that provider sends
them (``1.sse``, ``2.sse``, ... or ``.json``; ``case.json`` names the
provider, the model and what is peculiar to its shape). The scripted server
replays them byte for byte to the real ``openai`` client; the real session
must fix ``add`` in calc.py, answer every call under its own id, keep
thinking out of the answer, and count the tokens the provider reported.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.events import ModelThinking, ToolFinished
from agent.loop.session import Session
from agent.models.openai_client import OpenAIClient
from agent.staging.proposal import Ending
from tests.support.openai_server import Recorded, ScriptedServer
from tests.support.scripted_task import CALC, FIXED

pytestmark = pytest.mark.slow

PROVIDERS = Path(__file__).parent.parent / "providers"
CASES = sorted(p for p in PROVIDERS.iterdir() if (p / "case.json").is_file())
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def test_every_named_provider_has_a_transcript():
    names = {case.name for case in CASES}
    expected = {"openai", "vllm", "ollama", "llamacpp", "lmstudio", "deepseek", "openrouter"}
    assert expected <= names


def replies(case: Path) -> list[Recorded]:
    files = sorted(
        (p for p in case.iterdir() if p.suffix in (".sse", ".json") and p.stem.isdigit()),
        key=lambda p: int(p.stem),
    )
    return [Recorded.load(p) for p in files]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_provider_transcript_runs_to_a_finished_task(case: Path, tmp_path: Path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    meta = json.loads((case / "case.json").read_text("utf-8"))
    project = tmp_path / "project"
    project.mkdir()
    (project / "calc.py").write_text(CALC, encoding="utf-8")
    (project / "test_calc.py").write_text(TEST_CALC, encoding="utf-8")
    events: list = []

    with ScriptedServer(meta["model"], replies(case)) as server:
        settings = Settings(
            model=meta["model"], base_url=server.base_url, trace_dir=str(tmp_path / "traces")
        )

        async def work():
            client = OpenAIClient(settings, backoff=0.01)
            session = Session(project, client, settings)
            try:
                return await session.run("Fix add in calc.py.", on_event=events.append)
            finally:
                await session.close()
                await client.close()

        proposal = asyncio.run(work())

    assert not server.overruns and server.pending == 0
    assert proposal.end == proposal.end.__class__(Ending.FINISHED, "add now adds.")
    assert [(c.path, c.after) for c in proposal.changes] == [("calc.py", FIXED)]
    assert (project / "calc.py").read_text("utf-8") == CALC
    assert all(e.ok for e in events if isinstance(e, ToolFinished))

    # Every call was answered under its own id, in the order it was made.
    history = server.completions[-1].body["messages"]
    calls = [c for m in history if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    answers = [m["tool_call_id"] for m in history if m["role"] == "tool"]
    assert answers == [c["id"] for c in calls]
    assert len(set(answers)) == len(answers)
    for call in calls:
        assert isinstance(json.loads(call["function"]["arguments"]), dict)

    # Thinking and tagged calls never reach the answer sent back.
    for message in history:
        if message["role"] == "assistant":
            assert "<think>" not in message["content"]
            assert "<tool_call>" not in message["content"]
    thought = "".join(e.text for e in events if isinstance(e, ModelThinking))
    sent_back = [m.get("reasoning_content", "") for m in history if m["role"] == "assistant"]
    if meta.get("reasoning_sent_back"):
        assert all(sent_back) and all(reasoning in thought for reasoning in sent_back)
    else:
        assert not any(sent_back)
    for message in history:
        if message["role"] == "assistant" and thought:
            assert thought[:12] not in message["content"]

    assert [proposal.usage.prompt_tokens, proposal.usage.completion_tokens] == meta["tokens"]
