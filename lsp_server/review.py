"""Proposing an edit to the user and finding out what really happened.

Clients differ in ways that lose edits: VS Code answers ``applied: false``
on a version mismatch, Neovim answers ``applied: true`` while skipping an
edit whose buffer is newer, and Neovim up to 0.11 applies annotated edits
without asking. So: clients without change-annotation support are asked
first (Apply / Show diff / Discard); a proposal against a buffer that moved
on is rebased onto it before it is sent; and after ``workspace/applyEdit``
each file's text is compared with the proposal instead of trusting the
answer. A file the user changed meanwhile is rebased and proposed once more,
but only when nothing of it landed and the client did not report the
person's decisions (``surehand/reviewed``): once some of a file's hunks
landed, or the client said what the person chose, the person has decided,
and a hunk they left out never comes back in the same task; the file's
report then says, hunk by hunk, what its text holds. Hunks that clash with
the user's typing are reported, never guessed. The
landing (``agent.staging.landing``) and the facts (``agent.staging.review``) are the ones
``surehand run`` uses; this module is the editor's side of the exchange.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from agent.staging.history import FileChange
from agent.staging.hunks import apply, line_of
from agent.staging.landed import judge, operation_of, rejected, unsent, with_landing
from agent.staging.landing import Current, Landing, land, land_file
from agent.staging.proposal import Proposal, ProposedChange
from agent.staging.rebase import rebase
from agent.staging.review import FileReport, FileStatus, HunkReport, HunkStatus, Review

# How long to wait after applyEdit for the client's didChange to arrive
# (Neovim debounces them by 150 ms).
SETTLE_SECONDS = 2.0

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
    # Whether the client reported the person's decisions on the last proposal sent
    # (``surehand/reviewed``): then nothing of it is proposed again.
    reviewed: Callable[[], bool] = lambda: False


async def propose(proposal: Proposal, client: Client) -> Review:
    """Send ``proposal`` and report what landed, rebasing once on the user's typing.

    The user is asked first (for clients that need it), so that the landing
    and the edit sent right after it see the buffers as they are: nothing can
    change between the two without an await. A file the user changed after
    the edit was sent is landed again on its new text and sent once more;
    a file operation is never sent twice.
    """
    summary = proposal.summary
    if not await client.confirm(proposal):
        return Review.of([rejected(c) for c in proposal.changes], summary)
    sent, landings = land(proposal, client.current)
    reports: dict[str, FileReport] = {
        landing.path: unsent(change, landing)
        for change, landing in zip(proposal.changes, landings, strict=True)
        if landing.change is None
    }
    by_path = {landing.path: landing for landing in landings}
    if sent.changes:
        applied = await client.send(sent)
        judged = await _landed(sent, client, applied)
        retry, again, settled = [], [], {}
        for change in sent.changes:
            if judged[change.path].status == FileStatus.CHANGED and change.before is not None:
                decided = _decided(change, client.current(change.path), client.reviewed())
                if decided is not None:  # the person chose: nothing of it is sent again
                    judged[change.path] = decided
                    continue
                landing = land_file(change, client.current)
                if landing.change is None:
                    settled[change.path] = unsent(change, landing)
                elif landing.change.source is None:
                    retry.append(landing.change)
                    again.append(landing)
        if retry:
            second = dataclasses.replace(sent, changes=tuple(retry))
            applied = await client.send(second)
            judged.update(await _landed(second, client, applied))
            for landing in again:
                first = by_path[landing.path]
                by_path[landing.path] = dataclasses.replace(
                    landing, conflicts=first.conflicts + landing.conflicts
                )
        for change in sent.changes:
            reports[change.path] = settled.get(change.path) or with_landing(
                judged[change.path], by_path[change.path]
            )
    ordered = [reports[c.path] for c in proposal.changes if c.path in reports]
    return Review.of(ordered, summary)


def _decided(change: ProposedChange, now: str | None, reviewed: bool) -> FileReport | None:
    """The report of an edited file the person decided on and typed in, hunk by hunk
    from its text ``now``; None when it is to be proposed again (nothing of it landed
    and the client did not report decisions: an edit it skipped or refused).

    A hunk ``now`` holds is accepted; one the typing clashes with is a conflict; the
    rest were left out by the person (rejected)."""
    if operation_of(change) != "edit" or now is None or change.before is None:
        return None
    before = change.before
    statuses = []
    for hunk in change.hunks:
        moved = rebase(before, (hunk,), now)
        if moved.conflicts:
            statuses.append(HunkStatus.CONFLICT)
        elif moved.applied and not moved.hunks:
            statuses.append(HunkStatus.ACCEPTED)
        else:
            statuses.append(HunkStatus.REJECTED)
    if not reviewed and HunkStatus.ACCEPTED not in statuses:
        return None
    hunks = tuple(
        HunkReport(hunk.label, line_of(before, hunk.start), status)
        for hunk, status in zip(change.hunks, statuses, strict=True)
    )
    found = set(statuses)
    if found == {HunkStatus.ACCEPTED}:
        status = FileStatus.APPLIED
    elif HunkStatus.ACCEPTED in found:
        status = FileStatus.PARTLY
    elif found == {HunkStatus.CONFLICT}:
        status = FileStatus.CONFLICT
    else:
        status = FileStatus.UNCHANGED
    return FileReport(change.path, "edit", status, hunks)


async def _landed(proposal: Proposal, client: Client, applied: bool) -> dict[str, FileReport]:
    """Each file's report once the client's changes have come in.

    A client that refused the edit changes nothing, so there is nothing to
    wait for; otherwise its didChange may come after its answer.
    """
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        reports = {
            c.path: judge(c, client.current, partial=client.partial and applied)
            for c in proposal.changes
        }
        statuses = {r.status for r in reports.values()}
        pending = statuses != {FileStatus.APPLIED}
        refused = not applied and statuses == {FileStatus.UNCHANGED}
        remaining = deadline - time.monotonic()
        if not pending or refused or remaining <= 0 or not await client.settle(remaining):
            return reports


__all__ = ["Client", "Landing", "Review", "propose"]


def accepted_on_save(
    outcome: Review, sent: Mapping[str, ProposedChange], decided: Mapping[str, list[bool]]
) -> tuple[Review, list[FileChange]]:
    """``outcome`` with the file operations a client makes when the person saves (``decided``:
    the path of each such accepted operation, its hunks' decisions in order) reported as
    accepted, to happen on save, and what each will do, for the task's record.

    Read from the disk, such a file looks untouched (or changed, for a delete whose
    buffer the client emptied): the client's word is the only fact there is yet. A
    record of an operation the person never saves is harmless: its undo finds the
    files as they were and changes nothing."""
    files, changes = [], []
    for report in outcome.files:
        change = sent.get(report.path)
        if change is None or report.path not in decided:
            files.append(report)
            continue
        choice = decided[report.path]
        if len(choice) != len(change.hunks):
            choice = [True] * len(change.hunks)
        before = change.before or ""
        hunks = tuple(
            HunkReport(
                h.label,
                line_of(before, h.start),
                HunkStatus.ACCEPTED if taken else HunkStatus.REJECTED,
            )
            for h, taken in zip(change.hunks, choice, strict=True)
        )
        status = FileStatus.APPLIED if all(choice) else FileStatus.PARTLY
        files.append(
            FileReport(
                report.path, report.operation, status, hunks, change.source, True, on_save=True
            )
        )
        kept = [h for h, taken in zip(change.hunks, choice, strict=True) if taken]
        after = None if change.after is None else apply(before, kept)
        changes.append(FileChange(change.path, change.before, after, change.source))
    review = Review.of(files, outcome.model_summary)
    review.incomplete = outcome.incomplete
    return review, changes
