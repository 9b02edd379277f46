"""The loop that turns a task into a proposal.

``Session.run`` loops over ``step``: one model turn, then every tool call it
made. The model adapter alone knows the API; the tools alone act; the
session keeps the conversation, the overlay and the budgets, and survives
between tasks (a follow-up keeps both the conversation and the staged
changes). Every way a run ends is an ``Ending``, recorded last in the trace.

The session owns its model client: ``close`` closes it (and its HTTP
connections), ``close_but_client`` hands it over to the next session, and a
client replaced by ``configure`` is closed before the next task's first
request.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path

from agent import messages
from agent.checks.verdicts import On, Verdict, for_model
from agent.config.settings import Settings
from agent.conversation import Conversation, Usage
from agent.events import (
    ModelCalling,
    ModelRetry,
    ModelText,
    ModelThinking,
    ModelWriting,
    OnEvent,
    StepStarted,
    StepUsage,
    TaskEnded,
    ToolFinished,
    ToolStarted,
)
from agent.execution.runner import ShadowRunner
from agent.loop.calls import Caller
from agent.loop.test_checks import TestLedger, check_accepted, check_proposal
from agent.models.model import Delta, ModelClient, ModelError
from agent.staging.proposal import Ending, Proposal, Refusal, RunEnd, proposal_of
from agent.staging.workspace import Overlay, TextSource
from agent.tools import Tool, default_tools
from agent.tools.context import Approve, CommandRunner, ToolContext, deny_all
from agent.trace import ToolRecord, Trace, append_tests
from editing.patch import looks_like_patch

MALFORMED_LIMIT = 3  # model turns in a row whose calls were all unusable


def system_prompt(root: Path) -> str:
    template = resources.files("agent").joinpath("prompt.txt").read_text("utf-8")
    return template.format(root=root)


class Session:
    def __init__(
        self,
        root: Path,
        client: ModelClient,
        settings: Settings,
        *,
        source: TextSource | None = None,
        approve: Approve = deny_all,
        runner: Callable[[Overlay], CommandRunner] | None = None,
        tools: dict[str, Tool] | None = None,
    ) -> None:
        """``runner`` makes the command runner for the overlay; by default commands run
        in a shadow copy, made on the first command."""
        self.overlay = Overlay(root, source)
        make_runner = runner or ShadowRunner
        self.ctx = ToolContext(
            self.overlay, settings, runner=make_runner(self.overlay), approve=approve
        )
        self.client = client
        self._replaced: list[ModelClient] = []  # clients ``configure`` replaced, to close
        self.configure(settings, client)
        self.caller = Caller(tools if tools is not None else default_tools())
        self.conversation = Conversation(system_prompt(self.overlay.root))
        self.usage = Usage()
        self._notes: list[str] = []
        self._steps = 0
        self._trace: Trace | None = None
        self._refusals: list[Refusal] = []
        self.ledger = TestLedger()  # the test commands run in the task, and on what
        self._tests: tuple[Verdict, ...] = ()
        self.ctx.on_command = self.ledger.record_model

    @property
    def settings(self) -> Settings:
        """The settings in force: the tools' (``ctx.settings``), their one owner."""
        return self.ctx.settings

    def configure(self, settings: Settings, client: ModelClient) -> None:
        """New settings, and the model client made for them, from the next task on;
        the conversation, the staged changes and the shadow copy stay.

        The one place the session takes settings (``__init__`` comes here too):
        the tools and the command runner read ``ctx.settings`` at each call; only
        the overlay's read limit is a value of its own, set from them here."""
        if client is not self.client:
            self._replaced.append(self.client)
        self.client = client
        self.ctx.settings = settings
        self.overlay.max_bytes = settings.max_file_bytes

    async def close(self) -> None:
        """Release what the session holds: the shadow copy and the model client."""
        client = await self.close_but_client()
        await client.close()

    async def close_but_client(self) -> ModelClient:
        """Release what the session holds but its model client, which it hands over to the
        next session (a reset): its connections and TLS context are kept, not made anew
        and the old ones left to the cyclic collector (openai's client refers to itself)."""
        self.release()
        await self._close_replaced()
        return self.client

    def release(self) -> None:
        """Remove the shadow copy at once (for a server that is exiting: the process's end
        closes the model client's connections)."""
        if self.ctx.runner is not None:
            self.ctx.runner.close()

    def tell(self, note: str) -> None:
        """Something the model should know with the next task (the user rejected a change)."""
        self._notes.append(note)

    def proposal(self, end: RunEnd) -> Proposal:
        trace = self._trace.path if self._trace else None
        return proposal_of(
            self.overlay,
            end,
            self.usage,
            self._steps,
            trace,
            refusals=tuple(self._refusals),
            tests=self._tests,
        )

    def record_review(self, files: list[dict[str, object]], verdict: str) -> None:
        """Add what became of the last proposal to its trace."""
        if self._trace:
            self._trace.review(verdict, files)

    async def check_accepted(
        self,
        argvs: Sequence[tuple[str, ...]],
        texts: Mapping[str, str | None] | None,
        *,
        rejected: int,
        hunks: int,
        on_event: OnEvent | None = None,
    ) -> tuple[Verdict, ...]:
        """The proposal's test commands (``argvs``) run on the part of it accepted: ``texts``
        over the disk, or (None) the overlay's texts (the editor's buffers once the review
        ended), in the shadow copy; recorded in the last task's trace."""
        emit = on_event or (lambda event: None)
        verdicts = await check_accepted(
            self.ctx, self.ledger, argvs, texts, emit, rejected=rejected, hunks=hunks
        )
        if self._trace is not None and self._trace.path is not None and verdicts:
            append_tests(self._trace.path, On.ACCEPTED.value, [v.as_json() for v in verdicts])
        return tuple(verdicts)

    async def run(self, task: str, *, on_event: OnEvent | None = None) -> Proposal:
        """Work on ``task`` until the model finishes, a limit is hit or it is cancelled."""
        emit = on_event or (lambda event: None)
        await self._close_replaced()
        self._trace = Trace.new(self.settings.trace_dir)
        self._trace.task(task, self.settings.model, str(self.overlay.root))
        self.conversation.task(task, self._notes)
        self._notes.clear()
        self._steps = 0
        self._refusals = []
        self._tests = ()
        self.ledger.clear()
        self.usage = Usage()
        malformed = 0
        end = RunEnd(
            Ending.STEP_LIMIT,
            f"Stopped after {self.settings.max_steps} steps (the step limit, maxSteps).",
        )
        try:
            while self._steps < self.settings.max_steps:
                ended, all_malformed = await self.step(emit)
                malformed = malformed + 1 if all_malformed else 0
                if ended is not None:
                    end = ended
                    break
                if malformed >= MALFORMED_LIMIT:
                    end = RunEnd(Ending.MALFORMED, "The model kept sending unusable calls.")
                    break
        except ModelError as error:
            end = RunEnd(Ending.MODEL_ERROR, error.message)
        except asyncio.CancelledError:
            self._end(RunEnd(Ending.CANCELLED, "Cancelled."), emit)
            raise
        try:
            if any(True for _ in self.overlay.changed()):
                self._tests = tuple(await check_proposal(self.ctx, self.ledger, emit))
                unseen = [v for v in self._tests if v.run is not None and v.run.by == "surehand"]
                if unseen:  # results the model has not read: it hears them with the next task
                    self.tell(for_model(unseen, ()))
        except asyncio.CancelledError:
            self._end(RunEnd(Ending.CANCELLED, "Cancelled while the tests ran."), emit)
            raise
        self._end(end, emit)
        return self.proposal(end)

    async def step(self, emit: OnEvent) -> tuple[RunEnd | None, bool]:
        """One model turn and its calls: (how the run ended, if it did, all calls unusable)."""
        self._steps += 1
        step = self._steps
        emit(StepStarted(step))
        self.conversation.compact(self.settings.context_budget)

        on_delta = _delta_events(step, emit)

        started = time.perf_counter()
        turn = await self.client.complete(
            list(self.conversation), [t.spec for t in self.caller.tools.values()], on_delta
        )
        model_ms = (time.perf_counter() - started) * 1000
        self.usage += turn.usage
        if turn.usage.total:
            emit(StepUsage(step, turn.usage))
        self.conversation.assistant(turn)
        records: list[ToolRecord] = []
        ended: RunEnd | None = None
        # Small models often write a patch out as their answer instead of calling the tool.
        patch_in_answer = (
            not turn.tool_calls
            and "apply_patch" in self.caller.tools
            and looks_like_patch(turn.content)
        )
        if patch_in_answer:
            self.conversation.user(messages.PATCH_IN_ANSWER)
        elif not turn.tool_calls:
            answer = turn.content.strip() or "The model gave no answer."
            if turn.cut_off:
                answer = f"{messages.CUT_OFF_ANSWER} {answer}"
            ended = RunEnd(Ending.ANSWERED, answer)
        malformed = bool(turn.tool_calls) or patch_in_answer
        for index, call in enumerate(turn.tool_calls):
            emit(ToolStarted(step, call, self.caller.describe(call)))
            try:
                result = await self.caller.call(
                    call, self.ctx, cut_off=turn.cut_off, stopped_at=turn.stopped_at
                )
            except asyncio.CancelledError:
                # Every call of the turn needs its answer, or the next request is invalid.
                for unanswered in turn.tool_calls[index:]:
                    self.conversation.tool(unanswered, messages.CANCELLED_CALL)
                raise
            self.conversation.tool(call, result.text)
            malformed = malformed and result.malformed
            summary = result.result.summary if result.result else result.text.split("\n")[0]
            succeeded = result.ok and (result.result is None or result.result.succeeded)
            emit(ToolFinished(step, call, result.ok, summary, succeeded, result.reason))
            if result.reason is not None:
                self._refusals.append(Refusal(step, call.name, result.reason, result.path))
            records.append(
                ToolRecord(
                    call.name,
                    call.arguments,
                    result.ok,
                    len(result.text),
                    round(result.seconds * 1000, 1),
                    summary,
                    result.reason,
                )
            )
            if result.result and result.result.ends_task:
                ended = RunEnd(Ending.FINISHED, result.result.summary)
        if self._trace:
            self._trace.step(step, turn, model_ms, records)
        return ended, malformed

    async def _close_replaced(self) -> None:
        while self._replaced:
            await self._replaced.pop().close()

    def _end(self, end: RunEnd, emit: OnEvent) -> None:
        if self._trace:
            refusals = [r.as_json() for r in self._refusals]
            self._trace.end(end.ending, end.message, self.usage, self._steps, refusals)
            if self._tests:
                self._trace.tests(On.PROPOSAL.value, [v.as_json() for v in self._tests])
            self._trace.close()
        emit(TaskEnded(end.ending, end.message))


def _delta_events(step: int, emit: OnEvent) -> Callable[[Delta], None]:
    """The events a turn's streamed pieces become."""
    written: dict[int, int] = {}  # characters of arguments per call

    def on_delta(delta: Delta) -> None:
        if delta.restart:
            written.clear()
            emit(ModelRetry(step, delta.reason))
        elif delta.text:
            emit(ModelText(step, delta.text))
        elif delta.reasoning:
            emit(ModelThinking(step, delta.reasoning))
        elif delta.tool_name:
            if delta.tool_index not in written:
                written[delta.tool_index] = 0
                emit(ModelCalling(step, delta.tool_name))
            if delta.arguments:
                written[delta.tool_index] += len(delta.arguments)
                emit(ModelWriting(step, delta.tool_name, written[delta.tool_index]))

    return on_delta
