"""The overlay and the copy agree: random staging, commands and user edits, seen by a command.

Each example runs the same steps against a copy and an overlay of two
identical workspaces (real bubblewrap, real overlayfs), and after each
step a command lists every file it sees (path, mode, content): the two
listings must be equal, and neither workspace may change but by the
user's own steps. The workspace holds no ignored file and no build
output, where the two differ by design; a deletion is staged only for a
file there is (on disk or staged), as the engine stages them.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.config.settings import Settings
from agent.execution.runner import ShadowRunner
from agent.staging.workspace import Overlay
from tests.agent.overlay_support import git, write_files
from tests.agent.test_shadow_overlay import sandbox_for, snapshot

SETTINGS = Settings(output_max_chars=50_000)
START = {"a.txt": "a\n", "d/b.txt": "b\n", "d/e/c.txt": "c\n", "run.sh": "#!/bin/sh\n"}
PATHS = ["a.txt", "d/b.txt", "d/e/c.txt", "run.sh", "new.txt", "d/new.txt", "x/y.txt"]
LIST = (
    "find . -path ./.git -prune -o \\( -type f -o -type l \\) -printf '%p %m\\n' | sort; "
    "find . -path ./.git -prune -o -type f -print | sort | while read f; do "
    'echo "== $f"; cat "$f"; done'
)

texts = st.sampled_from(["one\n", "two, longer\n", ""])
paths = st.sampled_from(PATHS)
steps = st.one_of(
    st.tuples(st.just("stage"), paths, texts),
    st.tuples(st.just("stage_delete"), paths, st.just("")),
    st.tuples(st.just("discard"), paths, st.just("")),
    st.tuples(st.just("command"), paths, st.sampled_from(["write", "rm", "chmod", "mkdir"])),
    st.tuples(st.just("command"), st.just("d"), st.sampled_from(["replace_folder", "rm_folder"])),
    st.tuples(st.just("command"), paths, st.just("link")),
    st.tuples(st.just("user"), paths, st.sampled_from(["write", "rm"])),
)


def command_for(path: str, action: str) -> str:
    parent = Path(path).parent.as_posix()
    return {
        "write": f"mkdir -p {parent} && echo by-command >> {path}",
        "rm": f"rm -f {path}",
        "chmod": f"chmod +x {path} 2>/dev/null; true",
        "mkdir": f"rm -rf {path}; mkdir -p {path} && echo inside > {path}/in.txt",
        "replace_folder": f"rm -rf {path} && mkdir {path} && echo fresh > {path}/fresh.txt",
        "rm_folder": f"rm -rf {path}",
        "link": f"mkdir -p {parent} && rm -rf {path} && ln -s /etc/hostname {path}",
    }[action]


def user_step(root: Path, path: str, action: str) -> None:
    target = root / path
    if action == "write":
        if target.is_dir():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"by-user {path}\n")
    elif target.is_file():
        target.unlink()


def make_workspace(root: Path) -> None:
    write_files(root, START)
    (root / "run.sh").chmod(0o755)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")


def run(runner: ShadowRunner, script: str) -> str:
    result = asyncio.run(runner.run(["/bin/sh", "-c", script], 30, SETTINGS))
    return f"{result.exit_code}\n{result.output}"


@pytest.fixture(autouse=True)
def changes_asked_of_find(monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy asks find what commands changed, as for a big tree (these are small)."""
    monkeypatch.setattr("agent.execution.shadow.FIND_FROM", 0)


@pytest.fixture(scope="module")
def sandboxes():
    return sandbox_for("copy"), sandbox_for("overlay")


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(steps, min_size=1, max_size=7))
def test_the_overlay_shows_what_the_copy_shows(sandboxes, plan):
    copy_sandbox, overlay_sandbox = sandboxes
    with tempfile.TemporaryDirectory(prefix="surehand-test-property-") as folder:
        roots = [Path(folder) / "copy-ws", Path(folder) / "overlay-ws"]
        for root in roots:
            make_workspace(root)
        runners = [
            ShadowRunner(Overlay(roots[0]), sandbox=copy_sandbox),
            ShadowRunner(Overlay(roots[1]), sandbox=overlay_sandbox),
        ]
        try:
            for kind, path, arg in plan:
                for root, runner in zip(roots, runners, strict=True):
                    before = snapshot(root)
                    if kind == "stage":
                        runner.overlay.stage(path, arg, "x")
                    elif kind == "stage_delete":
                        if runner.overlay.text(path) is None:
                            continue  # the engine deletes only a file there is
                        runner.overlay.stage(path, None, "x")
                    elif kind == "discard":
                        runner.overlay.discard(path)
                    elif kind == "user":
                        user_step(root, path, arg)
                        continue
                    else:
                        run(runner, command_for(path, arg))
                    assert snapshot(root) == before, "a command or the staging changed the disk"
                seen = [run(runner, LIST) for runner in runners]
                assert seen[0] == seen[1], f"{plan}\ncopy:\n{seen[0]}\noverlay:\n{seen[1]}"
        finally:
            for runner in runners:
                runner.close()
    assert [runner.shadow for runner in runners] == [None, None]
