"""What the server does for each request, between pygls and the agent.

Holds the settings, the agent session (one conversation per workspace),
the open documents and the running asks. The handlers in ``server`` call
in here; everything that talks to the agent or builds protocol values
lives here or in the modules it calls.

Its size: ``Controller`` is the one object every handler calls. The review
(``hunk_review``), the tests' checks (``test_checks``), the non-modal review
and the tasks are modules of their own; the ask's lifecycle, undo, approvals
and progress still share its session and review here, and are the next to
move out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from agent.checks.verdicts import headline, summary
from agent.config.config_file import effective_settings, without_defaults
from agent.config.project_root import why_not_a_project
from agent.config.settings import Settings
from agent.events import ToolStarted
from agent.execution.command_layout import resource_limits
from agent.execution.sandbox import Sandbox, choose
from agent.loop import comment_task
from agent.loop.comment_task import CommentTask
from agent.models.model import ModelError
from agent.staging.history import FileChange
from agent.staging.landing import land
from agent.staging.proposal import Proposal, ProposedChange
from agent.staging.review import Review
from agent.tools.context import Approval, CommandRequest
from editing.visible import visible, visible_lines

from . import code_actions, comment_actions, messages, progress, review, workspace_edit
from .ask import Ask, task_text
from .capabilities import ClientAbilities
from .diagnostic_review import DiagnosticReview
from .documents import BufferSource, Documents, relative_of
from .hunk_review import HunkReview
from .task_undo import TaskUndo
from .tasks import TaskRegistry
from .test_checks import TestChecks, as_json

if TYPE_CHECKING:
    from agent.loop.session import Session
    from agent.models.model import ModelClient

log = logging.getLogger(__name__)

ANSWER_FIRST = 3  # loop turns a task answered at once waits for its answer to be written
CONFIGURATION_WAIT = 5.0  # seconds an early ask waits for the client's settings
ALLOW_ONCE, ALLOW_ALWAYS, DENY = "Allow once", "Always allow this command", "Deny"
APPLY, SHOW_DIFF, DISCARD = "Apply", "Show diff", "Discard"
OUTCOME = "surehand/outcome"  # a task's outcome, once the non-modal review of it ended
CANCEL, CANCEL_TITLE = "surehand.cancel", "surehand: Cancel the running task"


WORKSPACE_SETTINGS = "workspaceSettings"
"""The key of the settings an editor took from the workspace's own files."""


