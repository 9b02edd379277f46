"""``delete_file``: remove a file (staged like every change)."""

from __future__ import annotations

from typing import Any

from agent.tools import messages
from agent.tools.base import ToolResult, load_spec
from agent.tools.context import ToolContext
from agent.tools.staging import Change, stage


class DeleteFile:
    spec = load_spec("delete_file")

    def describe(self, args: dict[str, Any]) -> str:
        return f"Deleting {args['path']}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        relative = ctx.overlay.writable(args["path"])
        ctx.overlay.read(relative)  # refuses a missing or non-text file
        stage(ctx, args["description"], [Change(relative, None, touched=[])])
        return ToolResult(messages.DELETED.format(path=relative), summary=f"Deleted {relative}")


TOOL = DeleteFile()
