"""A session's copy kept for the next session of the same workspace, and the
sync's look at what commands changed (``find -cnewer``, ``agent.execution.shadow_changes``).

The copy taken back must show a command exactly what a copy made anew
shows: what the last session's commands changed, deleted or made is put
back or removed; real repositories, real commands, in bubblewrap and without
a sandbox.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.execution import shadow as shadow_module
from agent.execution.runner import ShadowRunner
from agent.execution.sandbox.base import Sandbox, Unsandboxed
from agent.execution.shadow import ShadowCopy, discard_kept
from agent.staging.workspace import Overlay
from tests.agent.test_shadow_overlay import sandbox_for
from tests.agent.test_shadow_overlay_property import (
    LIST,
    command_for,
    make_workspace,
    run,
    steps,
    user_step,
)


@pytest.fixture(autouse=True, params=["find", "lstat"])
def nothing_kept(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test with nothing kept before or after it, the copy's changes asked of find
    (as for a big tree) and looked at file by file (as for a small one)."""
    monkeypatch.setattr(shadow_module, "FIND_FROM", 0 if request.param == "find" else 10**9)
    discard_kept()
    yield
    discard_kept()


@pytest.fixture(scope="module", params=["bubblewrap", "none"])
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    return sandbox_for("copy") if request.param == "bubblewrap" else Unsandboxed("none asked for")


def sh(runner: ShadowRunner, script: str) -> str:
    return run(runner, script)


def test_the_next_session_takes_the_copy_back_and_sees_it_fresh(
    tmp_path: Path, sandbox: Sandbox
) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    first = ShadowRunner(Overlay(root), sandbox=sandbox)
    first.overlay.stage("a.txt", "staged by the first session\n", "x")
    made = "echo new > made.txt; mkdir -p out/deep && echo o > out/deep/o.txt; "
    changed = "echo changed >> d/b.txt; rm d/e/c.txt; chmod -x run.sh"
    assert sh(first, made + changed).startswith("0\n")
    assert first.shadow is not None
    folder = first.shadow.folder
    first.close()
    assert folder.exists()  # kept for the next session

    (root / "d/b.txt").write_text("the user's\n")  # changed while no session ran
    second = ShadowRunner(Overlay(root), sandbox=sandbox)
    second.overlay.stage("new.txt", "staged by the second\n", "x")
    try:
        listing = sh(second, LIST)
        assert second.shadow is not None and second.shadow.folder == folder
        assert not (folder / "copy/made.txt").exists()
        assert not (folder / "copy/out").exists()
    finally:
        second.close()
    discard_kept()
    assert not folder.exists()
    third = ShadowRunner(Overlay(root), sandbox=sandbox)  # nothing kept now: a new copy
    third.overlay.stage("new.txt", "staged by the second\n", "x")
    try:
        assert sh(third, LIST) == listing
        assert third.shadow is not None and third.shadow.folder != folder
    finally:
        third.close()
    assert "by the first session" not in listing and "the user's" in listing
    assert "changed" not in listing and "./run.sh 755" in listing


def test_a_file_rewritten_with_its_old_size_and_time_is_put_back(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    with ShadowCopy(root) as copy:
        target = copy.root / "a.txt"
        before = target.stat()
        target.write_text("A\n")  # the same size
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        report = copy.write({})
        assert report.written == ["a.txt"]
        assert target.read_text() == "a\n"


def test_without_find_every_file_is_looked_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    tools = tmp_path / "bin"
    tools.mkdir()
    git = shutil.which("git")
    assert git is not None
    (tools / "git").symlink_to(git)
    with ShadowCopy(root) as copy:
        monkeypatch.setenv("PATH", str(tools))  # git is there, find is not
        (copy.root / "d/e/c.txt").write_text("by a command\n")
        (copy.root / "a.txt").unlink()
        assert sorted(copy.write({}).written) == ["a.txt", "d/e/c.txt"]
        assert (copy.root / "d/e/c.txt").read_text() == "c\n"
        copy.close(keep=True)
        reopened = ShadowCopy.open(root)  # what commands made cannot be told: a new copy
        assert reopened is not copy
        assert not copy.folder.exists()
        reopened.close()


def test_one_copy_is_kept_at_a_time_and_only_for_its_workspace(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    make_workspace(one)
    make_workspace(two)
    first = ShadowCopy(one)
    first.close(keep=True)
    other = ShadowCopy.open(two)
    assert other is not first and first.folder.exists()
    other.close(keep=True)
    assert not first.folder.exists()  # the older one goes
    linked = ShadowCopy.open(two, mount_points=True)  # another kind of copy: made anew
    assert linked is not other
    linked.close()
    discard_kept()
    assert not other.folder.exists()


def test_the_kept_copy_is_removed_when_the_process_exits(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    script = (
        "import sys; from pathlib import Path; from agent.execution.shadow import ShadowCopy\n"
        "copy = ShadowCopy(Path(sys.argv[1])); print(copy.folder); copy.close(keep=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(shadow_module.__file__).parents[2])}
    done = asyncio.run(_output([sys.executable, "-c", script, str(root)], env))
    folder = Path(done.strip())
    assert folder.name.startswith("surehand-shadow-") and not folder.exists()


async def _output(argv: list[str], env: dict[str, str]) -> str:
    process = await asyncio.create_subprocess_exec(*argv, env=env, stdout=asyncio.subprocess.PIPE)
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0
    return out.decode()


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(steps, min_size=1, max_size=6), st.lists(steps, max_size=3))
def test_a_copy_taken_back_shows_what_a_new_copy_shows(
    sandbox: Sandbox,
    first_plan: list[tuple[str, str, str]],
    second_plan: list[tuple[str, str, str]],
) -> None:
    """Random steps in a session, then in the next: a command of the next sees in the
    copy taken back exactly what it sees in a copy made anew."""
    discard_kept()
    with tempfile.TemporaryDirectory(prefix="surehand-test-reuse-") as folder:
        root = Path(folder) / "ws"
        make_workspace(root)
        runner = ShadowRunner(Overlay(root), sandbox=sandbox)
        try:
            run(runner, "true")  # the copy is made
            _play(runner, root, first_plan)
            assert runner.shadow is not None
            kept = runner.shadow.folder
        finally:
            runner.close()
        again = ShadowRunner(Overlay(root), sandbox=sandbox)
        fresh = ShadowRunner(Overlay(root), sandbox=sandbox)
        try:
            for each in (again, fresh):
                each.overlay.stage("a.txt", "staged again\n", "x")
            assert run(again, LIST) == run(fresh, LIST), first_plan
            assert again.shadow is not None and fresh.shadow is not None
            assert again.shadow.folder == kept != fresh.shadow.folder
            _play(again, root, second_plan, fresh)
            assert run(again, LIST) == run(fresh, LIST), (first_plan, second_plan)
        finally:
            again.close()
            fresh.close()
            discard_kept()


def _play(
    runner: ShadowRunner,
    root: Path,
    plan: list[tuple[str, str, str]],
    twin: ShadowRunner | None = None,
) -> None:
    """Each step on ``runner`` (and its twin, which shares the workspace); a user's
    step once on the workspace."""
    for kind, path, arg in plan:
        if kind == "user":
            user_step(root, path, arg)
            continue
        for each in (runner, twin) if twin is not None else (runner,):
            if kind == "stage":
                each.overlay.stage(path, arg, "x")
            elif kind == "stage_delete":
                if each.overlay.text(path) is not None:
                    each.overlay.stage(path, None, "x")
            elif kind == "discard":
                each.overlay.discard(path)
            else:
                run(each, command_for(path, arg))
