"""``multi_edit``: several replacements in one file, all or none."""

from __future__ import annotations

from typing import Any

from editing import Edit, EditError, apply_edits

from .base import ToolResult, load_spec
from .context import ToolContext
from .staging import edited, refuse, stage


class MultiEdit:
    spec = load_spec("multi_edit")

    def describe(self, args: dict[str, Any]) -> str:
        return f"Editing {args['path']} ({len(args['edits'])} changes)"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        relative = ctx.overlay.writable(args["path"])
        current = ctx.overlay.text(relative)
        edits = [Edit(e["old"], e["new"], bool(e.get("replace_all"))) for e in args["edits"]]
        try:
            result = apply_edits(current, edits, path=relative)
        except EditError as error:
            raise refuse(ctx, relative, error) from None
        touched = [(r.start - 1, r.end) for r in result.regions]
        stage(ctx, relative, result.text, args["description"], touched)
        return ToolResult(result.message, summary=edited(relative, result.level))


TOOL = MultiEdit()
