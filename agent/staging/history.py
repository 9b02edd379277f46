"""Accepted tasks, kept so that a whole task can be taken back.

Every front end records what a task it landed did to each file (the text
before and after, file operations included) with :meth:`History.record`;
:func:`plan_undo` turns the newest task not yet undone into the change that
takes it back, landed onto the files as they are now by the same landing as
a proposal (``agent.staging.landing``): a file the person has changed since keeps
their change (the task's hunks are taken out around it); where their change
touches the task's own lines, or a file operation's ground moved, the undo
is refused whole, naming each file and why. Nothing is half undone, and
nothing the person wrote is overwritten. Tasks are undone newest first, so
a later task's changes are never taken back under it.

Records live in the person's state folder (``$XDG_STATE_HOME/surehand/
history/<folder of the workspace>``), one JSON file per task, so the
terminal and the language server share them. They are bounded: the newest
``MAX_TASKS`` within ``MAX_AGE``, at most ``MAX_BYTES`` in all; a task
larger than ``MAX_TASK_BYTES`` is not kept (the caller says so).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.conversation import Usage
from agent.staging.hunks import Hunk, apply
from agent.staging.landed import decided, operation_of
from agent.staging.landing import Current, Ground, land
from agent.staging.proposal import Ending, Proposal, ProposedChange, RunEnd
from agent.staging.rebase import rebase

MAX_TASKS = 50
MAX_AGE = 30 * 24 * 3600  # seconds
MAX_BYTES = 64 * 1024 * 1024  # every record of one workspace together
MAX_TASK_BYTES = 16 * 1024 * 1024  # one task's texts
FORMAT = 1


@dataclass(frozen=True)
class FileChange:
    """What a task did to one file: ``before`` None = created, ``after`` None = deleted;
    ``source`` is a moved file's old path (``before`` is its text there)."""

    path: str
    before: str | None
    after: str | None
    source: str | None = None

    @property
    def operation(self) -> str:
        if self.before is None:
            return "create"
        if self.after is None:
            return "delete"
        return "rename" if self.source is not None else "edit"

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "operation": self.operation}
        if self.source is not None:
            data["source"] = self.source
        return data


@dataclass(frozen=True)
class TaskRecord:
    id: str
    task: str
    when: float  # seconds since the epoch
    front: str  # "editor" or "terminal"
    files: tuple[FileChange, ...]
    undone: bool = False

    def title(self, width: int = 120) -> str:
        """The task in quotes on one line, cut at ``width`` characters (not escaped)."""
        task = " ".join(self.task.split())
        return f"“{task[:width]}{'…' if len(task) > width else ''}”"

    @property
    def paths(self) -> list[str]:
        """Every path the task touched, a move's both ends."""
        return [p for f in self.files for p in (f.source, f.path) if p is not None]

    def as_json(self) -> dict[str, Any]:
        """The record as the protocol shows it (without the texts)."""
        return {
            "id": self.id,
            "task": self.task,
            "when": datetime.fromtimestamp(self.when, UTC).isoformat(timespec="seconds"),
            "front": self.front,
            "files": [f.as_json() for f in self.files],
            "undone": self.undone,
        }


@dataclass(frozen=True)
class Refused:
    path: str
    why: str

    def as_json(self) -> dict[str, str]:
        return {"path": self.path, "why": self.why}


@dataclass(frozen=True)
class UndoPlan:
    """What undoing ``record`` takes: ``changes`` to make (against the texts now), or,
    when ``refused`` is not empty, nothing at all."""

    record: TaskRecord
    changes: tuple[ProposedChange, ...]
    refused: tuple[Refused, ...]

    def proposal(self) -> Proposal:
        """The undo as a proposal, for the front ends' writers and edit builders."""
        end = RunEnd(Ending.FINISHED, f"undo of {self.record.task!r}")
        return Proposal(self.changes, (), end, Usage(), 0, None)


def plan_undo(record: TaskRecord, current: Current) -> UndoPlan:
    """The change that takes ``record`` back from the texts ``current`` gives.

    Each file's change is reversed (after → before) and landed like a
    proposal: unchanged since, it goes back whole; changed by the person, the
    task's hunks are taken out of their text, theirs kept; a clash with their
    lines, a file they deleted or made again, refuses the whole undo.
    """
    label = f"undo: {record.task}"[:200]
    reverse = tuple(_reversed(f, label) for f in record.files)
    end = RunEnd(Ending.FINISHED, "")
    landed, landings = land(Proposal(reverse, (), end, Usage(), 0, None), current)
    refused: list[Refused] = []
    for landing, change in zip(landings, reverse, strict=True):
        if landing.conflicts:
            lines = ", ".join(str(c.line) for c in landing.conflicts)
            refused.append(
                Refused(
                    change.source or change.path,
                    f"you changed line(s) {lines} since, where the task had written",
                )
            )
        elif landing.ground == Ground.MOVED_ON:
            refused.append(Refused(landing.path, _moved_on(change, landing.why)))
    if refused:
        return UndoPlan(record, (), tuple(refused))
    return UndoPlan(record, landed.changes, ())


def _reversed(change: FileChange, label: str) -> ProposedChange:
    if change.source is not None:  # moved back, its text back too
        return ProposedChange(change.source, change.after, change.before, (label,), change.path)
    return ProposedChange(change.path, change.after, change.before, (label,))


def _moved_on(change: ProposedChange, why: str) -> str:
    if change.before is None:  # the task deleted it
        return f"{why}; the file the task deleted exists again"
    if change.after is None:  # the task created it
        return f"{why}; the file the task created was changed since, so it is not deleted"
    return why


