"""The ACP agent: ``initialize``, ``session/new``, ``session/prompt``, ``session/cancel``.

One ``agent.loop.session.Session`` per ACP session, rooted at its ``cwd`` (the
file system's root and the home folder are refused, as everywhere). A
prompt runs the task on the worker loop (``bridge``): its events stream as
``session/update``; then the proposal is put to the person hunk by hunk
(``hunk_questions``), and only what they accept is landed and written
(``write_accepted``). Commands run in surehand's sandbox, and one outside
the allowlist is asked about through ``session/request_permission``; the
client's terminal is never used. ``session/cancel`` stops the task (or the
review) and drops what it staged: nothing is written.

Its size: one class, the protocol's methods over the sessions it keeps; the
questions (``hunk_questions``), the writes (``write_accepted``), the updates
(``updates``) and the bridge are modules of their own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from acp import (
    PROTOCOL_VERSION,
    Client,
    RequestError,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_tool_call,
)
from acp.schema import (
    AgentCapabilities,
    AllowedOutcome,
    ClientCapabilities,
    CloseSessionResponse,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    ToolCallUpdate,
)

from agent.checks.verdicts import broken_by_leaving_out, checkable, for_model
from agent.config.config_file import Effective
from agent.config.project_root import why_not_a_project
from agent.loop import warm_up
from agent.loop.session import Session
from agent.models.model import ModelError
from agent.staging.proposal import Ending, Proposal
from agent.tools.context import Approval, CommandRequest
from editing.visible import visible, visible_lines

from . import messages
from .bridge import Outbox, Worker
from .editor_texts import EditorTexts
from .hunk_questions import Questions, ReviewCancelled
from .updates import Updates
from .write_accepted import write_accepted

log = logging.getLogger(__name__)

STOP = {Ending.STEP_LIMIT: "max_turn_requests"}  # every other ending: end_turn
CLOSE_SECONDS = 10.0  # the most a closed session's cancelled prompt is waited for


@dataclass
class Task:
    """An ACP session: the core's session, and the prompt running in it."""

    id: str
    root: Path
    session: Session
    running: concurrent.futures.Future[str] | None = None
    calls: itertools.count[int] = field(default_factory=lambda: itertools.count(1))


