"""The tests' verdict a proposal carries, from real test runs in the sandbox's copy.

A small Python project (pytest from its own virtualenv) and a small Node
project (``npm test`` running ``node --test``), the real OpenAI client
against a scripted server: a proposal whose tests pass, one whose tests
fail with the failing names, a stale verdict run again, a partial accept
that breaks the suite and one that keeps it green; nothing written to the
workspace by any of these runs.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agent.checks.verdicts import Status
from agent.config.settings import Settings
from agent.loop.session import Session
from agent.models.openai_client import OpenAIClient
from agent.staging.hunks import apply
from agent.staging.proposal import Proposal
from agent.trace import read_trace
from tests.agent.overlay_support import git
from tests.agent.sandboxes import bubblewrap
from tests.agent.test_sandbox_attacks import RUNNER_PACKAGES, make_venv_with_pytest
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import task_sent

pytestmark = pytest.mark.slow

CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return sum([a, b])\n"
TESTS = (
    "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
)
PYTEST = Call("run_command", {"command": "pytest -q", "timeout": None})


def edit(path: str, old: str, new: str, why: str) -> Call:
    return Call(
        "edit",
        {"path": path, "old": old, "new": new, "replace_all": None, "description": why},
    )


FIX_ADD = edit("calc.py", "return a - b\n", "return a + b\n", "add adds")
FIX_MUL = edit("calc.py", "sum([a, b])", "a * b", "mul multiplies")
FINISH = Call("finish", {"summary": "done"})


@pytest.fixture
def python_project(tmp_path: Path) -> Path:
    root = tmp_path / "calc"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text(CALC)
    (root / "tests/test_calc.py").write_text(TESTS)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / ".gitignore").write_text(".venv/\n")
    make_venv_with_pytest(root / ".venv")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "start")
    return root


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of the workspace outside .git and .venv: its bytes and mtime."""
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {".git", ".venv"} & set(p.relative_to(root).parts)
    }


def settings_for(server: ScriptedServer, tmp_path: Path, **more: Any) -> Settings:
    bubblewrap()  # skips (or fails in CI) where there is no sandbox
    return Settings(
        model=server.model,
        base_url=server.base_url,
        trace_dir=str(tmp_path / "traces"),
        sandbox="bubblewrap",
        sandbox_read_only_paths=(RUNNER_PACKAGES,),
        **more,
    )


def run_task(root: Path, settings: Settings, then: Any = None) -> tuple[Proposal, Any]:
    async def work() -> tuple[Proposal, Any]:
        session = Session(root, OpenAIClient(settings, backoff=0.01), settings)
        try:
            proposal = await session.run("Fix calc.")
            return proposal, (await then(session, proposal) if then else None)
        finally:
            await session.close()

    return asyncio.run(work())


def only(verdicts: Sequence[Any]) -> Any:
    assert len(verdicts) == 1, verdicts
    return verdicts[0]


