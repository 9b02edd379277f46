"""The non-modal review: a proposal as diagnostics and code actions, decided item by item.

For clients without a surehand front end (docs/review.md). ``open`` publishes
each item of a ``HunkReview``; the ``surehand.review.*`` commands (which the
code actions carry) accept or reject them. Accepting a hunk sends exactly
that hunk through ``workspace/applyEdit``, versioned against the buffer as
it is at that moment; whether it landed is read from the texts the client
reports (``on_document``), never from a wait, and ``applied: false`` turns
it down. A file is created, deleted or moved only when its own item is
accepted: through the client's resource operations where it announces
them, else by the server on that accept; what a delete or move needs to be
undone is kept (``undo``). Command approvals wait here too, shown like a
hunk, so that nothing ever asks in a way that takes the user's typing.
When no item is left, ``finish`` gets the outcome.

Its size: the non-modal review's state (its items, their diagnostics and
code actions, the decisions) is one object every handler shares; its
rendering is the next part to move out.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

from agent.staging.landed import judge, operation_of
from agent.staging.review import FileStatus, Review
from agent.tools.context import Approval as Verdict
from agent.tools.context import CommandRequest
from editing.visible import visible, visible_lines

from . import code_actions, positions, workspace_edit
from .approvals import Approvals, Waiting
from .capabilities import ClientAbilities
from .diagnostics import (
    ELSEWHERE,
    SOURCE,
    approval_diagnostic,
    elsewhere_diagnostic,
    item_diagnostic,
)
from .documents import BufferSource, relative_of, uri_of
from .file_undo import FileUndo
from .hunk_review import HunkReview, Item, Kind, State

log = logging.getLogger(__name__)

BUFFER_GRACE = 1.0  # seconds an editor has to close the buffer of a file it deleted or moved
APPLY_WAIT = 120.0  # seconds for the client's answer to an edit (a person may be asked first)


@dataclass
class DiagnosticReview:
    server: LanguageServer
    source: BufferSource
    abilities: Callable[[], ClientAbilities]
    review: HunkReview | None = None
    anchor: str | None = None  # the file the task is about: where new files are shown
    finish: Callable[[Review], None] | None = None
    approvals: Approvals = field(default_factory=Approvals)
    undo: FileUndo | None = None
    _sent: set[str] = field(default_factory=set)  # file operations sent, not seen landed yet
    _published: set[str] = field(default_factory=set)
    _told: list[str] = field(default_factory=list)  # warnings to show once republished
    _undo_from = 0  # the undo steps before the review under way (not offered as actions)
    _shows: set[asyncio.Future[None]] = field(default_factory=set)  # showDocument under way
    _diffs: Path | None = None

    def __post_init__(self) -> None:
        self.undo = FileUndo(self.source.root)

    @property
    def root(self) -> Path:
        return self.source.root

    # -- the review's life -------------------------------------------------------------

    def open(
        self, review: HunkReview, anchor: str | None, finish: Callable[[Review], None]
    ) -> None:
        self.review, self.anchor, self.finish = review, anchor, finish
        assert self.undo is not None
        self._undo_from = len(self.undo.steps)  # only this review's operations are offered
        self._sent.clear()
        self._settle()

    def on_document(self, uri: str) -> None:
        """A document opened, changed or closed: follow it (called for every change)."""
        if self.review is None:
            return
        path = relative_of(self.root, uri)
        if path is not None:
            self.review.update(path, self.source.current(path))
        self._settle()

    def end(self) -> bool:
        """Reject whatever is still open and end the review (cancel, reset); whether one was."""
        if self.review is None:
            return False
        for item in self.review.open_items():
            self.review.decide(item, State.REJECTED)
        self._settle()
        return True

    def drop(self) -> None:
        """Forget the review without an outcome (the server goes)."""
        self.review = None
        self.deny_all()
        if self._diffs is not None:
            shutil.rmtree(self._diffs, ignore_errors=True)
            self._diffs = None

    def _settle(self) -> None:
        """Judge the file operations sent, republish, and finish when nothing is left."""
        review = self.review
        if review is not None:
            for item_id in list(self._sent):
                item = review.get(item_id)
                if item is None or not item.state.open:
                    self._sent.discard(item_id)
                    continue
                if judge(item.change, self.source.existing).status == FileStatus.APPLIED:
                    self._accepted_operation(item)
        self.publish()
        while self._told:  # after the diagnostics: an editor that echoes the one under the
            # cursor when they come (Vim's ALE) would write over a message sent before them
            self.server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=self._told.pop(0))
            )
        if review is not None and review.done:
            self.review = None
            if self.finish is not None:
                self.finish(review.report())

    # -- decisions -----------------------------------------------------------------------

    async def accept(self, argument: dict[str, Any]) -> dict[str, Any]:
        if (waiting := self._approval(argument)) is not None:
            always = bool(argument.get("always")) and waiting.approval.may_always
            return self.approvals.answer(waiting, Verdict.ALWAYS if always else Verdict.ONCE)
        item = self._pick(argument)
        if item is None:
            return self._no_item(argument)
        if item.state is not State.PENDING:
            return {"id": item.id, "state": item.state.value, "why": "only rejectable"}
        if item.kind is Kind.HUNK:
            await self._send_hunks([item])
        else:
            await self._send_operation(item)
        return self._state(item)

    def reject(self, argument: dict[str, Any]) -> dict[str, Any]:
        if (waiting := self._approval(argument)) is not None:
            return self.approvals.answer(waiting, Verdict.DENY)
        item = self._pick(argument)
        if item is None or self.review is None:
            return self._no_item(argument)
        self.review.decide(item, State.REJECTED)
        result = self._state(item)
        self._settle()
        return result

    async def accept_all(self, argument: dict[str, Any]) -> dict[str, Any]:
        review = self.review
        if review is None:
            return self._no_item(argument)
        paths = self._paths(argument)
        items = [i for i in review.open_items() if self._in(i, paths)]
        hunks_by_path: dict[str, list[Item]] = {}
        skipped = [i for i in items if i.state is State.PENDING and i.governs]
        for item in items:
            if item.state is not State.PENDING or item.governs:
                continue
            if item.kind is Kind.HUNK:
                hunks_by_path.setdefault(item.path, []).append(item)
            else:
                await self._send_operation(item)
        for hunks in hunks_by_path.values():
            await self._send_hunks(hunks)
        if not skipped:
            return self.progress()
        names = ", ".join(sorted({visible(i.path) for i in skipped}))
        why = (
            f"Not accepted by accept-all: {names} changes how tools run; "
            "accept each such change on its own (its own code action)."
        )
        self.server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=f"surehand: {why}")
        )
        return {
            **self.progress(),
            "skipped": [
                {"id": i.id, "path": i.path, "governs": i.governs}
                for i in skipped
                if i.state is State.PENDING
            ],
            "why": why,
        }

    def reject_all(self, argument: dict[str, Any]) -> dict[str, Any]:
        review = self.review
        if review is None:
            return self._no_item(argument)
        paths = self._paths(argument)
        for item in review.open_items():
            if self._in(item, paths):
                review.decide(item, State.REJECTED)
        result = self.progress()
        self._settle()
        return result

    async def next(self, argument: dict[str, Any]) -> dict[str, Any]:
        """The next open item after the given place (``uri``, ``line``), shown when the
        client can show documents."""
        review = self.review
        if review is None or not (items := review.open_items()):
            return {"id": None, "remaining": 0}
        here = relative_of(self.root, str(argument.get("uri", ""))) if argument.get("uri") else None
        line = int(argument.get("line", -1)) + 1
        ordered = sorted(items, key=lambda i: (self._shown(i), i.line))
        after = [i for i in ordered if (self._shown(i), i.line) > (here or "", line)]
        item = (after or ordered)[0]
        diagnostic = self._diagnostic(item)
        uri = uri_of(self.root, self._shown(item))
        if self.abilities().show_document:
            await self.server.window_show_document_async(
                types.ShowDocumentParams(uri=uri, take_focus=True, selection=diagnostic.range)
            )
        return {
            "id": item.id,
            "uri": uri,
            "range": _plain_range(diagnostic.range),
            "message": diagnostic.message,
            "remaining": len(items),
        }

    async def show_diff(self, argument: dict[str, Any]) -> dict[str, Any]:
        """The item's file change as a read-only diff document beside the user's code."""
        item = self._pick(argument)
        if item is None:
            return self._no_item(argument)
        if self._diffs is None:  # private (mode 0700, a name no one can guess)
            self._diffs = Path(tempfile.mkdtemp(prefix="surehand-diff-"))
        diff = self._diffs / f"{item.id}.diff"
        diff.unlink(missing_ok=True)
        shown = visible_lines(item.change.diff())  # what the bytes are, never interpreted
        diff.write_text(shown, encoding="utf-8")
        diff.chmod(0o444)
        uri = from_fs_path(str(diff)) or ""
        if not self.abilities().show_document:
            return {"id": item.id, "diff": shown}
        await self.server.window_show_document_async(
            types.ShowDocumentParams(uri=uri, take_focus=False)
        )
        return {"id": item.id, "shown": uri}

    async def undo_last(self) -> dict[str, Any]:
        assert self.undo is not None
        return await self.undo.undo(self.apply_in_steps, self.abilities(), self.source.existing)

    # -- approvals -----------------------------------------------------------------------

    async def approve(self, request: CommandRequest, uri: str | None, line: int = 0) -> Verdict:
        """Wait for the user's answer to ``request``, shown at ``line`` of ``uri``'s file
        (the task's file and cursor; else line 1 of any open file) and said once in a
        ``window/showMessage``; never a question that takes typed keys."""
        path = relative_of(self.root, uri) if uri else None
        if path is not None and self.source.current(path) is None:
            path = None  # no such file to show it on
        if path is None:
            line = 0
            path = next(iter(self.source.paths()), None)
        if path is None:
            self.server.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning,
                    message=f"surehand wanted to run `{visible(request.command)}` but no file "
                    "is open to ask on: denied. Open a file of the project and ask again.",
                )
            )
            return Verdict.DENY
        return await self.approvals.wait(request, path, self.publish, line, self._tell_waiting)

    def _tell_waiting(self, waiting: Waiting) -> None:
        """Say what waits, where, and how to answer: once, without blocking anything."""
        where = f"{visible(waiting.path)}:{self._approval_line(waiting) + 1}"
        self.server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message="surehand waits for your answer: run "
                f"`{visible(waiting.approval.command)}`? See {where}: code action "
                '"surehand: Allow once" or "surehand: Deny" there '
                "(the task waits until you answer).",
            )
        )

    def _approval_line(self, waiting: Waiting) -> int:
        """The line an approval is shown at: its own, kept inside the file's text now."""
        text = self.source.current(waiting.path) or ""
        return min(waiting.line, len(positions.line_starts(text)) - 1)

    def deny_all(self) -> None:
        self.approvals.deny_all()

    # -- what the client sees --------------------------------------------------------------

    def code_actions(
        self, params: types.CodeActionParams
    ) -> list[types.CodeAction | types.Command]:
        uri = params.text_document.uri
        path = relative_of(self.root, uri)
        if path is None:
            return []
        first, last = params.range.start.line, params.range.end.line
        mine = [d for d in params.context.diagnostics if d.source == SOURCE]
        wanted = {str(d.code) for d in mine}
        actions: list[tuple[str, str, dict[str, Any], bool]] = []
        for waiting in self.approvals:
            line = self._approval_line(waiting)
            if waiting.path == path and (
                waiting.approval.id in wanted or first <= line <= max(last, first)
            ):
                actions += code_actions.approval_actions(waiting.approval)
        if self.review is not None and (ELSEWHERE in wanted or first == 0):
            actions += self._elsewhere_actions(path)
        actions += self._undo_actions(path, first)
        if self.review is not None:
            here = [
                item
                for item in self.review.open_items()
                if self._shown(item) == path
                and (item.id in wanted or _overlaps(self._diagnostic(item).range, first, last))
            ]
            open_items = self.review.open_items()
            files = {self._shown(i) for i in open_items}
            actions += code_actions.review_actions(
                here,
                uri,
                show_diff=self.abilities().show_document,
                more_files=len(files) > 1,
                file_pending=any(
                    i.state is State.PENDING and self._shown(i) == path and not i.governs
                    for i in open_items
                ),
            )
        return code_actions.as_lsp(actions, mine, literals=self.abilities().code_action_literals)

    def _undo_actions(self, path: str, line: int) -> list[tuple[str, str, dict[str, Any], bool]]:
        """Undo of the last file operation accepted in the last review: on its file, and on
        the first line of any other (until the next task)."""
        assert self.undo is not None
        if len(self.undo.steps) <= self._undo_from:
            return []
        change = self.undo.steps[-1]
        if line != 0 and path != change.path:
            return []
        target, source = visible(change.path), visible(change.source or "")
        words = {
            "create": f"creating {target}",
            "delete": f"deleting {target}",
            "rename": f"moving {source} to {target}",
        }[operation_of(change)]
        return [(f"surehand: Undo {words}", code_actions.UNDO, {}, False)]

    def _elsewhere_actions(self, path: str) -> list[tuple[str, str, dict[str, Any], bool]]:
        """Show the next change, accept all, reject all: for changes in files not open."""
        assert self.review is not None
        open_paths = set(self.source.paths())
        if all(self._shown(i) in open_paths for i in self.review.open_items()):
            return []
        uri = uri_of(self.root, path)
        return [
            ("surehand: Show the next change", code_actions.NEXT, {"uri": uri, "line": 0}, False),
            ("surehand: Accept all changes", code_actions.ACCEPT_ALL, {}, False),
            ("surehand: Reject all changes", code_actions.REJECT_ALL, {}, False),
        ]

    def publish(self) -> None:
        by_uri: dict[str, list[types.Diagnostic]] = {}
        if self.review is not None:
            for item in self.review.open_items():
                uri = uri_of(self.root, self._shown(item))
                by_uri.setdefault(uri, []).append(self._diagnostic(item))
        for waiting in self.approvals:
            text = self.source.current(waiting.path) or ""
            diagnostic = approval_diagnostic(
                waiting.approval.id,
                waiting.question,
                text,
                self.source.documents.encoding,
                self._approval_line(waiting),
            )
            by_uri.setdefault(uri_of(self.root, waiting.path), []).append(diagnostic)
        self._elsewhere(by_uri)
        for uri in self._published | set(by_uri):
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=by_uri.get(uri, []))
            )
        self._published = set(by_uri)

    def _elsewhere(self, by_uri: dict[str, list[types.Diagnostic]]) -> None:
        """Add to every open file of the workspace what waits where the person cannot see
        it: changes in files that are not open, a command's question on another file."""
        open_paths = set(self.source.paths())
        counts: dict[str, int] = {}
        for item in self.review.open_items() if self.review is not None else []:
            if (shown := self._shown(item)) not in open_paths:
                counts[shown] = counts.get(shown, 0) + 1
        for path in open_paths:
            waiting = [
                f"{w.path}:{self._approval_line(w) + 1}" for w in self.approvals if w.path != path
            ]
            if counts or waiting:
                by_uri.setdefault(uri_of(self.root, path), []).append(
                    elsewhere_diagnostic(counts, waiting)
                )

    def progress(self) -> dict[str, Any]:
        review = self.review
        if review is None:
            return {"review": None, "remaining": 0}
        return {
            "review": review.id,
            "remaining": len(review.open_items()),
            "items": [
                {
                    "id": i.id,
                    "kind": i.kind.value,
                    "path": i.path,
                    "label": i.label,
                    "line": i.line,
                    "state": i.state.value,
                }
                for i in review.items
            ],
        }

    # -- sending ---------------------------------------------------------------------------

    async def _send_hunks(self, items: list[Item]) -> None:
        """Send exactly these hunks of one file, on its text as it is now."""
        review = self.review
        assert review is not None
        path = items[0].path
        review.update(path, self.source.current(path))  # follow anything not seen yet
        items = [i for i in items if i.state is State.PENDING]
        if not items:
            self._settle()
            return
        before = review.texts[path]
        hunks = tuple(sorted((i.hunk for i in items if i.hunk), key=lambda h: h.start))
        change = dataclasses.replace(
            items[0].change, before=before, after=review.edit_for(items), hunks=hunks
        )
        review.expect(items)
        applied = await self.apply_edit(self._edit(change), items[0].label)
        if applied is False:
            for item in items:  # the user said no in the client's own question
                review.decide(item, State.REJECTED)
        else:
            review.update(path, self.source.current(path))
        self._settle()

    async def _send_operation(self, item: Item) -> None:
        review = self.review
        assert review is not None
        kind = item.kind.value
        if (why := self._unsaved(item)) is not None:
            review.decide(item, State.REJECTED)
            self.server.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"surehand: {visible(why)}"
                )
            )
        elif self.abilities().can(kind):
            if await self.apply_in_steps(self._edit(item.change), item.label) is False:
                review.decide(item, State.REJECTED)
            else:
                self._sent.add(item.id)
        else:
            assert self.undo is not None
            why = self.undo.perform(item.change)
            if why:
                review.decide(item, State.REJECTED)
                self.server.window_show_message(
                    types.ShowMessageParams(
                        type=types.MessageType.Warning, message=f"surehand: {visible(why)}"
                    )
                )
            else:
                self._sent.add(item.id)
        self._settle()

    def _unsaved(self, item: Item) -> str | None:
        """Why a delete or move may not go ahead: the file's buffer holds typing that is
        not on disk, which the operation would lose (None when it may)."""
        source = item.change.source if item.kind is Kind.RENAME else item.path
        if item.kind not in (Kind.DELETE, Kind.RENAME) or source is None:
            return None
        buffer = self.source.document(source)
        if buffer is None or buffer.text == self.source.on_disk(source):
            return None
        what = "deleted" if item.kind is Kind.DELETE else "moved"
        return (
            f"{source} has changes in the editor that are not saved; it was not {what}. "
            "Save or revert them, then ask again."
        )

    def _accepted_operation(self, item: Item) -> None:
        """A file operation is on disk: accepted. A buffer the editor still shows of a file
        that is gone is the person's to close; they are told, and shown the new file."""
        assert self.review is not None and self.undo is not None
        self.review.decide(item, State.ACCEPTED)
        self._sent.discard(item.id)
        self.undo.remember(item.change)
        gone = item.change.source if item.kind is Kind.RENAME else item.path
        if item.kind in (Kind.DELETE, Kind.RENAME) and gone:
            if item.kind is Kind.DELETE:
                words = f"{gone} was deleted"
            else:
                words = f"{gone} was moved to {item.path}"
            warning = (
                f"surehand: {visible(words)}; the editor still has a buffer of "
                f"{visible(gone)}: close it without saving (saving it would write the "
                "old file back)."
            )
            if not self.abilities().can(item.kind.value):  # the server did it: buffers stay
                if self.source.document(gone):
                    self._told.append(warning)
            else:  # the editor did it, and may close the buffer a moment after its answer
                asyncio.get_running_loop().call_later(
                    BUFFER_GRACE, self._warn_if_open, gone, warning
                )
        if item.kind in (Kind.CREATE, Kind.RENAME) and self.abilities().show_document:
            self._show_later(item.path)

    def _warn_if_open(self, gone: str, warning: str) -> None:
        """Say ``warning`` if the editor still has a buffer of ``gone``, a file not on disk."""
        if self.source.document(gone) is not None and self.source.on_disk(gone) is None:
            self.server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=warning)
            )

    def _show_later(self, relative: str) -> None:
        """Open ``relative`` in the editor, without taking the focus (``window/showDocument``)."""

        async def show() -> None:
            try:
                await self.server.window_show_document_async(
                    types.ShowDocumentParams(uri=uri_of(self.root, relative), take_focus=False)
                )
            except Exception:  # a client that fails it shows nothing; the review goes on
                log.warning("window/showDocument failed", exc_info=True)

        self._shows.add(task := asyncio.ensure_future(show()))
        task.add_done_callback(self._shows.discard)

    def _edit(self, change: Any) -> types.WorkspaceEdit:
        proposal = dataclasses.replace(self.review.proposal, changes=(change,))  # type: ignore[union-attr]
        edit = workspace_edit.build(
            proposal, self.root, self.source.documents.encoding, self.source.version, annotate=False
        )
        if self.abilities().document_changes:
            return edit
        changes: dict[str, list[types.TextEdit]] = {}
        for document in edit.document_changes or []:
            if isinstance(document, types.TextDocumentEdit):
                changes.setdefault(document.text_document.uri, []).extend(document.edits)  # type: ignore[arg-type]
        return types.WorkspaceEdit(changes=changes)

    async def apply_in_steps(self, edit: types.WorkspaceEdit, label: str) -> bool | None:
        """Send a file item's edit: its file operations, then its text (``in_steps``); the
        first answer that is not yes."""
        answer: bool | None = True
        for step in workspace_edit.in_steps(edit):
            answer = await self.apply_edit(step, label)
            if answer is not True:
                return answer
        return answer

    async def apply_edit(self, edit: types.WorkspaceEdit, label: str) -> bool | None:
        """Send the edit; the client's ``applied`` (False when it failed or said no), None
        when it gave no answer in ``APPLY_WAIT`` seconds (Vim's ALE never answers, yet
        applies it): then only the texts it reports tell whether it landed."""
        params = types.ApplyWorkspaceEditParams(edit=edit, label=visible(f"surehand: {label}"[:80]))
        try:
            result = await asyncio.wait_for(
                self.server.workspace_apply_edit_async(params), APPLY_WAIT
            )
        except TimeoutError:
            log.warning("workspace/applyEdit: no answer in %s s", APPLY_WAIT)
            return None
        except Exception:  # a client that fails the request applied nothing
            log.warning("workspace/applyEdit failed", exc_info=True)
            return False
        return bool(result and result.applied)

    # -- helpers ---------------------------------------------------------------------------

    def _shown(self, item: Item) -> str:
        """The file an item is shown on: a new file's on the file the task is about."""
        if item.kind is Kind.CREATE and self.anchor is not None:
            return self.anchor
        return item.shown_on

    def _diagnostic(self, item: Item) -> types.Diagnostic:
        path = self._shown(item)
        text = self.review.texts.get(path) if self.review else None
        if text is None or item.kind is not Kind.HUNK:
            text = self.source.current(path) or ""
        return item_diagnostic(item, text, self.source.documents.encoding)

    def _in(self, item: Item, paths: set[str]) -> bool:
        """Whether ``item`` is of, or shown on, one of ``paths``."""
        return bool({self._shown(item), item.shown_on, item.path} & paths)

    def _approval(self, argument: dict[str, Any]) -> Waiting | None:
        return self.approvals.find(argument, only_these=self.review is None)

    def _pick(self, argument: dict[str, Any]) -> Item | None:
        """The item by ``id``, else the one at ``uri`` / ``line``, else the first open one."""
        review = self.review
        if review is None:
            return None
        if (item_id := argument.get("id")) is not None:
            item = review.get(str(item_id))
            if item is not None and (uri := argument.get("uri")):  # both must name it
                path = relative_of(self.root, str(uri))
                if path not in (self._shown(item), item.shown_on, item.path):
                    return None
            return item
        items = review.open_items()
        if uri := argument.get("uri"):
            path = relative_of(self.root, str(uri))
            items = [i for i in items if self._shown(i) == path]
            if "line" in argument:
                line = int(argument["line"])
                at = [i for i in items if _overlaps(self._diagnostic(i).range, line, line)]
                items = at or items
        return items[0] if items else None

    def _paths(self, argument: dict[str, Any]) -> set[str]:
        review = self.review
        assert review is not None
        if uri := argument.get("uri"):
            path = relative_of(self.root, str(uri))
            return {path} if path else set()
        return {self._shown(i) for i in review.items} | {i.path for i in review.items}

    def _state(self, item: Item) -> dict[str, Any]:
        return {
            "id": item.id,
            "state": item.state.value,
            "remaining": len(self.review.open_items()) if self.review else 0,
        }

    def _no_item(self, argument: dict[str, Any]) -> dict[str, Any]:
        what = f"no open review item {argument.get('id')}" if argument.get("id") else "no review"
        return {"id": argument.get("id"), "state": None, "why": what}


def _overlaps(text_range: types.Range, first: int, last: int) -> bool:
    return text_range.start.line <= last and first <= text_range.end.line


def _plain_range(text_range: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": text_range.start.line, "character": text_range.start.character},
        "end": {"line": text_range.end.line, "character": text_range.end.character},
    }
