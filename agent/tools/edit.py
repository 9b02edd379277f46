"""``edit``: one search/replace in a file, through the edit engine."""

from __future__ import annotations

from typing import Any

from editing import EditError, apply_edit

from .base import ToolResult, load_spec
from .context import ToolContext
from .staging import edited, refuse, stage


class EditTool:
    spec = load_spec("edit")

    def describe(self, args: dict[str, Any]) -> str:
        return f"Editing {args['path']}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        relative = ctx.overlay.writable(args["path"])
        current = ctx.overlay.text(relative)
        try:
            result = apply_edit(
                current,
                args["old"],
                args["new"],
                replace_all=bool(args.get("replace_all")),
                path=relative,
            )
        except EditError as error:
            raise refuse(ctx, relative, error) from None
        touched = [(r.start - 1, r.end) for r in result.regions]
        stage(ctx, relative, result.text, args["description"], touched)
        return ToolResult(result.message, summary=edited(relative, result.level))


TOOL = EditTool()
