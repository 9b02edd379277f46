"""Taking a proposal to the user's files as they are now: one landing, every front end.

The agent staged its changes against the text it read (``ProposedChange.before``);
by the time the user accepts, a file may have moved on (typed in the editor,
changed on disk). :func:`land` compares each file's current text with the
one the agent read and gives the proposal to send or write, against the
current texts:

- unchanged since the agent read it: the change as proposed;
- changed: the agent's hunks rebased onto the current text (``rebase``);
  hunks that clash with the user's change are left out and reported as
  conflicts with their lines, never guessed;
- a file operation whose ground moved (a new file that exists now, a file to
  delete or move that the user changed or removed, a move onto a path that
  exists) is left out whole and reported: nothing is written over a change
  the agent did not see.

The language server sends the result as a ``WorkspaceEdit``; ``surehand run``
writes it. Pure: the current texts come from the caller.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from agent.staging.proposal import Proposal, ProposedChange
from agent.staging.rebase import Conflict, rebase

Current = Callable[[str], str | None]
"""The text a path has now (editor buffer or disk), None when it does not exist."""


class Ground(StrEnum):
    """How a file stands against the text the agent read."""

    AS_READ = "as_read"  # unchanged: the change goes as proposed
    REBASED = "rebased"  # changed elsewhere: the hunks were moved onto it
    ALREADY = "already"  # the current text already is the proposal
    MOVED_ON = "moved_on"  # the file operation cannot go: see ``why``


@dataclass(frozen=True)
class Landing:
    """One file's change against the current text (None: nothing left to apply)."""

    path: str
    ground: Ground
    change: ProposedChange | None
    conflicts: tuple[Conflict, ...] = ()
    why: str = ""  # for MOVED_ON: what changed under the file operation


def land(proposal: Proposal, current: Current) -> tuple[Proposal, list[Landing]]:
    """The proposal against the current texts, and how each file stands."""
    landings = [land_file(change, current) for change in proposal.changes]
    changes = tuple(landing.change for landing in landings if landing.change is not None)
    return dataclasses.replace(proposal, changes=changes), landings


def land_file(change: ProposedChange, current: Current) -> Landing:
    path = change.path
    now = current(path)
    if change.before is None or change.after is None:
        return _land_create_or_delete(change, now)
    if change.source is not None:  # a move, maybe with changes
        source_now = current(change.source)
        if source_now is None and now == change.after:
            return Landing(path, Ground.ALREADY, None)
        if source_now is None:
            return Landing(path, Ground.MOVED_ON, None, why=f"{change.source} is gone")
        if now is not None:
            return Landing(path, Ground.MOVED_ON, None, why=f"{path} exists now")
        now = source_now
    elif now is None:
        return Landing(path, Ground.MOVED_ON, None, why=f"{path} was deleted since")
    if now == change.before:
        return Landing(path, Ground.AS_READ, change)
    merged = rebase(change.before, change.hunks, now)
    if merged.text == now and change.source is None:
        ground = Ground.ALREADY if not merged.conflicts else Ground.REBASED
        return Landing(path, ground, None, merged.conflicts)
    rebased = dataclasses.replace(change, before=now, after=merged.text, hunks=merged.hunks)
    return Landing(path, Ground.REBASED, rebased, merged.conflicts)


def _land_create_or_delete(change: ProposedChange, now: str | None) -> Landing:
    path = change.path
    if change.before is None:  # a new file
        if now is None:
            return Landing(path, Ground.AS_READ, change)
        if now == change.after:
            return Landing(path, Ground.ALREADY, None)
        return Landing(path, Ground.MOVED_ON, None, why=f"{path} exists now")
    if now is None:  # a file to delete, already gone
        return Landing(path, Ground.ALREADY, None)
    if now != change.before:
        return Landing(path, Ground.MOVED_ON, None, why=f"{path} was changed since")
    return Landing(path, Ground.AS_READ, change)
