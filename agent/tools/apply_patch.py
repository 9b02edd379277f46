"""``apply_patch``: a multi-file patch, all files or none."""

from __future__ import annotations

from typing import Any

from agent.staging.workspace import ToolError
from agent.tools.base import ToolResult, load_spec
from agent.tools.context import ToolContext
from agent.tools.staging import Change, refuse, stage
from editing import EditError
from editing.patch import apply_patch, parse_patch


class ApplyPatch:
    spec = load_spec("apply_patch")

    def describe(self, args: dict[str, Any]) -> str:
        return "Applying a patch"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            patch = parse_patch(args["patch"])
        except EditError as error:
            raise ToolError(error.message, reason=error.reason.value, path=error.path) from None
        paths = {path: ctx.overlay.writable(path) for path in patch.paths}

        def read(path: str) -> str | None:
            return ctx.overlay.text(paths.get(path, path))

        try:
            result = apply_patch(patch, read)
        except EditError as error:
            if error.path in paths:
                raise refuse(ctx, paths[error.path], error) from None
            raise ToolError(error.message, reason=error.reason.value, path=error.path) from None
        changes: list[Change] = []
        for change in result.changes:
            if change.source:
                changes.append(Change(paths[change.source], None))
            changes.append(Change(paths[change.path], change.after))
        stage(ctx, args["description"], changes)
        for change in result.changes:
            if change.source:
                ctx.overlay.moves[paths[change.path]] = paths[change.source]
        files = ", ".join(result.summary)
        return ToolResult(result.message, summary=f"Patched {files}")


TOOL = ApplyPatch()
