"""Proposing an edit to the user and finding out what really happened.

Clients differ in ways that lose edits: VS Code answers ``applied: false``
on a version mismatch, Neovim answers ``applied: true`` while skipping an
edit whose buffer is newer, and Neovim up to 0.11 applies annotated edits
without asking. So: clients without change-annotation support are asked
first (Apply / Show diff / Discard); a proposal against a buffer that moved
on is rebased onto it before it is sent; and after ``workspace/applyEdit``
each file's text is compared with the proposal instead of trusting the
answer. A file the user changed meanwhile is rebased and proposed once more;
hunks that clash with the user's typing are reported, never guessed.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum

from agent.proposal import FileChange, Proposal

from .rebase import rebase

# How long to wait after applyEdit for the client's didChange to arrive
# (Neovim debounces them by 150 ms).
SETTLE_SECONDS = 2.0


class FileStatus(StrEnum):
    APPLIED = "applied"
    UNCHANGED = "unchanged"  # the user rejected it, or it was never applied
    PARTLY = "partly_applied"  # the user accepted some of its hunks
    CHANGED = "changed"  # the buffer is neither: the user typed meanwhile


class Outcome(StrEnum):
    APPLIED = "applied"
    PARTLY_APPLIED = "partly_applied"
    DISCARDED = "discarded"
    CONFLICT = "conflict"
    NO_CHANGES = "no_changes"


@dataclass
class Review:
    outcome: Outcome
    files: dict[str, FileStatus] = field(default_factory=dict)
    conflicts: dict[str, int] = field(default_factory=dict)  # path: hunks not applied

    def for_model(self) -> str:
        """What the model is told about the user's decision, with the next task."""
        applied = [p for p, s in self.files.items() if s == FileStatus.APPLIED]
        partly = [p for p, s in self.files.items() if s == FileStatus.PARTLY]
        rejected = [p for p, s in self.files.items() if s == FileStatus.UNCHANGED]
        parts = []
        if applied:
            parts.append(f"the user applied your changes to {', '.join(applied)}")
        if partly:
            parts.append(f"the user applied only some of your changes to {', '.join(partly)}")
        if rejected:
            parts.append(f"the user rejected your changes to {', '.join(rejected)}")
        if self.conflicts:
            parts.append(
                "these changes clashed with the user's own edits and were not applied: "
                + ", ".join(f"{p} ({n} hunks)" for p, n in self.conflicts.items())
            )
        if not parts:
            return "The user discarded your proposal."
        return (
            "About your last proposal: " + "; ".join(parts) + ". Read files again before editing."
        )


Current = Callable[[str], str | None]
"""The text a path has now in the editor (or on disk), None when it does not exist."""
Send = Callable[[Proposal], Awaitable[bool]]
"""Sends the proposal as a WorkspaceEdit; returns the client's ``applied``."""
Confirm = Callable[[Proposal], Awaitable[bool]]
"""Asks the user whether to apply (True for clients that ask themselves)."""
Settle = Callable[[float], Awaitable[bool]]
"""Waits up to that many seconds for a document change; whether one came."""


@dataclass(frozen=True)
class Client:
    """What the review needs from the editor."""

    send: Send
    current: Current
    settle: Settle
    confirm: Confirm
    # Whether the client lets the user accept part of a file's hunks (VS Code's
    # preview does; Neovim applies a document's edit whole or skips it).
    partial: bool


async def propose(proposal: Proposal, client: Client) -> Review:
    """Send ``proposal`` and report what landed, rebasing once on the user's typing.

    The user is asked first (for clients that need it), so that the rebase
    and the edit sent right after it see the buffers as they are: nothing can
    change between the two without an await.
    """
    if not await client.confirm(proposal):
        return Review(Outcome.DISCARDED, {c.path: FileStatus.UNCHANGED for c in proposal.changes})
    send, current = client.send, client.current
    proposal, conflicts = _rebased(proposal, current)
    if not proposal.changes:
        return Review(Outcome.CONFLICT if conflicts else Outcome.NO_CHANGES, conflicts=conflicts)
    applied = await send(proposal)
    statuses = await _landed(proposal, client, applied)
    moved_on = [c for c in proposal.changes if statuses[c.path] == FileStatus.CHANGED]
    if moved_on:
        retry = dataclasses.replace(proposal, changes=tuple(moved_on))
        retry, more = _rebased(retry, current)
        conflicts.update(more)
        if retry.changes:
            applied = await send(retry)
            statuses.update(await _landed(retry, client, applied))
    return Review(_outcome(statuses, conflicts), statuses, conflicts)


def _rebased(proposal: Proposal, current: Current) -> tuple[Proposal, dict[str, int]]:
    """The proposal against the files as they are now, and the hunks that clash."""
    changes, conflicts = [], {}
    for change in proposal.changes:
        now = current(change.path)
        if now == change.before or change.before is None or change.after is None or now is None:
            changes.append(change)
            continue
        merged = rebase(change.before, change.after, now)
        if merged.conflicts:
            conflicts[change.path] = len(merged.conflicts)
        if merged.text != now:
            changes.append(dataclasses.replace(change, before=now, after=merged.text))
    return dataclasses.replace(proposal, changes=tuple(changes)), conflicts


async def _landed(proposal: Proposal, client: Client, applied: bool) -> dict[str, FileStatus]:
    """Each file's status once the client's changes have come in.

    A client that refused the edit changes nothing, so there is nothing to
    wait for; otherwise its didChange may come after its answer.
    """
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        statuses = {
            c.path: _status(c, client.current(c.path), applied, client.partial)
            for c in proposal.changes
        }
        pending = any(s != FileStatus.APPLIED for s in statuses.values())
        refused = not applied and set(statuses.values()) == {FileStatus.UNCHANGED}
        remaining = deadline - time.monotonic()
        if not pending or refused or remaining <= 0 or not await client.settle(remaining):
            return statuses


def _status(change: FileChange, now: str | None, applied: bool, partial: bool) -> FileStatus:
    """A file's fate; text that is neither before nor after was typed by the user,
    unless the client answered ``applied`` and lets the user pick hunks."""
    if now == change.after:
        return FileStatus.APPLIED
    if now == change.before:
        return FileStatus.UNCHANGED
    return FileStatus.PARTLY if applied and partial else FileStatus.CHANGED


def _outcome(statuses: dict[str, FileStatus], conflicts: dict[str, int]) -> Outcome:
    values = set(statuses.values())
    if conflicts and FileStatus.APPLIED not in values:
        return Outcome.CONFLICT
    if values == {FileStatus.APPLIED} and not conflicts:
        return Outcome.APPLIED
    if values <= {FileStatus.UNCHANGED}:
        return Outcome.DISCARDED
    return Outcome.PARTLY_APPLIED
