"""``view_file``: a file's numbered lines, a window at a time."""

from __future__ import annotations

from typing import Any

from agent.staging.views import numbered
from agent.tools import messages
from agent.tools.base import ToolResult, load_spec
from agent.tools.context import ToolContext

MAX_LINE_CHARS = 2_000


class ViewFile:
    spec = load_spec("view_file")

    def describe(self, args: dict[str, Any]) -> str:
        return f"Reading {args['path']}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        relative, text = ctx.overlay.read(args["path"])
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        total = len(lines)
        first = max(1, args.get("start_line") or 1)
        limit = ctx.settings.view_max_lines
        last = min(total, args.get("end_line") or total, first + limit - 1)
        ctx.views.saw(relative, text)
        if total == 0:
            return ToolResult(messages.EMPTY_FILE.format(path=relative), summary=f"Read {relative}")
        if first > total:
            return ToolResult(
                messages.PAST_THE_END.format(path=relative, total=total, first=first),
                summary=f"Read {relative}",
            )
        shown = [_clip(line) for line in lines[first - 1 : last]]
        out = [numbered(shown, first)]
        if last < total:
            out.append(messages.MORE_LINES.format(count=total - last, next=last + 1))
        return ToolResult("\n".join(out), summary=f"Read {relative} ({first}-{last} of {total})")


def _clip(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return line[:MAX_LINE_CHARS] + messages.LINE_CUT.format(count=len(line) - MAX_LINE_CHARS)


TOOL = ViewFile()
