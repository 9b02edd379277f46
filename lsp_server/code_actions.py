"""The code actions of a review: accept or reject the item under the cursor, or all.

Every action is a command (``surehand.review.*``) with the item's id, so
the server decides when it runs, against the text as it is then (a hunk is
rebased, versioned and sent through ``workspace/applyEdit`` at that moment).
A client without code action literals gets the bare commands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsprotocol import types

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
            out.append((f"surehand: Accept {what}", ACCEPT, {"id": item.id}, True))
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
    out: list[tuple[str, str, dict[str, Any], bool]] = [
        (f"surehand: Allow once `{approval.command}`", ACCEPT, {"id": approval.id}, True)
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
    out.append((f"surehand: Deny `{approval.command}`", REJECT, {"id": approval.id}, False))
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
    return {
        Kind.HUNK: f"hunk: {item.label}",
        Kind.CREATE: f"new file {item.path}",
        Kind.DELETE: f"deleting {item.path}",
        Kind.RENAME: f"moving {item.change.source} to {item.path}",
    }[item.kind]
