"""The tests' verdict a proposal carries: each test command's result on exactly what is proposed.

Every test command that runs (the model's, through ``run_command``, or
surehand's own check) is recorded in the session's ``TestLedger`` with the
state it ran on: a digest of every text the command saw that is not the
disk's (the staged changes, and the editor's unsaved buffers). When the
task ends, ``check_proposal`` gives one ``Verdict`` per test command of the
project (``agent.project_tests``): the last run's result when it ran on
exactly the proposed state; else the command is run again, in the shadow
copy, when it may run without asking (a sandbox contains it and it is on
the allowlist, or the person allowed it always) and ``testsBeforeReview``
is on; else the verdict says it is stale or was not run, and why.

``check_accepted`` runs the same commands on the part of the proposal the
person accepted (the texts given, or the editor's buffers once the
accepted hunks are in them), in the shadow copy, so nothing is written to
the workspace. Each verdict keeps the run of the untouched workspace when
there was one (the baseline), so a failure that was there before the
change reads as such.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from editing.visible import visible

from .events import CheckFinished, CheckStarted, OnEvent
from .project_tests import is_test_command, project_commands
from .suite_results import Counts, read_counts
from .tools.context import CommandResult, ToolContext
from .tools.run_command import why_ask

NOT_STARTED = (126, 127)  # a shell's codes for a program that could not be run
_BY = {"model": "the model", "surehand": "surehand"}


class Status(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"  # timed out, could not start, or the runner itself failed
    STALE = "stale"  # it ran, but on an earlier state, and was not run again
    NOT_RUN = "not_run"


class On(StrEnum):
    """What a verdict is about."""

    PROPOSAL = "proposal"  # exactly the proposed change
    ACCEPTED = "accepted"  # the part of it the person accepted


@dataclass(frozen=True)
class TestRun:
    """One run of a test command, and the state it ran on."""

    __test__ = False  # not a test case, whatever pytest thinks of the name

    argv: tuple[str, ...]
    state: str  # ``state_of`` the texts it saw
    untouched: bool  # no staged change: the workspace as it is
    exit_code: int | None  # None: stopped at the timeout
    counts: Counts
    seconds: float
    by: str  # "model" or "surehand"
    contained: bool
    where: str  # "sandboxed (bubblewrap, no network)", "unsandboxed, with your approval"
    last_line: str = ""  # the output's last line, for an error

    @property
    def status(self) -> Status:
        if self.exit_code == 0:
            return Status.PASSED
        if self.counts.failed:
            return Status.FAILED
        if self.exit_code is None or self.exit_code in NOT_STARTED or self.counts.failed is None:
            return Status.ERROR
        return Status.FAILED

    def result(self) -> str:
        """``2 failed, 39 passed`` / ``passed`` / ``timed out`` ... in words."""
        counts = self.counts.words()
        if self.exit_code is None:
            return f"timed out after {self.seconds:.0f} s" + (f" ({counts})" if counts else "")
        if self.exit_code in NOT_STARTED:
            return f"could not start: {self.last_line}" if self.last_line else "could not start"
        if counts and (self.exit_code == 0 or self.counts.failed):
            return counts
        if counts:
            return f"{counts}, then exit code {self.exit_code}"
        if self.exit_code == 0:
            return "passed (exit code 0)"
        tail = f": {self.last_line}" if self.last_line else ""
        if self.status is Status.ERROR:
            return f"ended with exit code {self.exit_code} and no test summary{tail}"
        return f"failed (exit code {self.exit_code}){tail}"

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "exitCode": self.exit_code,
            "passed": self.counts.passed,
            "failed": self.counts.failed,
            "failing": list(self.counts.failing),
            "seconds": round(self.seconds, 3),
            "ranBy": self.by,
            "contained": self.contained,
            "where": self.where,
            "state": self.state,
            "result": visible(self.result()),
        }


@dataclass(frozen=True)
class Verdict:
    """One test command's verdict on a proposal, or on the part of it accepted."""

    argv: tuple[str, ...]
    status: Status
    on: On
    run: TestRun | None = None  # the run it is from (for stale: the last, earlier one)
    baseline: TestRun | None = None  # the last run on the untouched workspace
    why: str = ""  # why it was not run (again)
    rejected: int = 0  # for ``On.ACCEPTED``: hunks the person rejected, of ``hunks``
    hunks: int = 0

    @property
    def command(self) -> str:
        return shlex.join(self.argv)

    @property
    def subject(self) -> str:
        """What it ran on, in words."""
        if self.on is On.PROPOSAL:
            return "the proposed change"
        if self.rejected:
            return f"what you accepted ({self.rejected} of {self.hunks} hunks rejected)"
        return "what you accepted"

    def line(self) -> str:
        """The verdict in one line a person reads (model-chosen text made visible)."""
        head = f"tests `{visible(self.command)}`"
        run = self.run
        if self.status is Status.NOT_RUN:
            return f"{head}: not run on {self.subject}: {self.why}."
        assert run is not None
        if self.status is Status.STALE:
            return (
                f"{head}: not run on {self.subject}; its last run was on an earlier state "
                f"({visible(run.result())}), and {self.why}."
            )
        failing = run.counts.failing
        names = f"; failing: {', '.join(visible(n) for n in failing)}" if failing else ""
        text = (
            f"{head}: {visible(run.result())} on {self.subject}{names}; run by {_BY[run.by]}, "
            f"{run.where}, in a copy of the workspace, {run.seconds:.1f} s"
        )
        if self.baseline is not None and self.baseline is not run:
            text += f"; on the untouched workspace: {visible(self.baseline.result())}"
        return text + "."

    def short(self) -> str:
        """A few words for a label: ``41 passed``, ``2 failed``, ``stale``, ``not run``."""
        if self.run is None or self.status is Status.NOT_RUN:
            return "not run"
        if self.status is Status.STALE:
            return "stale"
        if self.status is Status.ERROR:
            return "error"
        counts = self.run.counts
        if self.status is Status.FAILED:
            return f"{counts.failed} failed" if counts.failed else "failed"
        return f"{counts.passed} passed" if counts.passed else "passed"

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "command": visible(self.command),
            "argv": list(self.argv),
            "status": self.status.value,
            "on": self.on.value,
            "line": self.line(),
            "short": self.short(),
            "why": visible(self.why),
            "run": self.run.as_json() if self.run else None,
            "baseline": self.baseline.as_json() if self.baseline else None,
        }
        if self.on is On.ACCEPTED:
            data.update(rejected=self.rejected, hunks=self.hunks)
        return data


