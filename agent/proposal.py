"""What a task leaves for the user to review: the staged changes and why."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from .conversation import Usage
from .workspace import EditRecord, Overlay


class Ending(StrEnum):
    """Every way a task run ends."""

    FINISHED = "finished"  # the model called finish
    ANSWERED = "answered"  # the model replied without calling a tool
    STEP_LIMIT = "step_limit"
    CANCELLED = "cancelled"
    MALFORMED = "malformed"  # the model kept sending calls that could not be run
    MODEL_ERROR = "model_error"  # the endpoint failed (unreachable, auth, ...)


@dataclass(frozen=True)
class Outcome:
    ending: Ending
    message: str


@dataclass(frozen=True)
class FileChange:
    """One file's proposed change; ``before`` None = created, ``after`` None = deleted."""

    path: str
    before: str | None
    after: str | None
    descriptions: tuple[str, ...]

    def diff(self) -> str:
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            (self.after or "").splitlines(keepends=True),
            "/dev/null" if self.before is None else f"a/{self.path}",
            "/dev/null" if self.after is None else f"b/{self.path}",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass(frozen=True)
class Proposal:
    changes: tuple[FileChange, ...]
    edits: tuple[EditRecord, ...]
    outcome: Outcome
    usage: Usage
    steps: int
    trace: Path | None

    @property
    def summary(self) -> str:
        return self.outcome.message

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes)


def proposal_of(
    overlay: Overlay, outcome: Outcome, usage: Usage, steps: int, trace: Path | None
) -> Proposal:
    changes = []
    for path, before, after in overlay.changed():
        labels = tuple(dict.fromkeys(r.description for r in overlay.history if r.path == path))
        changes.append(FileChange(path, before, after, labels))
    edits = tuple(r for r in overlay.history if any(c.path == r.path for c in changes))
    return Proposal(tuple(changes), edits, outcome, usage, steps, trace)