class History:
    """The records of one workspace's accepted tasks."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def of(cls, root: Path, state: Path | None = None) -> History:
        """The history of the workspace at ``root`` (in the person's state folder)."""
        if state is None:
            state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
        resolved = str(root.resolve())
        digest = hashlib.sha256(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        name = f"{Path(resolved).name or 'root'}-{digest}"
        return cls(state / "surehand" / "history" / name)

    def record(self, task: str, files: Sequence[FileChange], *, front: str) -> TaskRecord | None:
        """Keep what a landed task did; None when it changed nothing or is too large to
        keep (``MAX_TASK_BYTES``)."""
        kept = tuple(f for f in files if f.before != f.after or f.source is not None)
        if not kept:
            return None
        stamp = time.time()
        moment = datetime.fromtimestamp(stamp, UTC).strftime("%Y%m%d-%H%M%S-%f")
        record = TaskRecord(f"{moment}-{secrets.token_hex(3)}", task, stamp, front, kept)
        data = json.dumps(_stored(record), ensure_ascii=False).encode("utf-8", "surrogatepass")
        if len(data) > MAX_TASK_BYTES:
            return None
        with self._locked():
            _write_atomically(self.folder / f"{record.id}.json", data)
            self._prune()
        return record

    def tasks(self) -> list[TaskRecord]:
        """Every record kept, newest first (unreadable ones skipped)."""
        records = []
        for path in self._files():
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                records.append(_loaded(json.loads(path.read_bytes())))
        return sorted(records, key=lambda r: (r.when, r.id), reverse=True)

    def last(self) -> TaskRecord | None:
        """The newest task not yet undone: the one an undo takes back."""
        return next((r for r in self.tasks() if not r.undone), None)

    def mark_undone(self, record: TaskRecord) -> None:
        with self._locked():
            path = self.folder / f"{record.id}.json"
            if path.exists():
                data = json.dumps(_stored(replace(record, undone=True)), ensure_ascii=False)
                _write_atomically(path, data.encode("utf-8", "surrogatepass"))

    def _files(self) -> list[Path]:
        if not self.folder.is_dir():
            return []
        return [p for p in self.folder.glob("*.json") if p.is_file()]

    def _prune(self) -> None:
        """Keep the newest ``MAX_TASKS`` records younger than ``MAX_AGE``, ``MAX_BYTES``
        in all (the ids begin with their time, so their names sort by age)."""
        files = sorted(self._files(), key=lambda p: p.name, reverse=True)
        now = time.time()
        total = 0
        for index, path in enumerate(files):
            try:
                size, modified = path.stat().st_size, path.stat().st_mtime
            except OSError:
                continue
            total += size
            if index >= MAX_TASKS or now - modified > MAX_AGE or total > MAX_BYTES:
                path.unlink(missing_ok=True)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """One writer at a time across processes (the terminal and the server)."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with (self.folder / ".lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


def _stored(record: TaskRecord) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "id": record.id,
        "task": record.task,
        "when": record.when,
        "front": record.front,
        "undone": record.undone,
        "files": [
            {"path": f.path, "before": f.before, "after": f.after, "source": f.source}
            for f in record.files
        ],
    }


def _loaded(data: dict[str, Any]) -> TaskRecord:
    if data["format"] != FORMAT:
        raise ValueError("another format")
    files = tuple(
        FileChange(str(f["path"]), f["before"], f["after"], f.get("source")) for f in data["files"]
    )
    return TaskRecord(
        str(data["id"]),
        str(data["task"]),
        float(data["when"]),
        str(data["front"]),
        files,
        bool(data["undone"]),
    )


def _write_atomically(path: Path, data: bytes) -> None:
    descriptor, name = tempfile.mkstemp(prefix=".record.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        Path(name).replace(path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def what_landed(change: ProposedChange, current: Current) -> FileChange | None:
    """What a sent ``change`` (hunks of the text it was landed onto) did, read from the
    texts now; None when nothing of it happened.

    The text after is the text before with exactly the hunks the text now holds,
    so a person's typing since (during the review, or after) is not taken for
    the task's: an undo takes the task's hunks out around it.
    """
    operation = operation_of(change)
    if operation == "delete":
        return None if current(change.path) is not None else _file(change, change.after)
    now = current(change.path)
    if now is None or (change.source is not None and current(change.source) is not None):
        return None  # not created, not moved
    before = change.before or ""
    choice = decided(before, change.hunks, now)
    if choice is None:  # typed in since: each hunk on its own
        choice = [_holds(before, hunk, now) for hunk in change.hunks]
    accepted = [hunk for hunk, taken in zip(change.hunks, choice, strict=True) if taken]
    after = apply(before, accepted)
    if operation == "edit" and after == before:
        return None
    return _file(change, after)


def _file(change: ProposedChange, after: str | None) -> FileChange:
    return FileChange(change.path, change.before, after, change.source)


def _holds(before: str, hunk: Hunk, now: str) -> bool:
    """Whether ``now`` holds ``hunk`` where the rest of it may have moved on."""
    moved = rebase(before, (hunk,), now)
    return not moved.conflicts and moved.applied == 1 and not moved.hunks


def changes_of(proposal: Proposal, current: Current) -> list[FileChange]:
    """What each change of a landed ``proposal`` did (``what_landed``)."""
    return [f for c in proposal.changes if (f := what_landed(c, current)) is not None]
