"""What a task leaves for the user to review: the staged changes and why."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from agent.checks.verdicts import Verdict
from agent.conversation import Usage
from agent.staging.governing import governs
from agent.staging.hunks import Hunk, StagedText
from agent.staging.workspace import EditRecord, Overlay


class Ending(StrEnum):
    """Every way a task run ends."""

    FINISHED = "finished"  # the model called finish
    ANSWERED = "answered"  # the model replied without calling a tool
    STEP_LIMIT = "step_limit"
    CANCELLED = "cancelled"
    MALFORMED = "malformed"  # the model kept sending calls that could not be run
    MODEL_ERROR = "model_error"  # the endpoint failed (unreachable, auth, ...)


@dataclass(frozen=True)
class RunEnd:
    """How a task run ended, and what it said (the summary, or why it stopped)."""

    ending: Ending
    message: str


@dataclass(frozen=True)
class ProposedChange:
    """One file's proposed change; ``before`` None = created, ``after`` None = deleted.

    ``source`` is the path a moved file had (``before`` is its text there).
    ``hunks`` are the staged edits as regions of ``before`` (applying all of
    them gives ``after``); a new file is one hunk, a deleted file has none.
    Left empty, they are worked out from the two texts.
    """

    path: str
    before: str | None
    after: str | None
    descriptions: tuple[str, ...]
    source: str | None = None
    hunks: tuple[Hunk, ...] = ()

    def __post_init__(self) -> None:
        if self.hunks or self.after is None or self.before == self.after:
            return
        label = "; ".join(self.descriptions) or "change"
        staged = StagedText(self.before or "")
        staged.change(self.after, label)
        object.__setattr__(self, "hunks", tuple(staged.hunks))

    @property
    def governs(self) -> str | None:
        """What the file governs when it changes how tools run (see ``agent.staging.governing``):
        such a change is flagged in every review and accepted only on its own."""
        return governs(self.path) or (governs(self.source) if self.source else None)

    def diff(self) -> str:
        from editing.report import text_diff  # noqa: PLC0415 - the engine, on first use

        return text_diff(
            self.before,
            self.after,
            "/dev/null" if self.before is None else f"a/{self.source or self.path}",
            "/dev/null" if self.after is None else f"b/{self.path}",
        )


@dataclass(frozen=True)
class Refusal:
    """A tool call the engine or the workspace refused, by its stable reason code."""

    step: int
    tool: str
    reason: str  # "ambiguous", "not_found", "stale_view", "malformed", ...
    path: str | None = None

    def as_json(self) -> dict[str, object]:
        return {"step": self.step, "tool": self.tool, "reason": self.reason, "path": self.path}


_COMPLETE = (Ending.FINISHED, Ending.ANSWERED)


@dataclass(frozen=True)
class Proposal:
    changes: tuple[ProposedChange, ...]
    edits: tuple[EditRecord, ...]
    end: RunEnd
    usage: Usage
    steps: int
    trace: Path | None
    refusals: tuple[Refusal, ...] = ()
    tests: tuple[Verdict, ...] = ()  # the tests' verdicts on exactly this change

    @property
    def summary(self) -> str:
        return self.end.message

    @property
    def complete(self) -> bool:
        """Whether the model finished; otherwise the changes are the work so far."""
        return self.end.ending in _COMPLETE

    @property
    def incomplete(self) -> str:
        """Why the task stopped before the model finished ("" when it finished)."""
        if self.complete:
            return ""
        why = {
            Ending.MODEL_ERROR: "the model failed",
            Ending.STEP_LIMIT: "the step limit was reached",
            Ending.MALFORMED: "the model kept sending unusable calls",
            Ending.CANCELLED: "cancelled",
        }[self.end.ending]
        return f"{why}: {self.end.message}" if self.end.message else why

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes)

    def writes(self) -> dict[str, str | None]:
        """Every file to write (None: to delete) to apply the proposal."""
        files: dict[str, str | None] = {c.source: None for c in self.changes if c.source}
        files.update({change.path: change.after for change in self.changes})
        return files


def proposal_of(
    overlay: Overlay,
    end: RunEnd,
    usage: Usage,
    steps: int,
    trace: Path | None,
    *,
    refusals: tuple[Refusal, ...] = (),
    tests: tuple[Verdict, ...] = (),
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
        hunks = overlay.hunks(path) if source is None else ()
        changes.append(ProposedChange(path, original, after, labels, source, hunks))
    touched = {c.path for c in changes} | {c.source for c in changes if c.source}
    edits = tuple(r for r in overlay.history if r.path in touched)
    return Proposal(tuple(changes), edits, end, usage, steps, trace, refusals, tests)
