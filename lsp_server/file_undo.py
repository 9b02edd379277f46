"""New, deleted and moved files: done on the user's accept, and undone on ``surehand.undo``.

A client that announces resource operations creates, deletes and moves
files itself (``CreateFile`` / ``DeleteFile`` / ``RenameFile``); for one
that does not, the server does it on disk when the user accepts that item,
and never before. Either way the server keeps what it needs to take the
last one back: a deleted file's text, a move's old path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from agent.staging.landed import operation_of
from agent.staging.landing import Current
from agent.staging.proposal import ProposedChange

from .capabilities import ClientAbilities
from .documents import uri_of

Apply = Callable[[types.WorkspaceEdit, str], Awaitable[bool | None]]
"""Sends an edit: the client's ``applied``, None when it did not answer in time."""


@dataclass
class FileUndo:
    root: Path
    steps: list[ProposedChange] = field(default_factory=list)

    def perform(self, change: ProposedChange) -> str:
        """Do the file operation on disk; "" when done, else why it was left alone."""
        operation = operation_of(change)
        target = self._path(change.path)
        if operation == "create":
            if target.exists():
                return f"{change.path} exists now; the new file was not written"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((change.after or "").encode("utf-8"))
        elif operation == "delete":
            if _read(target) != change.before:
                return f"{change.path} changed since; it was not deleted"
            target.unlink()
        elif operation == "rename":
            assert change.source is not None
            source = self._path(change.source)
            if target.exists() or _read(source) != change.before:
                return f"{change.source} or {change.path} changed since; nothing was moved"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((change.after or "").encode("utf-8"))
            source.unlink()
        return ""

    def remember(self, change: ProposedChange) -> None:
        self.steps.append(change)

    async def undo(
        self, apply: Apply, abilities: ClientAbilities, current: Current
    ) -> dict[str, Any]:
        """Take back the last file operation accepted in a review."""
        if not self.steps:
            return {"undone": None, "why": "nothing to undo"}
        change = self.steps[-1]
        operation = operation_of(change)
        back = _reverse(change)
        if operation_of(back) == "delete" and current(back.path) != back.before:
            return {"undone": None, "why": f"{back.path} changed since; not deleted"}
        if operation_of(back) == "rename" and current(back.path) is not None:
            return {"undone": None, "why": f"{back.path} exists again; nothing moved"}
        done = False
        if abilities.can(operation_of(back)):
            answer = await apply(self._edit(back, current), f"undo {operation} of {change.path}")
            done = bool(answer)
        else:
            done = not self.perform(back)
        if not done:
            return {"undone": None, "why": "the editor did not apply it"}
        self.steps.pop()
        return {"undone": {"operation": operation, "path": change.path, "source": change.source}}

    def _edit(self, change: ProposedChange, current: Current) -> types.WorkspaceEdit:
        uri = uri_of(self.root, change.path)
        operation = operation_of(change)
        if operation == "delete":
            return types.WorkspaceEdit(document_changes=[types.DeleteFile(uri=uri)])
        if operation == "rename":
            assert change.source is not None
            return types.WorkspaceEdit(
                document_changes=[
                    types.RenameFile(
                        old_uri=uri_of(self.root, change.source),
                        new_uri=uri,
                        options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False),
                    )
                ]
            )
        text_edit = types.TextEdit(
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=1, character=0)
            ),
            new_text=change.after or "",
        )
        return types.WorkspaceEdit(
            document_changes=[
                types.CreateFile(uri=uri),
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri),
                    edits=[text_edit],
                ),
            ]
        )

    def _path(self, relative: str) -> Path:
        path = (self.root / relative).resolve()
        path.relative_to(self.root.resolve())  # raises for a path out of the workspace
        return path


def _reverse(change: ProposedChange) -> ProposedChange:
    """The operation that takes ``change`` back (a move back keeps the text as it is)."""
    operation = operation_of(change)
    if operation == "create":
        return dataclasses.replace(change, before=change.after, after=None, hunks=())
    if operation == "delete":
        return dataclasses.replace(change, before=None, after=change.before, hunks=())
    assert change.source is not None
    return ProposedChange(
        change.source, change.after, change.after, change.descriptions, change.path
    )


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (FileNotFoundError, IsADirectoryError, UnicodeDecodeError):
        return None