def test_a_proposal_whose_tests_pass_carries_the_models_run_and_the_baseline(
    python_project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    openai_server.add(
        Turn(tool_calls=[PYTEST]),
        Turn(tool_calls=[FIX_ADD]),
        Turn(tool_calls=[FIX_MUL]),
        Turn(tool_calls=[PYTEST]),
        Turn(tool_calls=[FINISH]),
    )
    before = snapshot(python_project)
    proposal, _ = run_task(python_project, settings_for(openai_server, tmp_path))

    verdict = only(proposal.tests)
    assert verdict.argv == ("pytest", "-q") and verdict.status is Status.PASSED
    assert verdict.run.by == "model" and verdict.run.counts.passed == 3
    assert verdict.baseline.status is Status.FAILED and verdict.baseline.counts.failed == 2
    line = verdict.line()
    assert "3 passed on the proposed change; run by the model, sandboxed (bubblewrap" in line
    assert "on the untouched workspace: 2 failed, 1 passed" in line
    assert snapshot(python_project) == before
    assert proposal.trace is not None
    entries = [e for e in read_trace(proposal.trace) if e["type"] == "tests"]
    assert [e["on"] for e in entries] == ["proposal"]
    assert entries[0]["verdicts"][0]["run"]["state"] == verdict.run.state


def test_failing_tests_are_named_and_a_stale_run_is_run_again(
    python_project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    # The model runs the tests after its first edit only: that run is stale at the end.
    openai_server.add(
        Turn(tool_calls=[FIX_ADD]),
        Turn(tool_calls=[PYTEST]),
        Turn(tool_calls=[edit("calc.py", "sum([a, b])", "a ** b", "mul powers")]),
        Turn(tool_calls=[FINISH]),
        Turn(content="Noted."),  # the next task, to read what the model is told
    )
    before = snapshot(python_project)

    async def next_task(session: Session, proposal: Proposal) -> Any:
        return await session.run("Next.")

    proposal, _ = run_task(python_project, settings_for(openai_server, tmp_path), next_task)

    verdict = only(proposal.tests)
    assert verdict.status is Status.FAILED and verdict.run.by == "surehand"
    assert verdict.run.counts.failed == 1 and verdict.run.counts.passed == 2
    assert verdict.run.counts.failing == ("tests/test_calc.py::test_mul",)
    assert "; failing: tests/test_calc.py::test_mul; run by surehand" in verdict.line()
    assert snapshot(python_project) == before
    told = task_sent(openai_server)
    assert told.startswith("The tests, as surehand ran them after your turn:\ntests `pytest -q`")
    assert "1 failed, 2 passed on the proposed change" in told


def test_a_stale_run_is_said_to_be_stale_when_checking_is_off(
    python_project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    openai_server.add(
        Turn(tool_calls=[FIX_ADD]),
        Turn(tool_calls=[PYTEST]),
        Turn(tool_calls=[FIX_MUL]),
        Turn(tool_calls=[FINISH]),
    )
    settings = settings_for(openai_server, tmp_path, tests_before_review=False)
    proposal, _ = run_task(python_project, settings)

    verdict = only(proposal.tests)
    assert verdict.status is Status.STALE and verdict.run.counts.failed == 1
    assert "its last run was on an earlier state (1 failed, 2 passed)" in verdict.line()
    assert "testsBeforeReview" in verdict.line()


def test_partial_accepts_are_checked_before_anything_is_written(
    python_project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    openai_server.add(
        Turn(tool_calls=[FIX_ADD, FIX_MUL]),
        Turn(tool_calls=[PYTEST]),
        Turn(tool_calls=[FINISH]),
    )
    before = snapshot(python_project)

    async def accept_parts(session: Session, proposal: Proposal) -> Any:
        (change,) = proposal.changes
        assert len(change.hunks) == 2
        argvs = [v.argv for v in proposal.tests]
        assert change.before is not None
        only_add = apply(change.before, [change.hunks[0]])
        broken = await session.check_accepted(argvs, {"calc.py": only_add}, rejected=1, hunks=2)
        both = await session.check_accepted(argvs, {"calc.py": change.after}, rejected=0, hunks=2)
        return broken, both

    proposal, (broken, both) = run_task(
        python_project, settings_for(openai_server, tmp_path), accept_parts
    )
    assert only(proposal.tests).status is Status.PASSED
    broken = only(broken)
    assert broken.status is Status.FAILED
    assert broken.run.counts.failing == ("tests/test_calc.py::test_mul",)
    assert "on what you accepted (1 of 2 hunks rejected)" in broken.line()
    assert only(both).status is Status.PASSED
    assert snapshot(python_project) == before
    assert proposal.trace is not None
    entries = [e for e in read_trace(proposal.trace) if e["type"] == "tests"]
    assert [e["on"] for e in entries] == ["proposal", "accepted", "accepted"]


def test_without_a_sandbox_nothing_runs_unasked(
    python_project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    openai_server.add(Turn(tool_calls=[FIX_ADD]), Turn(tool_calls=[FINISH]))
    settings = settings_for(openai_server, tmp_path).replace(sandbox="off")
    proposal, _ = run_task(python_project, settings)

    verdict = only(proposal.tests)  # found from the layout: pyproject.toml's pytest section
    assert verdict.argv == ("python3", "-m", "pytest", "-q")
    assert verdict.status is Status.NOT_RUN and verdict.run is None
    assert "there is no sandbox" in verdict.why


@pytest.mark.skipif(not shutil.which("npm"), reason="npm is not installed")
def test_a_node_project_found_from_package_json(openai_server: ScriptedServer, tmp_path: Path):
    root = tmp_path / "web"
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text(
        '{"name": "web", "version": "1.0.0", "scripts": {"test": "node --test"}}\n'
    )
    (root / "sum.js").write_text("exports.sum = (a, b) => a - b;\n")
    (root / "test/sum.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { sum } = require('../sum');\n"
        "test('sums', () => assert.strictEqual(sum(2, 3), 5));\n"
        "test('sums zero', () => assert.strictEqual(sum(0, 0), 0));\n"
    )
    openai_server.add(
        Turn(tool_calls=[edit("sum.js", "a - b", "a * b", "sum")]),
        Turn(tool_calls=[FINISH]),
    )
    before = snapshot(root)
    proposal, _ = run_task(root, settings_for(openai_server, tmp_path))

    verdict = only(proposal.tests)
    assert verdict.argv == ("npm", "test") and verdict.run.by == "surehand"
    assert verdict.status is Status.FAILED, verdict.run
    assert (verdict.run.counts.passed, verdict.run.counts.failed) == (1, 1)
    assert verdict.run.counts.failing == ("sums",)
    assert snapshot(root) == before