class SurehandAgent:
    """The agent side of the connection (the SDK's ``acp.Agent``)."""

    def __init__(self, settings_for: Callable[[Path], Effective], version: str) -> None:
        self.settings_for = settings_for  # the settings in force for a workspace
        self.version = version
        self.client: Client | None = None
        self.capabilities = ClientCapabilities()
        self.tasks: dict[str, Task] = {}
        self.worker = Worker("surehand-acp")
        self._outbox: Outbox | None = None
        self._ids = itertools.count(1)
        self.warming: threading.Thread | None = None  # see ``initialize``

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    @property
    def outbox(self) -> Outbox:
        if self._outbox is None:
            self._outbox = Outbox(asyncio.get_running_loop())
        return self._outbox

    # -- the protocol's requests ----------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.capabilities = client_capabilities or ClientCapabilities()
        _ = self.outbox  # made on the connection's loop
        if self.warming is None:  # the model client's package loads meanwhile, not at session/new
            self.warming = warm_up.start()
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=False,
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=True
                ),
                session_capabilities=SessionCapabilities(close=SessionCloseCapabilities()),
            ),
            agent_info=Implementation(name="surehand", title="surehand", version=self.version),
            auth_methods=[],
        )

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        root = Path(cwd).expanduser()
        if not root.is_absolute() or not root.is_dir():
            raise RequestError.invalid_params({"cwd": cwd, "why": messages.NOT_A_FOLDER})
        root = root.resolve()
        if (why := why_not_a_project(root)) is not None:
            raise RequestError.invalid_params({"cwd": cwd, "why": why})
        task_id = f"surehand-{next(self._ids)}"
        effective = self.settings_for(root)
        for problem in effective.problems:
            log.warning("setting: %s", problem)
        try:
            session = await asyncio.wrap_future(
                self.worker.run(self._session(root, task_id, effective))
            )
        except ModelError as error:
            raise RequestError.invalid_params({"why": error.message}) from None
        self.tasks[task_id] = Task(task_id, root, session)
        return NewSessionResponse(session_id=task_id)

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        task = self._task(session_id)
        if task.running is not None and not task.running.done():
            raise RequestError.invalid_request({"why": messages.BUSY})
        text = _task_text(prompt)
        task.running = self.worker.run(self._turn(task, text))
        try:
            stop = await asyncio.wrap_future(task.running)
        except (asyncio.CancelledError, concurrent.futures.CancelledError):
            if not task.running.cancelled():
                raise  # this request itself was cancelled, not the task
            stop = "cancelled"
        return PromptResponse(stop_reason=stop)  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        task = self.tasks.get(session_id)
        if task is not None and task.running is not None:
            task.running.cancel()

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        """The editor is done with the session: its prompt, if one runs, is cancelled (as by
        ``session/cancel``: nothing is written), then what it holds is let go (its copy kept
        for the next session of the workspace, as at a reset; its model client closed)."""
        task = self._task(session_id)
        del self.tasks[session_id]
        if task.running is not None and not task.running.done():
            task.running.cancel()
            with contextlib.suppress(BaseException):  # how it ended was its prompt's answer
                await asyncio.wait_for(asyncio.wrap_future(task.running), CLOSE_SECONDS)
        await asyncio.wrap_future(self.worker.run(task.session.close()))
        return CloseSessionResponse()

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    def close(self) -> None:
        """Stop every task and the commands it runs, and remove their shadow copies."""
        from agent.execution.runner import stop_all  # noqa: PLC0415 - loaded by the first command

        for task in self.tasks.values():
            if task.running is not None:
                task.running.cancel()
        self.worker.loop.call_soon_threadsafe(stop_all)
        for task in self.tasks.values():
            task.session.release()
        if self._outbox is not None:
            self._outbox.close()
        self.worker.stop()

    # -- on the worker loop ------------------------------------------------------------

    async def _session(self, root: Path, task_id: str, effective: Effective) -> Session:
        from agent.models.openai_client import OpenAIClient  # noqa: PLC0415 - slow to import

        settings = effective.settings
        fs = self.capabilities.fs
        source = EditorTexts(root, self._reader(task_id)) if fs and fs.read_text_file else None
        return Session(
            root, OpenAIClient(settings), settings, source=source, approve=self._approver(task_id)
        )

    async def _turn(self, task: Task, text: str) -> str:
        send = self._sender(task.id)
        session = task.session
        try:
            proposal = await session.run(text, on_event=Updates(task.root, send))
        except asyncio.CancelledError:
            session.overlay.discard()
            session.tell(messages.PREVIOUS_TASK_CANCELLED)
            raise
        if not proposal.changes:
            send(update_agent_message_text(_no_changes(proposal)))
            return STOP.get(proposal.end.ending, "end_turn")
        return await self._review(task, proposal, text)

    async def _review(self, task: Task, proposal: Proposal, text: str) -> str:
        send = self._sender(task.id)
        session = task.session
        if proposal.tests:
            lines = "\n".join(f"- {v.line()}" for v in proposal.tests)
            send(update_agent_message_text(f"\n\n{messages.TESTS_ON_PROPOSAL}\n{lines}\n"))
        questions = Questions(task.root, send, self._asker(task.id))
        try:
            walk = await questions.walk(proposal)
        except ReviewCancelled:
            raise asyncio.CancelledError from None
        finally:
            session.overlay.discard()  # decided, or cancelled: none of it is staged again
        chosen, _ = walk.chosen()
        rejected = sum(1 for item in walk.items if not item.accepted)
        accepted_tests: tuple[Any, ...] = ()
        if rejected and chosen.changes and (argvs := checkable(proposal.tests)):
            accepted_tests = await session.check_accepted(
                argvs,
                chosen.writes(),
                rejected=rejected,
                hunks=len(walk.items),
                on_event=Updates(task.root, send),
            )
        fs = self.capabilities.fs
        write = self._writer(task.id) if fs and fs.write_text_file else None
        read = self._read_now(task)
        # Once writing starts it finishes: a cancel then stops the report, not the writes.
        written = await asyncio.shield(
            write_accepted(proposal, walk, task.root, read=read, write=write, task=text)
        )
        review = written.review
        review.incomplete = proposal.incomplete
        session.tell(review.for_model())
        if written.refused:
            session.tell(messages.WRITE_REFUSED_FOR_MODEL.format(paths=", ".join(written.refused)))
        if accepted_tests:
            session.tell(for_model((), accepted_tests))
        session.record_review(review.as_json(), review.verdict.value)
        words = [f"{review.headline()}. {review.summary()}"]
        for path, why in written.refused.items():
            words.append(messages.WRITE_REFUSED.format(path=visible(path), why=visible(why)))
        if accepted_tests:
            words += [f"- {v.line()}" for v in accepted_tests]
            if broken_by_leaving_out(proposal.tests, accepted_tests):
                words.append(messages.BROKEN_BY_LEAVING_OUT)
        if questions.quick:
            accepted = [visible(i.label) for i in questions.quick if i.accepted]
            words.append(
                messages.ANSWERED_AT_ONCE.format(
                    quick=len(questions.quick),
                    asked=questions.asked,
                    accepted="; ".join(accepted) or "nothing",
                )
            )
        send(update_agent_message_text("\n\n" + visible_lines("\n".join(words))))
        return STOP.get(proposal.end.ending, "end_turn")

    # -- calls to the client, through the outbox ------------------------------------

    def _sender(self, session_id: str) -> Callable[[Any], None]:
        client = self._connected()

        def send(update: Any) -> None:
            self.outbox.call(lambda: client.session_update(session_id=session_id, update=update))

        return send

    def _asker(self, session_id: str) -> Any:
        client = self._connected()

        async def ask(tool_call: ToolCallUpdate, options: list[PermissionOption]) -> Any:
            return await self.outbox.ask(
                lambda: client.request_permission(
                    session_id=session_id, tool_call=tool_call, options=options
                )
            )

        return ask

    def _reader(self, session_id: str) -> Callable[[str], concurrent.futures.Future[str]]:
        client = self._connected()

        def read(path: str) -> concurrent.futures.Future[str]:
            async def content() -> str:
                answer = await client.read_text_file(session_id=session_id, path=path)
                return answer.content

            return self.outbox.call(content)

        return read

    def _read_now(self, task: Task) -> Callable[[str], Any]:
        """Reads a workspace path as the editor holds it now (else the disk), for landing."""
        source = task.session.overlay.source

        async def read(relative: str) -> str | None:
            if source is not None:
                text = await asyncio.to_thread(source.text, relative)
                if text is not None:
                    return text
            return task.session.overlay.base(relative) if source is None else _disk(task, relative)

        return read

    def _writer(self, session_id: str) -> Callable[[str, str], Any]:
        client = self._connected()
        root = self.tasks[session_id].root

        source = self.tasks[session_id].session.overlay.source

        async def write(relative: str, text: str) -> None:
            path = str(root / relative)
            if isinstance(source, EditorTexts):  # read back through the editor, saved or not
                source.written.add(relative)
            await self.outbox.ask(
                lambda: client.write_text_file(session_id=session_id, path=path, content=text)
            )

        return write

    def _approver(self, session_id: str) -> Callable[[CommandRequest], Any]:
        async def approve(request: CommandRequest) -> Approval:
            task = self.tasks[session_id]
            call_id = f"command-{next(task.calls)}"
            send = self._sender(session_id)
            content: list[Any] = [tool_content(text_block(visible(request.question())))]
            title = f"Run `{request.shown}`?"
            send(start_tool_call(call_id, title, kind="execute", status="pending", content=content))
            options = [
                PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
                PermissionOption(option_id="reject_once", name="Deny", kind="reject_once"),
            ]
            if request.may_always:
                options.append(
                    PermissionOption(
                        option_id="allow_always",
                        name="Always allow this command",
                        kind="allow_always",
                    )
                )
            answer = await self._asker(session_id)(
                ToolCallUpdate(tool_call_id=call_id, title=title, kind="execute", content=content),
                options,
            )
            chosen = answer.outcome
            picked = chosen.option_id if isinstance(chosen, AllowedOutcome) else "reject_once"
            decision = {"allow_once": Approval.ONCE, "allow_always": Approval.ALWAYS}.get(
                picked, Approval.DENY
            )
            send(update_tool_call(call_id, status=_status(decision is not Approval.DENY)))
            return decision

        return approve

    def _connected(self) -> Client:
        if self.client is None:
            raise RequestError.internal_error({"why": "no client is connected"})
        return self.client

    def _task(self, session_id: str) -> Task:
        task = self.tasks.get(session_id)
        if task is None:
            raise RequestError.invalid_params({"sessionId": session_id, "why": messages.NO_SESSION})
        return task


def _status(ok: bool) -> Literal["completed", "failed"]:
    return "completed" if ok else "failed"


def _task_text(prompt: list[Any]) -> str:
    """The task in words: the prompt's text, and the files it links to or embeds."""
    parts = []
    for block in prompt:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            parts.append(f"(see {block.uri})")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is not None:
                parts.append(f"{resource.uri}:\n{text}")
    return "\n\n".join(p for p in parts if p)


def _no_changes(proposal: Proposal) -> str:
    if proposal.end.ending is Ending.ANSWERED:
        return ""  # the answer streamed already
    why = proposal.incomplete or proposal.summary
    return f"\n\n{messages.NO_CHANGES} {visible_lines(why)}".rstrip()


def _disk(task: Task, relative: str) -> str | None:
    from editing.disk.workdir import Workdir  # noqa: PLC0415

    return Workdir(task.root).read(relative)
