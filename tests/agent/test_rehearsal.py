"""The rehearsal the server runs after start-up: the whole adapter, nothing on the network."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent.conversation import ToolCall
from agent.models.openai_client import rehearse
from tests.support.openai_server import ScriptedServer, Turn


def test_the_rehearsal_reads_its_answer_through_the_adapter() -> None:
    turn = rehearse()
    assert turn.tool_calls == (ToolCall("call_0", "rehearse", '{"a":1}'),)
    assert turn.finish_reason == "tool_calls"
    assert turn.usage.total == 2


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
