"""``finish``: end the task with a summary for the user."""

from __future__ import annotations

from typing import Any

from agent.tools import messages
from agent.tools.base import ToolResult, load_spec
from agent.tools.context import ToolContext


class Finish:
    spec = load_spec("finish")

    def describe(self, args: dict[str, Any]) -> str:
        return "Finishing"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(messages.FINISHED, summary=args["summary"].strip(), ends_task=True)


TOOL = Finish()
