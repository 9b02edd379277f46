"""What became of a proposal: per file and per hunk, from the texts, never from hope.

After a proposal was offered, each file's text now is compared with the
change that was sent (``landed``): which of its hunks it holds, whether its
file operation happened, what was rebased and what clashed with the user's
own change. From those facts surehand writes the outcome for the user
(``summary``), for the model's next turn (``for_model``) and for the command
result and the trace (``as_json``); the model's own summary is quoted only
for what landed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from agent import messages


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
    on_save: bool = False  # accepted, made by the client when the person saves

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
        if self.on_save:
            data["onSave"] = True
        return data


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

    def left_out(self) -> tuple[int, int]:
        """(hunks and file operations not accepted, all of them): what a review left out."""
        kept = [
            h.status == HunkStatus.ACCEPTED
            for f in self.files
            if f.operation not in ("create", "delete")  # the operation is the one item
            for h in f.hunks
        ]
        kept += [f.operation_accepted for f in self.files if f.operation_accepted is not None]
        return kept.count(False), len(kept)

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
            return messages.REVIEW_DISCARDED
        lines = [messages.REVIEW_HEAD]
        for report in self.files:
            sentence = _file_sentence(report, for_model=True)
            lines.append(messages.REVIEW_FILE.format(path=report.path, sentence=sentence))
        lines.append(messages.REVIEW_TAIL)
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
        by_status.setdefault(hunk.status, []).append(
            messages.REVIEW_HUNK.format(label=hunk.label, line=hunk.line)
        )
    parts = []
    if report.operation != "edit" and report.operation_accepted is not None:
        verb = messages.REVIEW_OPERATIONS[report.operation].format(source=report.source)
        parts.append(
            verb if report.operation_accepted else messages.REVIEW_NOT_DONE.format(verb=verb)
        )
        if report.on_save:
            parts[-1] += messages.REVIEW_ON_SAVE
    if report.why:
        parts.append(messages.REVIEW_LEFT_ALONE.format(why=report.why))
    if report.status == FileStatus.CHANGED:
        parts.append(messages.REVIEW_CHANGED)
    words = {
        HunkStatus.ACCEPTED: messages.REVIEW_ACCEPTED,
        HunkStatus.REJECTED: messages.REVIEW_REJECTED,
        HunkStatus.CONFLICT: messages.REVIEW_CONFLICT
        if for_model
        else "left out, in conflict with your change",
    }
    for status in (HunkStatus.ACCEPTED, HunkStatus.REJECTED, HunkStatus.CONFLICT):
        if status in by_status and (report.operation != "create" or status != HunkStatus.ACCEPTED):
            parts.append(f"{words[status]}: {'; '.join(by_status[status])}")
    if report.rebased:
        parts.append(messages.REVIEW_REBASED if for_model else "rebased onto your changes")
    return f"{report.path}: " + ", ".join(parts) + "." if not for_model else ", ".join(parts) + "."
