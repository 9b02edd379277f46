"""``multi_edit``: several replacements in one file, all or none."""

from __future__ import annotations

from typing import Any

from agent.tools.base import ToolResult, load_spec
from agent.tools.context import ToolContext
from agent.tools.staging import stage_edits
from editing import Edit


class MultiEdit:
    spec = load_spec("multi_edit")

    def describe(self, args: dict[str, Any]) -> str:
        return f"Editing {args['path']} ({len(args['edits'])} changes)"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        edits = [Edit(e["old"], e["new"], bool(e.get("replace_all"))) for e in args["edits"]]
        return stage_edits(ctx, args["path"], edits, args["description"])


TOOL = MultiEdit()
