"""Staging a tool's change: the stale-view check, the retry budget, the overlay."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent.staging.views import Span, touched_spans
from agent.staging.workspace import ToolError
from agent.tools import messages
from agent.tools.base import ToolResult
from agent.tools.context import ToolContext
from editing import Edit, EditError, Level, apply_edits


@dataclass(frozen=True)
class Change:
    """A file's new text (None: deleted), and the spans of its current text it replaces.

    ``touched`` is computed from the texts when not given.
    """

    path: str
    after: str | None
    touched: list[Span] | None = None
    written: list[Span] | None = None  # the spans of ``after`` written in place of ``touched``
    anchor: tuple[int, int] | None = None  # a line of the current text and where it starts


def _edited(relative: str, level: Level) -> str:
    """The progress summary of an applied edit, naming the drift it absorbed."""
    if level == Level.EXACT:
        return f"Edited {relative}"
    return f"Edited {relative} (matched despite {level.label})"


def refuse(ctx: ToolContext, relative: str, error: EditError | str) -> ToolError:
    """A ``ToolError`` for a failed change of ``relative``, with facts once retries pile up."""
    message, line = (error.message, error.line) if isinstance(error, EditError) else (error, None)
    reason = error.reason.value if isinstance(error, EditError) else "stale_view"
    return ToolError(
        ctx.views.failed(relative, ctx.overlay.text(relative), message, line),
        reason=reason,
        path=relative,
        line=line,
    )


def stage(ctx: ToolContext, description: str, changes: Sequence[Change]) -> None:
    """Stage every change, or none if one touches text the model has not seen."""
    with ctx.overlay.one_read():
        _stage(ctx, description, changes)


def _stage(ctx: ToolContext, description: str, changes: Sequence[Change]) -> None:
    for change in changes:
        before = ctx.overlay.text(change.path)
        if before is None:
            continue
        touched = change.touched
        if touched is None:
            touched = touched_spans(before, change.after or "")
        stale = ctx.views.stale(change.path, before, touched)
        if stale:
            raise refuse(ctx, change.path, stale)
    for change in changes:
        label = description.strip() or messages.NO_DESCRIPTION
        ctx.overlay.stage(
            change.path, change.after, label, change.touched, change.written, anchor=change.anchor
        )
        ctx.views.succeeded(change.path, change.after)


def stage_edits(ctx: ToolContext, path: str, edits: list[Edit], description: str) -> ToolResult:
    """Apply ``edits`` to the current text of ``path`` through the engine and stage the result."""
    relative = ctx.overlay.writable(path)
    with ctx.overlay.one_read():  # the text edited is the text staged
        try:
            result = apply_edits(ctx.overlay.text(relative), edits, path=relative)
        except EditError as error:
            raise refuse(ctx, relative, error) from None
        touched = [(r.start - 1, r.end) for r in result.regions]
        written = [(w.start - 1, w.end) for w in result.written]
        at = result.first_region_at
        anchor = (touched[0][0], at) if at is not None and touched else None
        stage(ctx, description, [Change(relative, result.text, touched, written, anchor)])
    return ToolResult(result.message, summary=_edited(relative, result.level))
