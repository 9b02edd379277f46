"""Reading what became of a sent change from the texts now, as a ``FileReport``.

``decided`` finds which hunks a text holds (each hunk accepted or not, the
rest of the text as the agent read it); ``judge`` adds whether the file
operation happened; ``with_landing`` adds what the landing did before the
change was sent (rebased hunks, conflicts, file operations left alone).
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.staging.hunks import Hunk, line_of
from agent.staging.landing import Current, Ground, Landing
from agent.staging.proposal import ProposedChange
from agent.staging.review import FileReport, FileStatus, HunkReport, HunkStatus


def operation_of(change: ProposedChange) -> str:
    if change.before is None:
        return "create"
    if change.after is None:
        return "delete"
    return "rename" if change.source is not None else "edit"


def decided(before: str, hunks: Sequence[Hunk], now: str) -> list[bool] | None:
    """Which of ``hunks`` (regions of ``before``) ``now`` holds; None if no choice gives it."""
    seen: set[tuple[int, int]] = set()

    def search(index: int, cursor: int, at: int) -> list[bool] | None:
        if (index, at) in seen:
            return None
        seen.add((index, at))
        if index == len(hunks):
            return [] if now[at:] == before[cursor:] else None
        hunk = hunks[index]
        gap = before[cursor : hunk.start]
        if not now.startswith(gap, at):
            return None
        at += len(gap)
        for accepted, text in ((True, hunk.text), (False, before[hunk.start : hunk.end])):
            if now.startswith(text, at):
                rest = search(index + 1, hunk.end, at + len(text))
                if rest is not None:
                    return [accepted, *rest]
        return None

    return search(0, 0, 0)


def judge(change: ProposedChange, current: Current, *, partial: bool = True) -> FileReport:
    """What the sent ``change`` became, read from the texts now."""
    operation = operation_of(change)
    path, before = change.path, change.before or ""
    if operation == "delete":
        now = current(path)
        status = (
            FileStatus.APPLIED
            if now is None
            else FileStatus.UNCHANGED
            if now == change.before
            else FileStatus.CHANGED
        )
        return FileReport(path, operation, status, operation_accepted=now is None)
    if operation == "rename":
        assert change.source is not None
        source_now, target_now = current(change.source), current(path)
        moved = source_now is None and target_now is not None
        now = target_now if moved else source_now
    else:
        now = current(path)
        moved = now is not None
    choice = None if now is None else decided(before, change.hunks, now)
    if now is None and operation == "create":
        choice = [False] * len(change.hunks)
    if choice is None or (not partial and 0 < sum(choice) < len(choice)):
        return FileReport(path, operation, FileStatus.CHANGED, source=change.source)
    hunks = tuple(
        HunkReport(
            hunk.label,
            line_of(before, hunk.start),
            HunkStatus.ACCEPTED if accepted else HunkStatus.REJECTED,
        )
        for hunk, accepted in zip(change.hunks, choice, strict=True)
    )
    done = [*choice, moved] if operation in ("rename", "create") else choice
    status = (
        FileStatus.APPLIED
        if all(done)
        else FileStatus.UNCHANGED
        if not any(done)
        else FileStatus.PARTLY
    )
    return FileReport(
        path,
        operation,
        status,
        hunks,
        change.source,
        moved if operation in ("rename", "create") else None,
    )


def with_landing(report: FileReport, landing: Landing) -> FileReport:
    """``report`` with what the landing did first: rebased hunks, conflicts, refusals."""
    rebased = landing.ground == Ground.REBASED
    hunks = tuple(
        HunkReport(h.label, h.line, h.status, rebased) if rebased else h for h in report.hunks
    )
    hunks += tuple(
        HunkReport(c.label, c.line, HunkStatus.CONFLICT, rebased) for c in landing.conflicts
    )
    status = report.status
    if landing.conflicts and status == FileStatus.APPLIED:
        status = FileStatus.PARTLY
    if landing.conflicts and status == FileStatus.UNCHANGED and landing.change is None:
        status = FileStatus.CONFLICT
    return FileReport(
        report.path,
        report.operation,
        status,
        hunks,
        report.source,
        report.operation_accepted,
        rebased,
        landing.why or report.why,
    )


def unsent(change: ProposedChange, landing: Landing) -> FileReport:
    """The report of a file the landing left nothing of to send."""
    operation = operation_of(change)
    if landing.ground == Ground.ALREADY:
        hunks = tuple(
            HunkReport(h.label, line_of(change.before or "", h.start), HunkStatus.ACCEPTED)
            for h in change.hunks
        )
        report = FileReport(change.path, operation, FileStatus.APPLIED, hunks, change.source)
        return with_landing(report, landing)
    status = FileStatus.CONFLICT
    return FileReport(
        change.path,
        operation,
        status,
        tuple(HunkReport(c.label, c.line, HunkStatus.CONFLICT, True) for c in landing.conflicts),
        change.source,
        False if operation != "edit" else None,
        landing.ground == Ground.REBASED,
        landing.why,
    )


def rejected(change: ProposedChange) -> FileReport:
    """The report of a change the user discarded whole."""
    operation = operation_of(change)
    hunks = tuple(
        HunkReport(h.label, line_of(change.before or "", h.start), HunkStatus.REJECTED)
        for h in change.hunks
    )
    return FileReport(
        change.path,
        operation,
        FileStatus.UNCHANGED,
        hunks,
        change.source,
        False if operation != "edit" else None,
    )
