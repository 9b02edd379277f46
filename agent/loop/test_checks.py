"""Checking a proposal's tests: the ledger of test runs, and the verdicts at the end of a task.

Every test command that runs (the model's, through ``run_command``, or
surehand's own check) is recorded in the session's ``TestLedger`` with the
state it ran on: a digest of every text the command saw that is not the
disk's (the staged changes, and the editor's unsaved buffers). When the
task ends, ``check_proposal`` gives one ``Verdict`` per test command of the
project (``agent.execution.project_tests``): the last run's result when it
ran on exactly the proposed state; else the command is run again, in the
shadow copy, when it may run without asking (a sandbox contains it and it
is on the allowlist, or the person allowed it always) and
``testsBeforeReview`` is on; else the verdict says it is stale or was not
run, and why.

``check_accepted`` runs the same commands on the part of the proposal the
person accepted (the texts given, or the editor's buffers once the
accepted hunks are in them), in the shadow copy, so nothing is written to
the workspace.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from agent.checks.suite_results import read_counts
from agent.checks.verdicts import On, Status, TestRun, Verdict, state_of
from agent.events import CheckFinished, CheckStarted, OnEvent
from agent.execution.command_result import CommandResult
from agent.loop.project_tests import is_test_command, project_commands
from agent.tools.context import ToolContext
from agent.tools.run_command import why_ask


@dataclass
class TestLedger:
    """The test commands run in a task, with the states they ran on."""

    __test__ = False

    runs: list[TestRun] = field(default_factory=list)

    def record(self, argv: Sequence[str], ctx: ToolContext, result: CommandResult, by: str) -> None:
        """Keep ``result`` when ``argv`` is a test command (the state: the overlay's now)."""
        if is_test_command(argv):
            self.runs.append(_run_of(tuple(argv), ctx, result, by))

    def record_model(self, ctx: ToolContext, argv: Sequence[str], result: CommandResult) -> None:
        """``record`` of a command the model ran (``ToolContext.on_command``)."""
        self.record(argv, ctx, result, "model")

    def last(self, argv: Sequence[str], *, untouched: bool = False) -> TestRun | None:
        for run in reversed(self.runs):
            if run.argv == tuple(argv) and (run.untouched or not untouched):
                return run
        return None

    def ran(self) -> list[tuple[str, ...]]:
        """The test commands the model ran, each once, in order."""
        return list(dict.fromkeys(r.argv for r in self.runs if r.by == "model"))

    def clear(self) -> None:
        self.runs.clear()


def commands(ctx: ToolContext, ledger: TestLedger) -> list[tuple[str, ...]]:
    return project_commands(ctx.settings.test_commands, ledger.ran(), ctx.overlay.root)


async def check_proposal(ctx: ToolContext, ledger: TestLedger, emit: OnEvent) -> list[Verdict]:
    """A verdict per test command on the overlay as it is: the proposed change."""
    state = state_of(ctx.overlay.overlaid())
    verdicts = []
    for argv in commands(ctx, ledger):
        last = ledger.last(argv)
        baseline = ledger.last(argv, untouched=True)
        if last is not None and last.state == state:
            verdicts.append(Verdict(argv, last.status, On.PROPOSAL, last, baseline))
            continue
        why = "checking before review is off (testsBeforeReview)"
        if ctx.settings.tests_before_review:
            why = why_not_unasked(argv, ctx) or ""
        if why:
            status = Status.STALE if last is not None else Status.NOT_RUN
            verdicts.append(Verdict(argv, status, On.PROPOSAL, last, baseline, why))
            continue
        run = await _run(argv, ctx, ledger=ledger, emit=emit, texts=None, on=On.PROPOSAL)
        verdicts.append(Verdict(argv, run.status, On.PROPOSAL, run, baseline))
    return verdicts


async def check_accepted(
    ctx: ToolContext,
    ledger: TestLedger,
    argvs: Sequence[tuple[str, ...]],
    texts: Mapping[str, str | None] | None,
    emit: OnEvent,
    *,
    rejected: int,
    hunks: int,
) -> list[Verdict]:
    """A verdict per command in ``argvs`` on ``texts`` (None: the overlay's texts, which are
    the editor's buffers once the proposal left it), never written to the workspace."""
    verdicts = []
    for argv in argvs:
        baseline = ledger.last(argv, untouched=True)
        why = why_not_unasked(argv, ctx)
        if why:
            verdicts.append(
                Verdict(argv, Status.NOT_RUN, On.ACCEPTED, None, baseline, why, rejected, hunks)
            )
            continue
        run = await _run(argv, ctx, ledger=ledger, emit=emit, texts=texts, on=On.ACCEPTED)
        verdicts.append(Verdict(argv, run.status, On.ACCEPTED, run, baseline, "", rejected, hunks))
    return verdicts


def why_not_unasked(argv: Sequence[str], ctx: ToolContext) -> str | None:
    """Why surehand may not run ``argv`` by itself (None: it may): only a command the
    sandbox contains and that needs no question runs unasked."""
    if ctx.runner is None:
        return "commands cannot run here"
    sandbox = ctx.runner.sandbox(ctx.settings)
    if not sandbox.contained:
        return f"there is no sandbox ({sandbox.why}), and surehand runs nothing unasked"
    if tuple(argv) in ctx.always_allowed:
        return None
    why = why_ask(list(argv), ctx, sandbox)
    return f"it would need your approval ({why})" if why else None


async def _run(
    argv: tuple[str, ...],
    ctx: ToolContext,
    *,
    ledger: TestLedger,
    emit: OnEvent,
    texts: Mapping[str, str | None] | None,
    on: On,
) -> TestRun:
    assert ctx.runner is not None
    emit(CheckStarted(shlex.join(argv), on.value))
    result = await ctx.runner.run(list(argv), ctx.settings.command_timeout, ctx.settings, texts)
    run = _run_of(argv, ctx, result, "surehand", texts)
    if texts is None:
        ledger.runs.append(run)
    emit(CheckFinished(shlex.join(argv), on.value, run.status.value, run.result()))
    return run


def _run_of(
    argv: tuple[str, ...],
    ctx: ToolContext,
    result: CommandResult,
    by: str,
    texts: Mapping[str, str | None] | None = None,
) -> TestRun:
    overlay = ctx.overlay
    seen = overlay.overlaid() if texts is None else texts
    sandbox = ctx.runner.sandbox(ctx.settings) if ctx.runner is not None else None
    contained = bool(sandbox and sandbox.contained)
    network = "network allowed" if ctx.settings.sandbox_network else "no network"
    where = (
        f"sandboxed ({sandbox.name}, {network})"
        if sandbox is not None and contained
        else "unsandboxed, with your approval"
    )
    lines = [line.strip() for line in result.output.splitlines() if line.strip()]
    return TestRun(
        argv,
        state_of(seen),
        texts is None and not any(True for _ in overlay.changed()),
        result.exit_code,
        read_counts(result.output),
        result.seconds,
        by,
        contained,
        where,
        lines[-1][:200] if lines else "",
    )