def checkable(verdicts: Sequence[Verdict]) -> list[tuple[str, ...]]:
    """The commands worth running on a part of the proposal: those that ran and read as
    passing or failing tests (one that could not run would not run there either)."""
    return [v.argv for v in verdicts if v.status in (Status.PASSED, Status.FAILED, Status.STALE)]


def broken_by_leaving_out(proposed: Sequence[Verdict], accepted: Sequence[Verdict]) -> bool:
    """Whether tests fail on the accepted part that did not fail on the whole proposal
    (more of them, or others): what was left out mattered to them."""
    before = {v.argv: v.run for v in proposed if v.status is not Status.STALE}
    for verdict in accepted:
        if verdict.status is not Status.FAILED or verdict.run is None:
            continue
        whole = before.get(verdict.argv)
        if whole is None or whole.status is not Status.FAILED:
            return True
        now, then = verdict.run.counts, whole.counts
        if (now.failed or 0) > (then.failed or 0) or set(now.failing) - set(then.failing):
            return True
    return False


def headline(verdicts: Sequence[Verdict]) -> str:
    """``tests: 41 passed`` / ``tests: 2 failed`` ... for a label; "" without verdicts."""
    if not verdicts:
        return ""
    return "tests: " + "; ".join(v.short() for v in verdicts)


def summary(verdicts: Sequence[Verdict]) -> str:
    """Every verdict's line, one after the other."""
    return " ".join(v.line() for v in verdicts)


def for_model(proposed: Sequence[Verdict], accepted: Sequence[Verdict]) -> str:
    """What the model hears about the tests with the outcome ("" when none ran)."""
    lines = [v.line() for v in (*proposed, *accepted)]
    return "\n".join(["The tests, as surehand ran them after your turn:", *lines]) if lines else ""


def state_of(texts: Mapping[str, str | None]) -> str:
    """A digest of the texts that differ from the disk: equal digests, equal states."""
    digest = hashlib.sha256()
    for path in sorted(texts):
        text = texts[path]
        digest.update(f"{len(path)}:{path}".encode())
        digest.update(b"-" if text is None else f"{len(text)}:".encode() + text.encode())
    return digest.hexdigest()[:16]


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
