"""What became of a proposal: per file and per hunk, from the texts, never from hope.

After a proposal was offered, each file's text now is compared with the
change that was sent: which of its hunks it holds (``decided``), whether its
file operation happened, what was rebased and what clashed with the user's
own change. From those facts surehand writes the outcome for the user
(``summary``), for the model's next turn (``for_model``) and for the command
result and the trace (``as_json``); the model's own summary is quoted only
for what landed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .hunks import Hunk, line_of
from .landing import Current, Ground, Landing
from .proposal import FileChange


class FileStatus(StrEnum):
    APPLIED = "applied"
    UNCHANGED = "unchanged"  # the user rejected it, or it was never applied
    PARTLY = "partly_applied"  # the user accepted some of it
    CHANGED = "changed"  # the text is neither: the user typed meanwhile
    CONFLICT = "conflict"  # nothing of it could land: it clashed with the user's change


class HunkStatus(StrEnum):
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    CONFLICT = "conflict"  # left out: the user changed the same lines


class Verdict(StrEnum):
    APPLIED = "applied"
    PARTLY_APPLIED = "partly_applied"
    DISCARDED = "discarded"
    CONFLICT = "conflict"
    NO_CHANGES = "no_changes"


@dataclass(frozen=True)
class HunkReport:
    label: str
    line: int  # 1-based line of the file where it lands (or clashed)
    status: HunkStatus
    rebased: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "line": self.line,
            "status": self.status.value,
            "rebased": self.rebased,
        }


@dataclass(frozen=True)
class FileReport:
    path: str
    operation: str  # edit, create, delete, rename
    status: FileStatus
    hunks: tuple[HunkReport, ...] = ()
    source: str | None = None  # a rename's old path
    operation_accepted: bool | None = None  # None for a plain edit
    rebased: bool = False
    why: str = ""  # why a file operation could not go

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "operation": self.operation,
            "status": self.status.value,
            "hunks": [h.as_json() for h in self.hunks],
        }
        if self.source is not None:
            data["source"] = self.source
        if self.operation_accepted is not None:
            data["operationAccepted"] = self.operation_accepted
        if self.rebased:
            data["rebased"] = True
        if self.why:
            data["why"] = self.why
        return data


def operation_of(change: FileChange) -> str:
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


def judge(change: FileChange, current: Current, *, partial: bool = True) -> FileReport:
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


def unsent(change: FileChange, landing: Landing) -> FileReport:
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


def rejected(change: FileChange) -> FileReport:
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


@dataclass
class Review:
    verdict: Verdict
    files: list[FileReport] = field(default_factory=list)
    model_summary: str = ""
    incomplete: str = ""  # why the task stopped before the model finished

    @classmethod
    def of(cls, files: list[FileReport], model_summary: str = "") -> Review:
        return cls(_verdict(files), files, model_summary)

    @property
    def statuses(self) -> dict[str, FileStatus]:
        return {f.path: f.status for f in self.files}

    @property
    def conflicts(self) -> dict[str, int]:
        counts = {
            f.path: sum(1 for h in f.hunks if h.status == HunkStatus.CONFLICT) for f in self.files
        }
        counts.update({f.path: max(counts[f.path], 1) for f in self.files if f.why})
        return {path: n for path, n in counts.items() if n}

    def headline(self) -> str:
        """The verdict in words ("Partly applied")."""
        return {
            Verdict.APPLIED: "Applied",
            Verdict.PARTLY_APPLIED: "Partly applied",
            Verdict.DISCARDED: "Discarded",
            Verdict.CONFLICT: "Not applied: conflicts with your changes",
            Verdict.NO_CHANGES: "No changes",
        }[self.verdict]

    def summary(self) -> str:
        """The outcome for the user, from the facts (clients put the verdict before it)."""
        if self.verdict == Verdict.NO_CHANGES:  # nothing to contradict: the model's answer
            text = self.model_summary or "No changes were proposed."
        else:
            text = " ".join(_file_sentence(f) for f in self.files)
        if self.verdict == Verdict.APPLIED and self.model_summary:
            text += f" The model's summary: {self.model_summary}"
        if self.incomplete:
            text = f"Incomplete ({self.incomplete}). {text}"
        return text

    def for_model(self) -> str:
        """What the model is told about the user's decision, with the next task."""
        if not self.files:
            return "The user discarded your proposal."
        lines = ["About your last proposal (what the user accepted and what landed):"]
        for report in self.files:
            lines.append(f"- {report.path}: {_file_sentence(report, for_model=True)}")
        lines.append("Read files again before editing.")
        return "\n".join(lines)

    def as_json(self) -> list[dict[str, Any]]:
        return [f.as_json() for f in self.files]


def _verdict(files: list[FileReport]) -> Verdict:
    if not files:
        return Verdict.NO_CHANGES
    statuses = {f.status for f in files}
    conflicts = any(h.status == HunkStatus.CONFLICT for f in files for h in f.hunks) or any(
        f.why for f in files
    )
    if statuses == {FileStatus.APPLIED} and not conflicts:
        return Verdict.APPLIED
    if statuses <= {FileStatus.UNCHANGED}:
        return Verdict.DISCARDED
    if statuses <= {FileStatus.CONFLICT, FileStatus.UNCHANGED}:
        return Verdict.CONFLICT
    return Verdict.PARTLY_APPLIED


def _file_sentence(report: FileReport, *, for_model: bool = False) -> str:
    """One file's fate in words: what was accepted, rejected, rebased, in conflict."""
    by_status: dict[HunkStatus, list[str]] = {}
    for hunk in report.hunks:
        by_status.setdefault(hunk.status, []).append(f"{hunk.label} (line {hunk.line})")
    parts = []
    if report.operation != "edit" and report.operation_accepted is not None:
        what = {"create": "created", "delete": "deleted", "rename": f"moved from {report.source}"}
        verb = what[report.operation]
        parts.append(verb if report.operation_accepted else f"not {verb}")
    if report.why:
        parts.append(f"left alone because {report.why}")
    if report.status == FileStatus.CHANGED:
        parts.append("changed by the user meanwhile; the result is theirs")
    words = {
        HunkStatus.ACCEPTED: "accepted",
        HunkStatus.REJECTED: "rejected",
        HunkStatus.CONFLICT: "clashed with the user's own change and was left out"
        if for_model
        else "left out, in conflict with your change",
    }
    for status in (HunkStatus.ACCEPTED, HunkStatus.REJECTED, HunkStatus.CONFLICT):
        if status in by_status and (report.operation != "create" or status != HunkStatus.ACCEPTED):
            parts.append(f"{words[status]}: {'; '.join(by_status[status])}")
    if report.rebased:
        parts.append(
            "rebased onto the user's changes" if for_model else "rebased onto your changes"
        )
    return f"{report.path}: " + ", ".join(parts) + "." if not for_model else ", ".join(parts) + "."
