"""What a task leaves for the user to review: the staged changes and why."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from editing.report import text_diff

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
    """One file's proposed change; ``before`` None = created, ``after`` None = deleted.

    ``source`` is the path a moved file had (``before`` is its text there).
    """

    path: str
    before: str | None
    after: str | None
    descriptions: tuple[str, ...]
    source: str | None = None

    def diff(self) -> str:
        return text_diff(
            self.before,
            self.after,
            "/dev/null" if self.before is None else f"a/{self.source or self.path}",
            "/dev/null" if self.after is None else f"b/{self.path}",
        )


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

    def writes(self) -> dict[str, str | None]:
        """Every file to write (None: to delete) to apply the proposal."""
        files: dict[str, str | None] = {c.source: None for c in self.changes if c.source}
        files.update({change.path: change.after for change in self.changes})
        return files


def proposal_of(
    overlay: Overlay, outcome: Outcome, usage: Usage, steps: int, trace: Path | None
) -> Proposal:
    changed = {path: (before, after) for path, before, after in overlay.changed()}
    moved = {new: old for new, old in overlay.moves.items() if new in changed and old in changed}
    changes = []
    for path, (before, after) in changed.items():
        if path in moved.values():
            continue  # shown as the move
        source = moved.get(path)
        original = changed[source][0] if source is not None else before
        labels = tuple(dict.fromkeys(r.description for r in overlay.history if r.path == path))
        changes.append(FileChange(path, original, after, labels, source))
    touched = {c.path for c in changes} | {c.source for c in changes if c.source}
    edits = tuple(r for r in overlay.history if r.path in touched)
    return Proposal(tuple(changes), edits, outcome, usage, steps, trace)
