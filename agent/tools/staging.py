"""Staging a tool's change: the stale-view check, the retry budget, the overlay."""

from __future__ import annotations

from editing import EditError, Level

from ..views import Span, touched_spans
from ..workspace import ToolError
from .context import ToolContext


def edited(relative: str, level: Level) -> str:
    """The progress summary of an applied edit, naming the drift it absorbed."""
    if level == Level.EXACT:
        return f"Edited {relative}"
    return f"Edited {relative} (matched despite {level.label})"


def refuse(ctx: ToolContext, relative: str, error: EditError | str) -> ToolError:
    """A ``ToolError`` for a failed change of ``relative``, with facts once retries pile up."""
    message = error.message if isinstance(error, EditError) else error
    return ToolError(ctx.views.failed(relative, ctx.overlay.text(relative), message))


def stage(
    ctx: ToolContext,
    relative: str,
    after: str | None,
    description: str,
    touched: list[Span] | None = None,
) -> None:
    """Stage ``after`` for ``relative`` unless the change touches text the model has not seen.

    ``touched`` are the spans of the current text the change replaces;
    computed from the texts when not given.
    """
    before = ctx.overlay.text(relative)
    if before is not None:
        spans = touched if touched is not None else touched_spans(before, after or "")
        stale = ctx.views.stale(relative, before, spans)
        if stale:
            raise refuse(ctx, relative, stale)
    ctx.overlay.stage(relative, after, description.strip() or "(no description)")
    ctx.views.succeeded(relative, after)
