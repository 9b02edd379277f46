"""The code actions of a review: accept or reject the item under the cursor, or all.

Every action is a command (``surehand.review.*``) with the item's id, so
the server decides when it runs, against the text as it is then (a hunk is
rebased, versioned and sent through ``workspace/applyEdit`` at that moment).
A client without code action literals gets the bare commands. Titles show
model-chosen text (labels, paths, commands) through ``editing.visible``; the
command arguments carry only ids. Only "accept" or "allow once" of the item
under the cursor is ever preferred, never "always allow" (last, so that no
quick-fix key picks it) nor anything wide.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from editing.visible import visible

from .hunk_review import Item, Kind, State

ACCEPT = "surehand.review.accept"
REJECT = "surehand.review.reject"
ACCEPT_ALL = "surehand.review.acceptAll"
REJECT_ALL = "surehand.review.rejectAll"
NEXT = "surehand.review.next"
SHOW_DIFF = "surehand.review.showDiff"
UNDO = "surehand.undo"
COMMANDS = (ACCEPT, REJECT, ACCEPT_ALL, REJECT_ALL, NEXT, SHOW_DIFF, UNDO)


@dataclass(frozen=True)
class Approval:
    """A command waiting for the user's yes, shown like a hunk."""

    id: str
    command: str
    may_always: bool


def review_actions(
    items: list[Item], uri: str, *, show_diff: bool, more_files: bool, file_pending: bool
) -> list[tuple[str, str, dict[str, Any], bool]]:
    """(title, command, argument, preferred) for the items at the cursor, then the wide ones."""
    out: list[tuple[str, str, dict[str, Any], bool]] = []
    for item in items:
        what = _what(item)
        if item.state is State.PENDING:
            accept = f"surehand: Accept {what}"
            if item.governs:
                accept += " (changes how tools run: accept on its own)"
            out.append((accept, ACCEPT, {"id": item.id}, True))
        out.append((f"surehand: Reject {what}", REJECT, {"id": item.id}, False))
    if items:
        if file_pending:
            out.append(("surehand: Accept all in this file", ACCEPT_ALL, {"uri": uri}, False))
        if more_files:
            out.append(("surehand: Reject all in this file", REJECT_ALL, {"uri": uri}, False))
        out.append(("surehand: Reject all", REJECT_ALL, {}, False))
        if show_diff:
            out.append(("surehand: Show diff", SHOW_DIFF, {"id": items[0].id}, False))
    return out


def approval_actions(approval: Approval) -> list[tuple[str, str, dict[str, Any], bool]]:
    """Allow once (preferred), Deny, then Always allow (never preferred, never first)."""
    shown = visible(approval.command)
    out: list[tuple[str, str, dict[str, Any], bool]] = [
        (f"surehand: Allow once `{shown}`", ACCEPT, {"id": approval.id}, True),
        (f"surehand: Deny `{shown}`", REJECT, {"id": approval.id}, False),
    ]
    if approval.may_always:
        out.append(
            (
                "surehand: Always allow this command",
                ACCEPT,
                {"id": approval.id, "always": True},
                False,
            )
        )
    return out


def as_lsp(
    actions: list[tuple[str, str, dict[str, Any], bool]],
    diagnostics: list[types.Diagnostic],
    *,
    literals: bool,
) -> list[types.CodeAction | types.Command]:
    out: list[types.CodeAction | types.Command] = []
    for title, command, argument, preferred in actions:
        lsp_command = types.Command(title=title, command=command, arguments=[argument])
        if not literals:
            out.append(lsp_command)
            continue
        out.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=diagnostics or None,
                is_preferred=preferred or None,
                command=lsp_command,
            )
        )
    return out


def _what(item: Item) -> str:
    path, source = visible(item.path), visible(item.change.source or "")
    return {
        Kind.HUNK: f"hunk: {visible(item.label)}",
        Kind.CREATE: f"new file {path}",
        Kind.DELETE: f"deleting {path}",
        Kind.RENAME: f"moving {source} to {path}",
    }[item.kind]
