"""The tests' verdict a proposal carries: each test command's result on exactly what is proposed.

A ``Verdict`` says how one of the project's test commands fared on the
proposal (or on the part the person accepted): passed, failed (with the
failing tests' names), an error, stale (its last run was on an earlier
state), or not run, and why; with the run it rests on (who ran it, how it
was contained, on which state) and the run of the untouched workspace when
there was one (the baseline), so a failure that was there before the change
reads as such. The words for people and for the model are here too. The
verdicts are made by ``agent.loop.test_checks``.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from agent.checks.suite_results import Counts
from editing.visible import visible

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