class Controller:
    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.documents = Documents()
        self.documents.warn = self._warn_log
        self.tasks = TaskRegistry()
        self.settings = Settings()
        self.trust_project = False  # ``serve --trust-project``: the project's file is trusted
        self.root: Path | None = None
        self.source: BufferSource | None = None
        self.session: Session | None = None
        # A reset session's model client and the settings it was made for, for the next one.
        self._kept: tuple[ModelClient, Settings] | None = None
        self.configured = asyncio.Event()
        self.decisions: list[tuple[str, str, bool]] = []  # (uri, label, accepted) per hunk
        # The file operations a client makes when the person saves: each accepted one's
        # path, with its hunks' decisions in order.
        self.on_save: dict[str, list[bool]] = {}
        self._tokens = 0
        self._task_count = 0
        self._task_id = ""  # the last task started ("task-<n>"), named in its outcomes
        self._diffs: Path | None = None  # where "Show diff" writes the proposal's diff
        self.desk: DiagnosticReview | None = None  # the non-modal review (set with the root)
        self.task_undo: TaskUndo | None = None  # accepted tasks, to take back (with the root)
        self.last_outcome: dict[str, Any] | None = None
        self.checks = TestChecks(server, self.abilities)
        self._asked_about: str | None = None  # the file the running task is about
        self._asked_line = 0  # the line (0-based) of it the ask named (its cursor, range)
        self._last_about: str | None = None  # else the file a tool of the task was last on

    # -- set-up -------------------------------------------------------------------

    def initialize(self, params: types.InitializeParams, encoding: str) -> None:
        self.documents.encoding = encoding
        folders = params.workspace_folders or []
        uri = folders[0].uri if folders else params.root_uri
        path = to_fs_path(uri) if uri else params.root_path
        self.root = Path(path).resolve() if path else None
        if self.root is not None:
            self.source = BufferSource(self.documents, self.root)
            self.desk = DiagnosticReview(self.server, self.source, self.abilities)
            self.documents.listeners.append(self.desk.on_document)
            self.task_undo = TaskUndo.of(
                self.source,
                self.abilities,
                lambda: self.documents.encoding,
                self._apply_undo,
                self.documents.wait_for_change,
            )

    def configure(self, data: dict[str, Any]) -> list[str]:
        """New settings: the config files with the editor's on top; returns the problems
        with them (never raises).

        ``workspaceSettings`` (docs/protocol.md) are the editor's settings that
        came from the workspace's own files (VS Code's ``.vscode/settings.json``,
        which a repository can commit): held to an untrusted project's rules."""
        data = dict(data)
        workspace = data.pop(WORKSPACE_SETTINGS, None)
        effective = effective_settings(
            self.root,
            overrides=without_defaults(data),
            overrides_origin="editor settings",
            trust=self.trust_project,
            workspace=workspace if isinstance(workspace, dict) else None,
            workspace_origin="the workspace's editor settings",
        )
        settings = effective.settings
        if not self.configured.is_set() or settings.sandbox != self.settings.sandbox:
            self._report_sandbox(choose(settings.sandbox), settings)
        self.settings = settings
        self.documents.max_bytes = settings.max_file_bytes
        self.configured.set()
        return effective.problems

    def _report_sandbox(self, sandbox: Sandbox, settings: Settings) -> None:
        """Say once how commands will run; loudly when they will not be contained."""
        words = sandbox.describe(settings.sandbox_network, resource_limits(settings))
        self._log(f"Commands run {words}.")
        if not sandbox.contained:
            self.server.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning,
                    message=f"surehand: commands have no sandbox ({sandbox.why}); every "
                    "command will be asked first, and runs with your user's rights.",
                )
            )

    def abilities(self) -> ClientAbilities:
        return ClientAbilities.of(self.server.client_capabilities)

    @property
    def non_modal(self) -> bool:
        """Whether proposals are reviewed as diagnostics and code actions (docs/review.md)."""
        return not self.abilities().reviews_itself and self.settings.review == "diagnostics"

    @property
    def annotations_supported(self) -> bool:
        capabilities = self.server.client_capabilities
        workspace = capabilities.workspace
        edit = workspace.workspace_edit if workspace else None
        return bool(edit and edit.change_annotation_support)

    # -- commands -------------------------------------------------------------------

    async def ask(self, ask: Ask, request_id: object) -> dict[str, Any]:
        if self.root is None or self.source is None:
            return {"outcome": "error", "summary": "surehand needs a workspace folder."}
        if self.tasks.busy:
            return {"outcome": "busy", "summary": "surehand is already working on a task."}
        if self.task_undo is not None and self.task_undo.running:
            return {"outcome": "busy", "summary": "surehand is undoing a task; ask again then."}
        if (why := why_not_a_project(self.root)) is not None:
            return {"outcome": "error", "summary": why}
        if self.desk is not None and self.desk.review is not None:
            return {
                "outcome": "busy",
                "summary": "A proposal is still under review: accept or reject its hunks "
                "(surehand.review.rejectAll drops them all).",
            }
        with contextlib.suppress(TimeoutError):  # settings requested at initialized
            await asyncio.wait_for(self.configured.wait(), CONFIGURATION_WAIT)
        try:
            session = self._session()
        except ModelError as error:
            self.server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Error, message=error.message)
            )
            return {"outcome": "error", "summary": error.message}
        comments: list[CommentTask] = []
        if ask.from_comments:
            found = self._comment_tasks(ask)
            if isinstance(found, str):
                return {"outcome": "error", "summary": found}
            comments = found
        token = await self._begin_progress(ask.task)
        self._asked_about = ask.uri
        self._asked_line = ask.range.start.line if ask.range is not None else 0
        self._last_about = None
        self._task_count += 1
        task_id = self._task_id = f"task-{self._task_count}"
        waits = self.abilities().reviews_itself
        work = asyncio.ensure_future(self._work(session, ask, token, comments, after=not waits))
        # A client that waits for the answer may cancel its request to stop the task; for
        # any other the ask is answered at once, and no timeout of its can touch the task.
        self.tasks.add(work, token=token, request_id=request_id if waits else None)
        if not waits:
            work.add_done_callback(lambda done: self._ended(done, task_id))
            return {
                "outcome": "started",
                "task": task_id,
                "summary": "surehand started; its proposal will show as diagnostics with "
                f"code actions (surehand.cancel stops it). The task: {visible(ask.task[:200])}",
            }
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            return {"outcome": "cancelled", "summary": "Cancelled."}

    def _ended(self, work: asyncio.Future[dict[str, Any]], task_id: str) -> None:
        """Tell a client that was answered at once how its task went: cancelled, failed,
        under review (its end follows when the review ends) or done."""
        if work.cancelled():
            result: dict[str, Any] = {"outcome": "cancelled", "summary": "Cancelled."}
        elif (error := work.exception()) is not None:
            log.error("the task failed", exc_info=error)
            result = {"outcome": "error", "summary": visible_lines(f"surehand failed: {error}")}
        else:
            result = work.result()
            if result is self.last_outcome:  # told already, as its review ended at once
                return
        self._tell_outcome({**result, "task": task_id})

    def _comment_tasks(self, ask: Ask) -> list[CommentTask] | str:
        """The ``surehand:`` comment lines an ask from comments names, read from the
        buffer now; a message when none is left there."""
        assert self.root is not None and self.source is not None and ask.range is not None
        relative = relative_of(self.root, ask.uri) if ask.uri else None
        text = self.source.current(relative) if relative is not None else None
        tasks = (
            comment_task.find(text, ask.range.start.line, ask.range.end.line)
            if text is not None
            else []
        )
        if not tasks:
            return (
                "There is no `surehand:` comment on those lines any more: write the request "
                "as a comment of its own line (`# surehand: …`) and ask again."
            )
        return tasks

    async def _work(
        self,
        session: Session,
        ask: Ask,
        token: str | None,
        comments: list[CommentTask],
        *,
        after: bool = False,
    ) -> dict[str, Any]:
        """Run the task and propose its result. ``after``: the ask is answered at once, and
        that answer goes out before anything of the task (Emacs 28's jsonrpc leaves a
        message unread when one comes while it still waits for the answer)."""
        assert self.root is not None and self.source is not None
        if after:
            for _ in range(ANSWER_FIRST):  # the handler's end, then pygls's sending of it
                await asyncio.sleep(0)
        buffer = progress.ModelTextBuffer(self._log)

        def on_event(event: Any) -> None:
            buffer.add(event)
            self._follow(event)
            if line := progress.log_line(event):
                self._log(line)
            if (payload := progress.step_payload(event)) is not None:
                self.notify_step(payload)
            if token and (message := progress.report_for(event)):
                self.server.work_done_progress.report(
                    token, types.WorkDoneProgressReport(message=message)
                )

        relative = relative_of(self.root, ask.uri) if ask.uri is not None else None
        text = task_text(ask, self.source)
        title = ask.task
        if comments and relative is not None:
            text = comment_task.described(comments, relative)
            title = "; ".join(c.task for c in comments)
        try:
            proposal = await session.run(text, on_event=on_event)
            if comments and relative is not None and proposal.changes:
                proposal = _without_comments(session, proposal, relative, comments)
        except asyncio.CancelledError:
            buffer.flush()
            self._end_progress(token, "Cancelled.")
            # The user stopped it: its half-made changes are not proposed later.
            session.overlay.discard()
            session.tell(messages.PREVIOUS_TASK_CANCELLED)
            raise
        buffer.flush()
        self._end_progress(token, visible_lines(proposal.summary[:200]))
        self.checks.proposed(self._task_id, proposal)
        if self.non_modal:
            return self._open_review(session, proposal, ask, title)
        outcome = await self._review(session, proposal, title)
        offer = self.settings.tests_on_accepted == "offer"
        accepted: tuple[Any, ...] = ()
        try:
            accepted = await self.checks.accepted(session, self._task_id, proposal, outcome, offer)
        except asyncio.CancelledError:  # the review is over: its outcome stands, untested
            log.info("the tests on what was accepted were cancelled")
        return _result(proposal, outcome, accepted)

    def _open_review(
        self, session: Session, proposal: Proposal, ask: Ask, title: str
    ) -> dict[str, Any]:
        """Publish the proposal for the non-modal review; what the ask answers at once.

        The staged changes are dropped now: the review holds the proposal, and
        nothing of it, rejected or not, comes back in a later one."""
        assert self.desk is not None and self.source is not None and self.root is not None
        session.overlay.discard()
        self.source.forget()
        _, landings = land(proposal, self.source.current)
        hunks = HunkReview.of(proposal, landings)
        task_id = self._task_id
        done: list[dict[str, Any]] = []

        def finish(outcome: Review) -> None:
            if self.task_undo is not None:
                self.task_undo.record(title, (lg.change for lg in landings if lg.change))
            session.tell(outcome.for_model())
            session.record_review(outcome.as_json(), outcome.verdict.value)
            result = {**_result(proposal, outcome), "review": hunks.id, "task": task_id}
            done.append(result)
            if not self.checks.wanted(proposal, outcome):
                self._tell_outcome(result)
                return
            offer = self.settings.tests_on_accepted == "offer"
            check = self.checks.accepted(session, task_id, proposal, outcome, offer)
            later = asyncio.ensure_future(check)  # the accepted hunks sit unsaved in the buffers
            self.tasks.add(later, token=None, request_id=None)
            later.add_done_callback(lambda ran: self._checked(ran, result))

        anchor = relative_of(self.root, ask.uri) if ask.uri else None
        self.desk.open(hunks, anchor, finish)
        if done:  # nothing to decide (no changes, or all of it in conflict)
            return done[0]
        return {
            "outcome": "reviewing",
            "review": hunks.id,
            "summary": f"{visible_lines(proposal.summary)} Review the hunks shown as "
            "diagnostics: their code actions accept or reject each.",
            "modelSummary": visible_lines(proposal.summary),
            "ending": proposal.end.ending.value,
            "incomplete": not proposal.complete,
            **self.desk.progress(),
            "refusals": [r.as_json() for r in proposal.refusals],
            "steps": proposal.steps,
            "tokens": proposal.usage.total,
            **({"tests": as_json(proposal.tests)} if proposal.tests else {}),
        }

    def _checked(self, ran: asyncio.Future[tuple[Any, ...]], result: dict[str, Any]) -> None:
        """Tell the end of a non-modal review, with the tests on what was accepted."""
        if not ran.cancelled() and ran.exception() is None and ran.result():
            result = {**result, "testsAccepted": as_json(ran.result())}
        elif not ran.cancelled() and ran.exception() is not None:
            log.error("the tests on what was accepted failed", exc_info=ran.exception())
        self._tell_outcome(result)

    async def check_tests(self) -> dict[str, Any]:
        """``surehand.checkTests``: the last proposal's tests on what the editor holds now."""
        idle = not self.tasks.busy and not (self.desk is not None and self.desk.review)
        return await self.checks.command(self.session, self._task_id, idle)

    def _tell_outcome(self, result: dict[str, Any]) -> None:
        """Say how a task went: as ``surehand/outcome`` to a client that asked for surehand's
        notifications (it shows it its own way), else in a message every client shows."""
        outcome = result.get("outcome")
        if outcome != "reviewing":  # the end of a task, kept for surehand.status
            self.last_outcome = result
        kind = (
            types.MessageType.Error
            if outcome == "error"
            else types.MessageType.Warning
            if outcome in ("conflict", "partly_applied") or result.get("incomplete")
            else types.MessageType.Info
        )
        if self.abilities().notifications:
            self.server.protocol.notify(OUTCOME, result)
            return
        summary = str(result.get("summary", ""))
        self.server.window_show_message(
            types.ShowMessageParams(type=kind, message=f"surehand: {summary}")
        )

    def notify_step(self, payload: dict[str, Any]) -> None:
        """A ``surehand/step``, to a client that asked for surehand's notifications."""
        if self.abilities().notifications:
            self.server.protocol.notify(progress.STEP_NOTIFICATION, payload)

    async def _review(self, session: Session, proposal: Proposal, title: str) -> Review:
        assert self.root is not None and self.source is not None
        root, source = self.root, self.source
        if not proposal.changes:
            return Review.of([], proposal.summary)

        async def confirm(candidate: Proposal) -> bool:
            return self.annotations_supported or await self._confirm(candidate)

        sent: dict[str, ProposedChange] = {}  # the last change sent of each file

        async def send(candidate: Proposal) -> bool:
            sent.update((c.path, c) for c in candidate.changes)
            edit = workspace_edit.build(
                candidate,
                root,
                self.documents.encoding,
                source.version,
                annotate=self.annotations_supported,
            )
            title = "surehand (incomplete)" if proposal.incomplete else "surehand"
            try:
                result = await self.server.workspace_apply_edit_async(
                    types.ApplyWorkspaceEditParams(
                        edit=edit, label=visible(f"{title}: {proposal.summary}"[:80])
                    )
                )
            except Exception:  # a client that fails the request applied nothing
                log.warning("workspace/applyEdit failed", exc_info=True)
                return False
            return bool(result and result.applied)

        self.decisions = []
        self.on_save = {}
        client = review.Client(
            send,
            source.current,
            self.documents.wait_for_change,
            confirm,
            self.annotations_supported,
            lambda: bool(self.decisions),
        )
        try:
            outcome = await review.propose(proposal, client)
        finally:  # declined, failed or cancelled: its staged changes never come back
            session.overlay.discard()
            source.forget()
        outcome.incomplete = proposal.incomplete
        later: list[FileChange] = []
        if self.on_save:
            outcome, later = review.accepted_on_save(outcome, sent, self.on_save)
        if self.task_undo is not None:
            self.task_undo.record(title, sent.values(), later)
        session.tell(outcome.for_model())
        session.record_review(outcome.as_json(), outcome.verdict.value)
        return outcome

    def reviewed(self, params: Any) -> None:
        """Per-hunk decisions a rich client reports after its own review of a proposal."""
        hunks = _get(params, "hunks") or []
        self.decisions = [
            (str(_get(h, "uri")), str(_get(h, "label") or ""), bool(_get(h, "accepted")))
            for h in hunks
        ]
        self.on_save = {}
        root = self.root
        saved_later = {
            str(_get(h, "uri"))
            for h in hunks
            if _get(h, "operation") and _get(h, "onSave") is True and _get(h, "accepted") is True
        }
        for h in hunks:
            uri = str(_get(h, "uri"))
            path = relative_of(root, uri) if root is not None and uri in saved_later else None
            if path is not None and _get(h, "operation") is None:
                self.on_save.setdefault(path, []).append(bool(_get(h, "accepted")))
            elif path is not None:
                self.on_save.setdefault(path, [])

    async def review_command(self, name: str, arguments: Any) -> dict[str, Any]:
        """``surehand.review.*`` and ``surehand.undo``: ``[{"id"?, "uri"?, "line"?}]``."""
        names = code_actions
        argument = arguments[0] if arguments and isinstance(arguments[0], dict) else {}
        desk = self.desk
        if desk is None:
            return {"id": None, "state": None, "why": "surehand needs a workspace folder."}
        if name == names.ACCEPT:
            return await desk.accept(argument)
        if name == names.REJECT:
            return desk.reject(argument)
        if name == names.ACCEPT_ALL:
            return await desk.accept_all(argument)
        if name == names.REJECT_ALL:
            return desk.reject_all(argument)
        if name == names.NEXT:
            return await desk.next(argument)
        if name == names.SHOW_DIFF:
            return await desk.show_diff(argument)
        return await desk.undo_last()

    async def _apply_undo(self, edit: types.WorkspaceEdit, label: str) -> bool | None:
        """An undo's edit: whole to a client that reviews itself (it applies the edit's
        parts in order), else its file operations first (``in_steps``: lsp-mode 8.0)."""
        assert self.desk is not None
        if self.abilities().reviews_itself:
            return await self.desk.apply_edit(edit, label)
        return await self.desk.apply_in_steps(edit, label)

    async def undo_task(self, task_id: str | None) -> dict[str, Any]:
        """``surehand.undoTask``: never while a task runs or waits for review (a client
        applies the undo's edit unreviewed, so nothing else may be sent meanwhile)."""
        if self.task_undo is None:
            return {"undone": None, "refused": [], "summary": "surehand needs a workspace folder."}
        if self.tasks.busy or (self.desk is not None and self.desk.review is not None):
            return {
                "undone": None,
                "refused": [],
                "summary": "A task is running or under review: undo once it has ended.",
            }
        return await self.task_undo.undo(task_id)

    def review_actions(self, params: types.CodeActionParams) -> list[Any]:
        """The review's actions at the cursor; while a task runs, one that cancels it; with
        neither, on a file the last accepted task changed, one that takes that task back."""
        actions: list[Any] = self.desk.code_actions(params) if self.desk is not None else []
        root = self.root
        path = relative_of(root, params.text_document.uri) if root else None
        idle = not self.tasks.busy and not (self.desk and self.desk.review)
        if idle and path is not None and self.task_undo is not None:
            actions += code_actions.as_lsp(
                self.task_undo.code_actions(path),
                [],
                literals=self.abilities().code_action_literals,
            )
        if self.tasks.busy and root and relative_of(root, params.text_document.uri) is not None:
            cancel = types.Command(title=CANCEL_TITLE, command=CANCEL)
            literal = types.CodeAction(
                title=CANCEL_TITLE, kind=types.CodeActionKind.QuickFix, command=cancel
            )
            actions.append(literal if self.abilities().code_action_literals else cancel)
        return actions

    def comment_actions(self, params: types.CodeActionParams) -> list[Any]:
        """Asks for the ``surehand:`` comment lines at the cursor (``comment_actions``)."""
        uri = params.text_document.uri
        relative = relative_of(self.root, uri) if self.root is not None else None
        text = self.source.current(relative) if self.source and relative is not None else None
        if text is None:
            return []
        actions = comment_actions.comment_actions(text, uri, params)
        if self.abilities().code_action_literals:
            return actions
        return [a.command for a in actions if a.command is not None]

    def cancel(self) -> dict[str, Any]:
        """Stop the running task, or end the review under way (what is open is rejected)."""
        stopped = self.tasks.cancel_all()
        if self.desk is not None:
            self.desk.deny_all()
            stopped = self.desk.end() or stopped
        return {"cancelled": stopped}

    async def shutdown(self) -> None:
        """Stop every ask and let it finish unwinding, then close the session (its shadow
        copy, its model client), before the server goes."""
        await self.tasks.stop_all()
        if self.session is not None:
            await self.session.close()
        if self._kept is not None:
            await self._kept[0].close()
        self._release()

    def exiting(self) -> None:
        """The server exits now: stop every ask and its commands, and release the
        shadow copy, at once (the event loop closes before the asks unwind)."""
        from agent.execution.runner import stop_all  # noqa: PLC0415 - loaded by the first command

        self.tasks.cancel_all()
        stop_all()
        self._release()

    def _release(self) -> None:
        """Remove what the server keeps on disk: the shadow copy, the diff shown."""
        if self.desk is not None:
            self.desk.drop()
        if self.session is not None:
            self.session.release()
        if self._diffs is not None:
            shutil.rmtree(self._diffs, ignore_errors=True)
            self._diffs = None

    async def reset(self) -> dict[str, Any]:
        """A new session from the next task on; the model client (its connections, its TLS
        context) goes on into it."""
        self.tasks.cancel_all()
        if self.desk is not None:
            self.desk.deny_all()
            self.desk.end()
        if self.session is not None:
            self._kept = (await self.session.close_but_client(), self.session.settings)
        self.session = None
        return {"reset": True}

    def status(self) -> dict[str, Any]:
        staged = len(self.session.overlay.staged) if self.session else 0
        return {
            "busy": self.tasks.busy,
            "model": self.settings.model,
            "baseUrl": self.settings.base_url,
            "workspace": str(self.root) if self.root else None,
            "staged": staged,
            "sandbox": _sandbox_status(choose(self.settings.sandbox), self.settings),
            "reviewMode": "client" if self.abilities().reviews_itself else self.settings.review,
            "review": self.desk.progress() if self.desk and self.desk.review else None,
            "lastOutcome": self.last_outcome,
        }

    def prepare(self) -> None:
        """Make the session ahead of the first ask (once its modules are loaded: see
        ``warm_up``), when the settings allow one; the ask makes it otherwise."""
        if self.root is None or self.session is not None or self.tasks.busy:
            return
        if not self.configured.is_set():  # the settings are not in yet: try when they are
            asyncio.get_running_loop().call_later(0.2, self.prepare)
            return
        from agent.models.openai_client import OpenAIClient  # noqa: PLC0415 - loaded by now

        with contextlib.suppress(ModelError):  # no model or no key yet: the ask will say so
            client = self._session().client
            if isinstance(client, OpenAIClient):
                client.warm()
        # The loop's thread pool (the first request's address lookup runs in it), started.
        asyncio.get_running_loop().run_in_executor(None, int)

    # -- helpers ----------------------------------------------------------------------

    def _session(self) -> Session:
        """The session, with the current settings (they may have changed since the last task)."""
        assert self.root is not None
        # Not at the server's start: the model client's package and the tool loop take a
        # second to load; ``warm_up`` imports them once the editor is answered.
        from agent.loop.session import Session  # noqa: PLC0415
        from agent.models.openai_client import OpenAIClient  # noqa: PLC0415

        if self.session is None:  # with the client a reset kept, and the settings it was made for
            kept, self._kept = self._kept, None
            client, settings = kept or (OpenAIClient(self.settings), self.settings)
            self.session = Session(
                self.root, client, settings, source=self.source, approve=self._approve
            )
        if self.session.settings != self.settings:
            self.session.configure(self.settings, OpenAIClient(self.settings))
        return self.session

    async def _choose(self, kind: types.MessageType, message: str, titles: list[str]) -> str:
        """The title the user picks in a ``window/showMessageRequest`` ("" if dismissed)."""
        choice = await self.server.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=kind, message=message, actions=[types.MessageActionItem(t) for t in titles]
            )
        )
        return choice.title if choice else ""

    async def _approve(self, request: CommandRequest) -> Approval:
        if self.non_modal and self.desk is not None:
            if self._asked_about is not None:
                return await self.desk.approve(request, self._asked_about, self._asked_line)
            return await self.desk.approve(request, self._last_about, 0)
        # "Always" is never the first choice: a client that picks the first on Enter
        # (or a stray key) allows once at most.
        choices = [ALLOW_ONCE, DENY, ALLOW_ALWAYS] if request.may_always else [ALLOW_ONCE, DENY]
        question = visible(request.question())
        title = await self._choose(types.MessageType.Warning, question, choices)
        return {ALLOW_ONCE: Approval.ONCE, ALLOW_ALWAYS: Approval.ALWAYS}.get(title, Approval.DENY)

    async def _confirm(self, proposal: Proposal) -> bool:
        """Ask before applying, for clients that would apply at once."""
        files = ", ".join(visible(c.path) for c in proposal.changes)
        question = f"surehand proposes changes to {files}: {visible(proposal.summary)}"
        if proposal.incomplete:
            question = (
                f"surehand stopped before it finished ({visible(proposal.incomplete)}). "
                f"The changes so far, incomplete, to {files}."
            )
        governing = [c for c in proposal.changes if c.governs]
        for change in governing:
            question += f" {visible(change.path)} changes how tools run: {change.governs}."
        if proposal.tests:
            question += f" {headline(proposal.tests).capitalize()} ({summary(proposal.tests)})"
        while True:
            title = await self._choose(
                types.MessageType.Info, question, [APPLY, SHOW_DIFF, DISCARD]
            )
            if title != SHOW_DIFF:
                return title == APPLY
            if self._diffs is None:  # private (mode 0700, a name no one can guess)
                self._diffs = Path(tempfile.mkdtemp(prefix="surehand-diff-"))
            diff = self._diffs / "proposal.diff"
            diff.write_text(visible_lines(proposal.diff()), encoding="utf-8")
            await self.server.window_show_document_async(
                types.ShowDocumentParams(uri=from_fs_path(str(diff)) or "", take_focus=True)
            )

    async def _begin_progress(self, task: str) -> str | None:
        window = self.server.client_capabilities.window
        if not (window and window.work_done_progress):
            return None
        self._tokens += 1
        token = f"surehand-task-{self._tokens}"
        try:
            await self.server.work_done_progress.create_async(token)
        except Exception:  # the client refused a progress bar; work without one
            log.warning("work done progress refused", exc_info=True)
            return None
        self.server.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="surehand", message=visible(task[:100]), cancellable=True
            ),
        )
        return token

    def _end_progress(self, token: str | None, message: str) -> None:
        if token:
            self.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    def _warn_log(self, message: str) -> None:
        self.server.window_log_message(
            types.LogMessageParams(type=types.MessageType.Warning, message=visible_lines(message))
        )

    def _log(self, message: str) -> None:
        self.server.window_log_message(
            types.LogMessageParams(type=types.MessageType.Log, message=visible_lines(message))
        )

    def _follow(self, event: Any) -> None:
        """Keep the file the task was last about (a tool's ``path``), where an approval is
        shown when the ask named none."""
        if not isinstance(event, ToolStarted):
            return
        try:
            path = json.loads(event.call.arguments).get("path")
        except (ValueError, AttributeError):
            return
        if isinstance(path, str) and self.root is not None and path:
            uri = from_fs_path(str(self.root / path))
            if uri and relative_of(self.root, uri) is not None:
                self._last_about = uri


