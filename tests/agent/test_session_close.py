"""A session closes its model client, and with it the HTTP connections it kept alive."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.loop.session import Session
from agent.models.openai_client import OpenAIClient
from agent.staging.proposal import Ending
from tests.support.openai_server import Call, ScriptedServer, Turn

FINISH = Call("finish", {"summary": "Nothing to change."})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    return root


def settings_for(server: ScriptedServer, tmp_path: Path, **changes: object) -> Settings:
    settings = Settings(
        model=server.model, base_url=server.base_url, trace_dir=str(tmp_path / "traces")
    )
    return settings.replace(**changes) if changes else settings


async def connections_after(server: ScriptedServer, seconds: float = 5.0) -> int:
    """The server's open connections once they are all closed, or after ``seconds``."""
    deadline = time.monotonic() + seconds
    while server.open_connections and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    return server.open_connections


def test_closing_the_session_closes_the_connection(project: Path, openai_server, tmp_path):
    openai_server.add(Turn(tool_calls=[FINISH]))
    settings = settings_for(openai_server, tmp_path)

    async def work() -> tuple[Ending, int, int]:
        session = Session(project, OpenAIClient(settings, backoff=0.01), settings)
        proposal = await session.run("Check calc.py.")
        kept_alive = openai_server.open_connections
        await session.close()
        return proposal.end.ending, kept_alive, await connections_after(openai_server)

    ending, kept_alive, left = asyncio.run(work())
    assert ending == Ending.FINISHED
    assert kept_alive == 1  # the client keeps its connection for the next request
    assert left == 0


def test_a_client_replaced_by_new_settings_is_closed(project: Path, openai_server, tmp_path):
    openai_server.add(Turn(tool_calls=[FINISH]), Turn(tool_calls=[FINISH]))
    first = settings_for(openai_server, tmp_path)
    second = settings_for(openai_server, tmp_path, max_steps=7)

    async def work() -> tuple[int, int]:
        session = Session(project, OpenAIClient(first, backoff=0.01), first)
        await session.run("Check calc.py.")
        session.configure(second, OpenAIClient(second, backoff=0.01))
        await session.run("Check it again.")
        during = await connections_after(openai_server, 1.0)  # the new client's only
        await session.close()
        return during, await connections_after(openai_server)

    during, left = asyncio.run(work())
    assert (during, left) == (1, 0)
    assert len(openai_server.completions) == 2
