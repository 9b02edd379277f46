"""The rehearsal the server runs after start-up: the whole adapter and a real connection,
to a server of its own on the loopback address; nothing leaves the machine."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from agent.conversation import ToolCall
from agent.models import openai_client
from agent.models.openai_client import rehearse
from tests.support.openai_server import ScriptedServer, Turn


def test_the_rehearsal_reads_its_answer_through_the_adapter() -> None:
    turn = rehearse()
    assert turn.tool_calls == (ToolCall("call_0", "rehearse", '{"a":1}'),)
    assert turn.finish_reason == "tool_calls"
    assert turn.usage.total == 2


def test_the_rehearsal_is_answered_over_a_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer comes from its own server on the loopback (the HTTP stack's connection
    parts are what a first request loads too), not from the mock transport; the request
    carries no key of the user's."""
    heads: list[bytes] = []
    answer = openai_client._answer_rehearsal

    async def spy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        readuntil = reader.readuntil

        async def kept(separator: bytes = b"\n") -> bytes:
            heads.append(await readuntil(separator))
            return heads[-1]

        reader.readuntil = kept  # type: ignore[method-assign,assignment]
        await answer(reader, writer)

    monkeypatch.setattr(openai_client, "_answer_rehearsal", spy)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-users-own")
    assert rehearse().tool_calls[0].name == "rehearse"
    assert len(heads) == 1 and heads[0].startswith(b"POST /v1/chat/completions ")
    assert b"sk-users-own" not in heads[0]


def test_the_rehearsal_goes_through_no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedServer("m", [Turn("never asked")]) as proxy:
        for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.setenv(name, proxy.base_url.removesuffix("/v1"))
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        assert rehearse().tool_calls[0].name == "rehearse"
        assert proxy.requests == []


def test_the_rehearsal_sends_nothing_to_the_configured_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with ScriptedServer("m", [Turn("never asked")]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("SUREHAND_MODEL", "m")
        rehearse()
        assert server.requests == []


def test_the_rehearsal_needs_no_network() -> None:
    """In a process whose only network is a loopback that is down, it still reads its turn."""
    code = "from agent.models.openai_client import rehearse; print(rehearse().tool_calls[0].name)"
    done = subprocess.run(
        ["unshare", "--net", "--map-root-user", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if "unshare" in done.stderr and done.returncode != 0:
        pytest.skip(f"no network namespace here: {done.stderr.strip()}")
    assert done.stdout.strip() == "rehearse", done.stderr