def _without_comments(
    session: Session, proposal: Proposal, relative: str, comments: list[CommentTask]
) -> Proposal:
    """The proposal with the request's comment lines taken out of ``relative``: a hunk of its
    own (unless the model took them out already)."""
    now = session.overlay.text(relative)
    if now is None or (after := comment_task.without(now, comments)) == now:
        return proposal
    session.overlay.stage(relative, after, "take out the request's comment")
    return session.proposal(proposal.end)


def _sandbox_status(sandbox: Sandbox, settings: Settings) -> dict[str, Any]:
    return {
        "mode": sandbox.name,
        "contained": sandbox.contained,
        "description": sandbox.describe(settings.sandbox_network, resource_limits(settings)),
    }


def _get(value: Any, key: str) -> Any:
    """A field of a custom notification's params, which arrive as objects or dicts."""
    if isinstance(value, dict):
        return value.get(key)
    return getattr(value, key, None)


def _result(proposal: Proposal, result: Review, accepted: tuple[Any, ...] = ()) -> dict[str, Any]:
    """The command's result: what the review found, how the task ended, the tests' verdicts."""
    tests: dict[str, Any] = {"tests": as_json(proposal.tests)} if proposal.tests else {}
    if accepted:
        tests["testsAccepted"] = as_json(accepted)
    return {
        "outcome": result.verdict.value,
        "ending": proposal.end.ending.value,
        "summary": visible_lines(result.summary()),
        "modelSummary": visible_lines(proposal.summary),
        "incomplete": not proposal.complete,
        "files": {path: status.value for path, status in result.statuses.items()},
        "details": result.as_json(),
        "conflicts": result.conflicts,
        "refusals": [r.as_json() for r in proposal.refusals],
        "steps": proposal.steps,
        "tokens": proposal.usage.total,
        **tests,
    }
