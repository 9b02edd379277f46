"""``edit``: one search/replace in a file, through the edit engine."""

from __future__ import annotations

from typing import Any

from agent.tools.base import ToolResult, load_spec
from agent.tools.context import ToolContext
from agent.tools.staging import stage_edits
from editing import Edit


class EditTool:
    spec = load_spec("edit")

    def describe(self, args: dict[str, Any]) -> str:
        return f"Editing {args['path']}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        edit = Edit(args["old"], args["new"], bool(args.get("replace_all")))
        return stage_edits(ctx, args["path"], [edit], args["description"])


TOOL = EditTool()
