"""``create_file``: a new file, never over an existing one."""

from __future__ import annotations

from typing import Any

from agent.staging.workspace import FileExists
from agent.tools import messages
from agent.tools.base import ToolResult, load_spec
from agent.tools.context import ToolContext
from agent.tools.staging import Change, stage


class CreateFile:
    spec = load_spec("create_file")

    def describe(self, args: dict[str, Any]) -> str:
        return f"Creating {args['path']}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        relative = ctx.overlay.writable(args["path"])
        if ctx.overlay.exists(relative):
            raise FileExists(messages.FILE_EXISTS.format(path=relative))
        content = args["content"]
        stage(ctx, args["description"], [Change(relative, content)])
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        text = messages.CREATED.format(path=relative, lines=lines)
        return ToolResult(text, summary=f"Created {relative}")


TOOL = CreateFile()
