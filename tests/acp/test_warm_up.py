"""The ACP agent loads the model client's package once answered, not at the first session."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import asyncio, sys
from acp_server.agent import SurehandAgent

agent = SurehandAgent(lambda root: None, "0")
print("before", "openai" in sys.modules)
asyncio.run(agent.initialize(protocol_version=1))
first = agent.warming
asyncio.run(agent.initialize(protocol_version=1))
assert agent.warming is first, "a second initialize starts no second warm-up"
first.join(60)
print("after", "agent.models.openai_client" in sys.modules and not first.is_alive())
agent.close()
"""


def test_initialize_loads_the_model_client_in_the_background() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["before", "False", "after", "True"]
