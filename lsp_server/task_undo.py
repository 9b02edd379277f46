"""The editor's side of taking a whole task back (``surehand.undoTask``, ``surehand.history``).

When a review ends, what each sent change did is recorded (``agent.staging.history``:
the hunks the texts hold, never the person's typing). The undo of the newest
task is planned against the texts as they are (buffers, else the disk) and
made where each file is: a file the editor holds open, and a file operation
the client can do itself, through ``workspace/applyEdit`` (so the editor's
undo stays coherent); any other file on disk, only after the editor took its
part. The texts are read back afterwards: a task is marked undone only when
every file is as the plan says.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lsprotocol import types

from agent.staging.history import FileChange, History, TaskRecord, UndoPlan, plan_undo, what_landed
from agent.staging.landed import operation_of
from agent.staging.proposal import ProposedChange
from editing.disk.workdir import Workdir
from editing.errors import InvalidRequest
from editing.visible import visible

from . import workspace_edit
from .capabilities import ClientAbilities
from .documents import BufferSource

log = logging.getLogger(__name__)

UNDO_TASK = "surehand.undoTask"
HISTORY = "surehand.history"
SETTLE_SECONDS = 2.0  # for the editor's didChange after it applied the undo
MAX_TITLE = 60  # characters of the task in a code action's title

Apply = Callable[[types.WorkspaceEdit, str], Awaitable[bool | None]]
"""Sends an edit (file operations first): the client's answer, None when none came."""
Settle = Callable[[float], Awaitable[bool]]


@dataclass
class TaskUndo:
    source: BufferSource
    abilities: Callable[[], ClientAbilities]
    encoding: Callable[[], str]
    apply: Apply
    settle: Settle
    history: History
    # An undo under way: no task may start meanwhile (the rich clients apply the undo's
    # edit unreviewed while their undo request waits, so nothing else may be sent then).
    running: bool = False
    _seen: tuple[int, tuple[str, str, list[str]] | None] | None = None  # ``_newest``'s

    @classmethod
    def of(
        cls,
        source: BufferSource,
        abilities: Callable[[], ClientAbilities],
        encoding: Callable[[], str],
        apply: Apply,
        settle: Settle,
    ) -> TaskUndo:
        return cls(source, abilities, encoding, apply, settle, History.of(source.root))

    @property
    def root(self) -> Path:
        return self.source.root

    def record(
        self, task: str, sent: Iterable[ProposedChange], later: Iterable[FileChange] = ()
    ) -> TaskRecord | None:
        """Keep what the sent changes did, read from the texts now, and ``later``: the file
        operations the client makes when the person saves."""
        files = [f for c in sent if (f := what_landed(c, self.source.existing)) is not None]
        files += later
        try:
            return self.history.record(task, files, front="editor")
        except OSError:
            log.warning("the task could not be recorded for undo", exc_info=True)
            return None

    def listing(self) -> dict[str, Any]:
        return {"tasks": [r.as_json() for r in self.history.tasks()]}

    async def undo(self, task_id: str | None) -> dict[str, Any]:
        """Take back the newest task not yet undone (``task_id``, when given, must be it)."""
        self.running = True
        try:
            return await self._undo(task_id)
        finally:
            self.running = False

    async def _undo(self, task_id: str | None) -> dict[str, Any]:
        record = self.history.last()
        if record is None:
            return _nothing("No accepted task is left to undo in this workspace.")
        if task_id is not None and task_id != record.id:
            return _nothing(
                f"Tasks are undone newest first: {visible(record.title())} ({record.id}) "
                "comes first."
            )
        plan = plan_undo(record, self.source.existing)
        if plan.refused:
            files = "; ".join(f"{visible(r.path)}: {visible(r.why)}" for r in plan.refused)
            return {
                **_nothing(f"Nothing was undone: files changed since the task ({files})."),
                "refused": [r.as_json() for r in plan.refused],
            }
        if not plan.changes:
            self.history.mark_undone(record)
            return _done(record, "The files already are as they were before the task.")
        if (why := await self._make(plan)) is not None:
            return _nothing(why)
        left = [c.path for c in plan.changes if not self._holds(c)]
        for _ in range(3):
            if not left or not await self.settle(SETTLE_SECONDS):
                break
            left = [c.path for c in plan.changes if not self._holds(c)]
        if left:
            shown = ", ".join(visible(p) for p in left)
            return _nothing(f"The editor did not take all of the undo: {shown} not as planned.")
        self.history.mark_undone(record)
        return _done(record, f"Undone: {visible(record.title())}.")

    async def _make(self, plan: UndoPlan) -> str | None:
        """Make the plan's changes: the editor's part first; why not, else None."""
        abilities = self.abilities()
        in_editor, on_disk = [], []
        for change in plan.changes:
            operation = operation_of(change)
            open_now = any(
                self.source.document(p) is not None for p in (change.path, change.source) if p
            )
            if abilities.can(operation) if operation != "edit" else open_now:
                in_editor.append(change)
            else:
                on_disk.append(change)
        if in_editor:
            edit = workspace_edit.build(
                replace(plan.proposal(), changes=tuple(in_editor)),
                self.root,
                self.encoding(),
                self.source.version,
                annotate=False,
            )
            if await self.apply(edit, f"undo {visible(plan.record.title())}") is False:
                return "The editor did not apply the undo; nothing was undone."
        if on_disk:
            try:
                Workdir(self.root).write(replace(plan.proposal(), changes=tuple(on_disk)).writes())
            except (OSError, InvalidRequest) as error:
                return f"The undo could not be written: {visible(str(error))}"
        return None

    def _holds(self, change: ProposedChange) -> bool:
        if change.source is not None and self.source.existing(change.source) is not None:
            return False
        return self.source.existing(change.path) == change.after

    def code_actions(self, path: str) -> list[tuple[str, str, dict[str, Any], bool]]:
        """ "Undo the last task" on a file the newest task (not yet undone) changed."""
        newest = self._newest()
        if newest is None or path not in newest[2]:
            return []
        title = f"surehand: undo the last task ({visible(newest[1])})"
        return [(title, UNDO_TASK, {"task": newest[0]}, False)]

    def _newest(self) -> tuple[str, str, list[str]] | None:
        """The newest task not undone (id, title, paths), read again only when the record
        folder changed: code actions are asked for at every move of the cursor, and the
        records hold whole texts. Every record is written by a rename into the folder, so
        its time of change moves with each."""
        try:
            stamp = self.history.folder.stat().st_mtime_ns
        except OSError:
            return None
        if self._seen is None or self._seen[0] != stamp:
            record = self.history.last()
            newest = None if record is None else (record.id, record.title(MAX_TITLE), record.paths)
            self._seen = (stamp, newest)
        return self._seen[1]


def _nothing(summary: str) -> dict[str, Any]:
    return {"undone": None, "refused": [], "summary": summary}


def _done(record: TaskRecord, summary: str) -> dict[str, Any]:
    undone = {"id": record.id, "task": visible(record.task), "files": record.paths}
    return {"undone": undone, "refused": [], "summary": summary}
