"""Syncing the shadow copy of a git repository from what changed, not from a scan.

Between commands the copy takes what the overlay staged or dropped, what
git says changed in the workspace, and what the last command changed in the
copy; real repositories, real files, real commands.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.execution.runner import ShadowRunner
from agent.execution.shadow import ShadowCopy, discard_kept
from agent.staging.workspace import Overlay
from tests.agent.overlay_support import git, write_files
from tests.agent.sandboxes import sandbox  # noqa: F401 - a fixture
from tests.agent.test_shadow import files_in

FILES = {
    ".gitignore": "*.log\nnode_modules/\n",
    "app.py": "VALUE = 1\n",
    "pkg/util.py": "def f():\n    return 1\n",
    "pkg/more.py": "MORE = 1\n",
    "run.log": "ignored\n",
    "node_modules/left-pad/index.js": "module.exports = 1;\n",
}


def commit_all(root: Path, message: str = "x") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write_files(root, FILES)
    git(root, "init", "-q")
    commit_all(root)
    return root


@pytest.fixture
def shadow(repo: Path) -> Iterator[ShadowCopy]:
    with ShadowCopy(repo) as copy:
        yield copy


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``root`` (``.git`` included): its digest and mtime."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            data = path.read_bytes() if not path.is_symlink() else os.fsencode(path.readlink())
            found[path.relative_to(root).as_posix()] = (
                hashlib.sha256(data).hexdigest(),
                path.lstat().st_mtime_ns,
            )
    return found


def text(shadow: ShadowCopy, rel: str) -> str:
    return (shadow.root / rel).read_text()


def test_set_up_copies_the_tracked_and_untracked_files(shadow: ShadowCopy):
    assert files_in(shadow.root) == {".gitignore", "app.py", "pkg/util.py", "pkg/more.py"} | {
        ".git",
        "node_modules",
    }
    assert sorted(shadow.setup.written) == [".gitignore", "app.py", "pkg/more.py", "pkg/util.py"]


def test_a_staged_file_appears_and_nothing_else_is_written(shadow: ShadowCopy):
    report = shadow.write({"app.py": "VALUE = 2\n", "pkg/new.py": "NEW = 1\n"})
    assert sorted(report.written) == ["app.py", "pkg/new.py"]
    assert (text(shadow, "app.py"), text(shadow, "pkg/new.py")) == ("VALUE = 2\n", "NEW = 1\n")
    again = shadow.write({"app.py": "VALUE = 2\n", "pkg/new.py": "NEW = 1\n"})
    assert (again.written, again.removed, again.refused) == ([], [], [])


def test_a_file_deleted_in_the_overlay_disappears_and_comes_back_when_discarded(
    repo: Path, shadow: ShadowCopy
):
    overlay = Overlay(repo)
    overlay.stage("pkg/util.py", None, "remove util")
    overlay.stage("extra.py", "X = 1\n", "add extra")
    report = shadow.write(overlay.overlaid())
    assert (report.written, report.removed) == (["extra.py"], ["pkg/util.py"])
    assert not (shadow.root / "pkg/util.py").exists()
    assert (repo / "pkg/util.py").exists()
    overlay.discard()
    report = shadow.write(overlay.overlaid())
    assert (report.written, report.removed) == (["pkg/util.py"], ["extra.py"])
    assert text(shadow, "pkg/util.py") == FILES["pkg/util.py"]
    assert not (shadow.root / "extra.py").exists()


def test_the_users_changes_between_commands_are_seen(repo: Path, shadow: ShadowCopy):
    (repo / "app.py").write_text("VALUE = 100\n")
    (repo / "pkg/added.py").write_text("ADDED = 1\n")
    (repo / "pkg/more.py").unlink()
    report = shadow.write({})
    assert sorted(report.written) == ["app.py", "pkg/added.py"]
    assert report.removed == ["pkg/more.py"]
    assert (text(shadow, "app.py"), text(shadow, "pkg/added.py")) == (
        "VALUE = 100\n",
        "ADDED = 1\n",
    )
    # Back as it was committed: git no longer lists it, and the copy still follows.
    (repo / "app.py").write_text(FILES["app.py"])
    (repo / "pkg/added.py").unlink()
    report = shadow.write({})
    assert (report.written, report.removed) == (["app.py"], ["pkg/added.py"])
    assert text(shadow, "app.py") == FILES["app.py"]


def test_a_commit_or_a_checkout_between_commands_is_seen(repo: Path, shadow: ShadowCopy):
    (repo / "app.py").write_text("VALUE = 2\n")
    commit_all(repo, "two")
    assert shadow.write({}).written == ["app.py"]
    assert text(shadow, "app.py") == "VALUE = 2\n"
    git(repo, "checkout", "-q", "HEAD~1")
    assert shadow.write({}).written == ["app.py"]
    assert text(shadow, "app.py") == FILES["app.py"]


def made_an_hour_ago(root: Path) -> int:
    """Give every file an mtime of an hour ago (files changed just now are looked at again)."""
    hour_ago = time.time_ns() - 3600 * 10**9
    for name in FILES:
        os.utime(root / name, ns=(hour_ago, hour_ago))
    return hour_ago


def test_a_file_touched_but_unchanged_is_not_copied_again(repo: Path):
    """Git says it is unchanged; a scan would see a new mtime and copy it again."""
    hour_ago = made_an_hour_ago(repo)
    with ShadowCopy(repo) as shadow:
        os.utime(repo / "app.py", ns=(hour_ago + 10**9, hour_ago + 10**9))
        report = shadow.write({})
        assert (report.written, report.removed) == ([], [])


def test_a_changed_gitignore_is_scanned_for_once(repo: Path):
    hour_ago = made_an_hour_ago(repo)
    with ShadowCopy(repo) as shadow:
        write_files(repo, {"data/x.csv": "a\n", ".gitignore": FILES[".gitignore"] + "data/\n"})
        assert shadow.write({}).written == [".gitignore"]
        assert "data" in shadow.links
        os.utime(repo / "app.py", ns=(hour_ago + 10**9, hour_ago + 10**9))
        report = shadow.write({})  # .gitignore still differs from the commit, as it was
        assert (report.written, report.removed) == ([], [])
        (repo / ".gitignore").write_text(FILES[".gitignore"])
        written = shadow.write({}).written  # a scan: app.py's new mtime is seen too
        assert sorted(written) == [".gitignore", "app.py", "data/x.csv"]
        assert "data" not in shadow.links
        assert text(shadow, "data/x.csv") == "a\n"  # untracked now: copied


def test_a_new_ignored_or_linked_folder_is_linked(repo: Path, shadow: ShadowCopy):
    write_files(repo, {"data/x.csv": "a\n", ".gitignore": FILES[".gitignore"] + "data/\n"})
    report = shadow.write({})
    assert report.written == [".gitignore"]
    assert "data" in shadow.links
    assert (shadow.root / "data/x.csv").read_text() == "a\n"  # through the link


def test_what_a_command_changed_in_the_copy_is_restored_and_its_new_files_kept(
    shadow: ShadowCopy,
):
    (shadow.root / "app.py").write_text("VALUE = 'formatted'\n")
    (shadow.root / "pkg/util.py").unlink()
    (shadow.root / "output.txt").write_text("a command's output\n")
    report = shadow.write({})
    assert sorted(report.written) == ["app.py", "pkg/util.py"]
    assert (text(shadow, "app.py"), text(shadow, "pkg/util.py")) == (
        FILES["app.py"],
        FILES["pkg/util.py"],
    )
    assert text(shadow, "output.txt") == "a command's output\n"


def test_a_workspace_inside_a_repository(repo: Path):
    with ShadowCopy(repo / "pkg") as shadow:
        assert sorted(shadow.setup.written) == ["more.py", "util.py"]
        (repo / "pkg/util.py").write_text("def f():\n    return 2\n")
        (repo / "app.py").write_text("outside the workspace\n")
        assert shadow.write({"more.py": "MORE = 2\n"}).written == ["more.py", "util.py"]
        assert text(shadow, "util.py") == "def f():\n    return 2\n"


def test_syncing_writes_nothing_outside_the_copy_and_close_removes_it(repo: Path):
    before = snapshot(repo)
    shadow = ShadowCopy(repo)
    for texts in ({"app.py": "VALUE = 2\n"}, {"pkg/util.py": None}, {}):
        shadow.write(texts)
    assert snapshot(repo) == before  # the git index included: it is never refreshed
    assert shadow.folder.exists()
    shadow.close()
    assert not shadow.folder.exists()
    assert snapshot(repo) == before


def test_commands_see_staged_files_and_the_users_changes(
    repo: Path,
    sandbox,  # noqa: F811 - the fixture
):
    overlay = Overlay(repo)
    runner = ShadowRunner(overlay, sandbox=sandbox)
    settings = Settings(command_timeout=30)
    cat = ["cat", "app.py", "pkg/util.py"]
    try:
        overlay.stage("app.py", "VALUE = 'staged'\n", "stage")
        first = asyncio.run(runner.run(cat, 30, settings))
        assert first.output == "VALUE = 'staged'\n" + FILES["pkg/util.py"]
        (repo / "pkg/util.py").write_text("def f():\n    return 'user'\n")
        overlay.discard()
        second = asyncio.run(runner.run(cat, 30, settings))
        assert second.output == FILES["app.py"] + "def f():\n    return 'user'\n"
        folder = runner.shadow.folder if runner.shadow else None
    finally:
        runner.close()
        discard_kept()
    assert folder is not None and not folder.exists()
    assert (repo / "app.py").read_text() == FILES["app.py"]


def test_a_file_the_command_deletes_is_back_for_the_next(repo: Path, sandbox):  # noqa: F811
    runner = ShadowRunner(Overlay(repo), sandbox=sandbox)
    settings = Settings(command_timeout=30)
    try:
        gone = asyncio.run(runner.run(["rm", "app.py"], 30, settings))
        assert gone.exit_code == 0, gone.output
        back = asyncio.run(runner.run(["cat", "app.py"], 30, settings))
        assert back.output == FILES["app.py"]
    finally:
        runner.close()
    assert (repo / "app.py").exists()


def test_outside_git_the_copy_is_synced_from_a_scan(tmp_path: Path):
    root = tmp_path / "plain"
    write_files(root, {"a.py": "A = 1\n"})
    with ShadowCopy(root) as shadow:
        (root / "a.py").write_text("A = 2\n")
        assert shadow.write({}).written == ["a.py"]
    assert subprocess.run(
        ["git", "-C", str(root), "rev-parse"], capture_output=True, check=False
    ).returncode
