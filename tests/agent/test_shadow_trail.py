"""When the copy looks at what a command changed (``shadow_changes.CommandTrail``).

After a contained command (bubblewrap: its processes die with it), ``find``
looks at the copy as the command ends, and the sync before the next command
runs no find of its own; a kept copy is taken back without one either.
After a command that may have left a process running (no sandbox), or one
killed at its time limit, the sync looks again, as late as it can: what a
leftover process wrote after the command ended is still put back. The
finds are counted by a ``find`` on PATH that logs each run, then runs the
real one.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.execution import shadow as shadow_module
from agent.execution.runner import ShadowRunner
from agent.execution.sandbox.base import Sandbox, Unsandboxed
from agent.execution.shadow import discard_kept
from agent.staging.workspace import Overlay
from tests.agent.test_shadow_overlay import sandbox_for
from tests.agent.test_shadow_overlay_property import SETTINGS, make_workspace, run


@pytest.fixture(autouse=True, params=["find", "lstat"])
def nothing_kept(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As for a big tree (a sync with nothing found asks find) and a small one (it looks
    at each file), with nothing kept before or after."""
    monkeypatch.setattr(shadow_module, "FIND_FROM", 0 if request.param == "find" else 10**9)
    discard_kept()
    yield
    discard_kept()


@pytest.fixture
def finds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The log of every ``find`` the copy starts: one line each."""
    real = shutil.which("find")
    assert real is not None
    tools, log = tmp_path / "bin", tmp_path / "finds.log"
    tools.mkdir()
    wrapper = tools / "find"
    wrapper.write_text(f'#!/bin/sh\necho run >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    log.write_text("")
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    return log


def count(log: Path, expected: int) -> int:
    """How many finds ran, once ``expected`` have (or ten seconds passed): the one a
    command's end starts may not have begun yet. A sync's own find has begun by
    the time its command's output is back."""
    deadline = time.monotonic() + 10
    while len(log.read_text().splitlines()) < expected and time.monotonic() < deadline:
        time.sleep(0.02)
    return len(log.read_text().splitlines())


def aged(root: Path) -> None:
    """The workspace's files made an hour ago: a sync looks again at files changed in the
    last seconds whatever commands did, which would hide what it does not look at."""
    hour_ago = time.time_ns() - 3600 * 10**9
    for path in root.rglob("*"):
        if ".git" not in path.relative_to(root).parts and not path.is_symlink():
            os.utime(path, ns=(hour_ago, hour_ago))


def cat(runner: ShadowRunner, path: str) -> str:
    return run(runner, f"cat {path}")


def test_a_contained_commands_changes_are_found_as_it_ends(tmp_path: Path, finds: Path) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    aged(root)
    runner = ShadowRunner(Overlay(root), sandbox=sandbox_for("copy"))
    try:
        assert run(runner, "true").startswith("0\n")  # the copy is made
        assert count(finds, 1) == 1  # as the command ended
        changed = "echo by-command >> a.txt; rm d/e/c.txt; echo new > made.txt"
        assert run(runner, changed).startswith("0\n")
        assert count(finds, 2) == 2  # the sync before it ran none
        assert cat(runner, "a.txt") == "0\na\n"
        assert cat(runner, "d/e/c.txt") == "0\nc\n"
        assert count(finds, 4) == 4  # one for each command, none for the syncs
        assert cat(runner, "made.txt") == "0\nnew\n"  # what commands made is left
    finally:
        runner.close()


def test_a_kept_copy_is_taken_back_without_another_look(tmp_path: Path, finds: Path) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    aged(root)
    first = ShadowRunner(Overlay(root), sandbox=sandbox_for("copy"))
    assert run(first, "mkdir -p out/deep && echo o > out/deep/o.txt").startswith("0\n")
    assert run(first, "echo new > made.txt; echo changed >> d/b.txt").startswith("0\n")
    assert first.shadow is not None
    folder = first.shadow.folder
    first.close()
    before = count(finds, 2)
    second = ShadowRunner(Overlay(root), sandbox=sandbox_for("copy"))
    try:
        listing = run(second, "ls; cat d/b.txt")
        assert second.shadow is not None and second.shadow.folder == folder
        assert "made.txt" not in listing and "out" not in listing.split()
        assert listing.endswith("b\n") and "changed" not in listing
        assert count(finds, before + 1) == before + 1  # the new command's only
    finally:
        second.close()


@pytest.mark.parametrize("sandbox", [Unsandboxed("none asked for"), None], ids=["none", "bwrap"])
def test_what_a_process_left_running_writes_later_is_put_back(
    tmp_path: Path, sandbox: Sandbox | None
) -> None:
    """A process that leaves the command's group writes after the command ended: with
    no sandbox it can; the next command still sees the copy as the workspace is."""
    root = tmp_path / "ws"
    make_workspace(root)
    aged(root)
    runner = ShadowRunner(Overlay(root), sandbox=sandbox or sandbox_for("copy"))
    stray = "setsid sh -c 'sleep 0.5; echo stray > a.txt; rm d/b.txt' >/dev/null 2>&1 & sleep 0.2"
    try:
        assert run(runner, "true").startswith("0\n")  # the copy made and looked at
        time.sleep(0.3)  # what its set-up wrote is older than the look's margin
        assert run(runner, stray).startswith("0\n")
        assert runner.shadow is not None
        copy = runner.shadow.root
        time.sleep(1.5)
        if sandbox is not None:
            assert (copy / "a.txt").read_text() == "stray\n"  # it did outlive the command
        else:
            assert (copy / "a.txt").read_text() == "a\n"  # killed with the sandbox
        assert cat(runner, "a.txt") == "0\na\n"
        assert cat(runner, "d/b.txt") == "0\nb\n"
    finally:
        runner.close()


def test_a_command_killed_at_its_time_limit_is_looked_at_by_the_sync(
    tmp_path: Path, finds: Path
) -> None:
    """Its processes may still be dying as it ends: no look then; the sync looks (find in
    a big copy, each file in a small one) and puts back what it changed."""
    root = tmp_path / "ws"
    make_workspace(root)
    runner = ShadowRunner(Overlay(root), sandbox=sandbox_for("copy"))
    try:
        assert run(runner, "true").startswith("0\n")
        assert count(finds, 1) == 1  # as that command ended
        script = "echo late >> a.txt; sleep 30"
        result = asyncio.run(runner.run(["/bin/sh", "-c", script], 1, SETTINGS))
        assert result.exit_code is None  # stopped at its limit
        time.sleep(0.5)
        assert count(finds, 1) == 1  # none as it was killed
        assert cat(runner, "a.txt") == "0\na\n"
    finally:
        runner.close()


def test_a_runner_closed_while_its_command_runs_ends_it_quietly(tmp_path: Path) -> None:
    """As when the server exits mid-command: the session's runner lets go of the copy, then
    the command is cancelled; the run ends cancelled, nothing else raised."""
    root = tmp_path / "ws"
    make_workspace(root)
    runner = ShadowRunner(Overlay(root), sandbox=sandbox_for("copy"))

    async def close_then_cancel() -> None:
        argv = ["/bin/sh", "-c", "sleep 30"]
        running = asyncio.ensure_future(runner.run(argv, 60, SETTINGS))
        deadline = time.monotonic() + 30
        while runner.shadow is None and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.5)  # the command has started
        runner.close()
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    asyncio.run(close_then_cancel())
