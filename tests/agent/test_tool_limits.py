"""Tools that could hang: special files are refused, and every call has a time limit."""

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from agent.config.settings import Settings
from agent.conversation import ToolCall
from agent.loop.calls import Caller
from agent.models.model import ToolSpec
from agent.staging.workspace import Overlay
from agent.tools import default_tools
from agent.tools.base import ToolResult
from agent.tools.context import ToolContext


def call(name: str, **args: Any) -> ToolCall:
    return ToolCall("call-1", name, json.dumps(args))


def test_list_files_refuses_a_fifo_without_opening_it(tmp_path: Path):
    os.mkfifo(tmp_path / "pipe")
    ctx = ToolContext(Overlay(tmp_path), Settings())
    outcome = asyncio.run(
        asyncio.wait_for(Caller(default_tools()).call(call("list_files", path="pipe"), ctx), 10)
    )
    assert not outcome.ok
    assert outcome.text == (
        "pipe is not a regular file or folder (a FIFO, device or socket); it cannot be "
        "listed or searched."
    )


@pytest.mark.parametrize("tool", ["view_file", "edit"])
def test_reading_or_editing_a_fifo_is_refused(tmp_path: Path, tool: str):
    os.mkfifo(tmp_path / "pipe")
    ctx = ToolContext(Overlay(tmp_path), Settings())
    edit = {"path": "pipe", "old": "a", "new": "b", "description": "d"}
    args = {"path": "pipe"} if tool == "view_file" else edit
    outcome = asyncio.run(
        asyncio.wait_for(Caller(default_tools()).call(call(tool, **args), ctx), 10)
    )
    assert not outcome.ok
    assert "pipe is not a regular file" in outcome.text


class Stuck:
    """A tool that never finishes on its own."""

    spec = ToolSpec("stuck", "Never finishes.", {"type": "object", "properties": {}})

    def describe(self, args: dict[str, Any]) -> str:
        return "Waiting"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        await asyncio.sleep(3600)
        return ToolResult("never", "never")


def test_a_call_that_does_not_finish_is_stopped_at_the_time_limit(tmp_path: Path):
    ctx = ToolContext(Overlay(tmp_path), Settings(tool_timeout=0.3))
    began = time.monotonic()
    caller = Caller({"stuck": Stuck()})
    outcome = asyncio.run(asyncio.wait_for(caller.call(call("stuck"), ctx), 10))
    assert time.monotonic() - began < 5
    assert not outcome.ok
    assert outcome.text == (
        "stuck did not finish within 0.3 s and was stopped; nothing was changed. Make the "
        "request narrower (a smaller range, a more specific path)."
    )
