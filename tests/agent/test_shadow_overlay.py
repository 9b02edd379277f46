"""The sandboxed command's tree, as a copy and as an overlay: the same semantics, for real.

Each test runs real commands in real bubblewrap, in a copy of the
workspace and in an overlay of it (where this machine can mount one), and
checks what the command sees and that the user's workspace never changes.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.execution import shadow_owner
from agent.execution.command_result import CommandResult
from agent.execution.runner import ShadowRunner
from agent.execution.sandbox import bubblewrap as bubblewrap_module
from agent.execution.sandbox import overlay, overlay_probe
from agent.execution.sandbox.overlay import OverlayLayers
from agent.execution.shadow import discard_kept
from agent.staging.workspace import Overlay
from tests.agent.overlay_support import git, write_files
from tests.agent.sandboxes import bubblewrap

SETTINGS = Settings(output_max_chars=20_000)
FILES = {
    ".gitignore": "node_modules/\n.venv/\nbuild/\n__pycache__/\n",
    "app.py": "VALUE = 1\n",
    "pkg/__init__.py": "",
    "pkg/util.py": "def f():\n    return 1\n",
    "tool.sh": "#!/bin/sh\necho tool\n",
    "node_modules/left-pad/index.js": "module.exports = 1;\n",
    ".venv/lib/site.py": "SITE = True\n",
    "build/old.o": "the user's build\n",
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    write_files(root, FILES)
    (root / "tool.sh").chmod(0o755)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    (root / ".git/hooks/pre-commit").write_text("#!/bin/sh\necho hooked\n")
    return root


@pytest.fixture(params=["copy", "overlay"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def sandbox_for(kind: str) -> bubblewrap_module.Bubblewrap:
    found = bubblewrap()
    assert isinstance(found, bubblewrap_module.Bubblewrap)
    if kind == "copy":
        return found.with_overlay(None, "asked for by the test")
    if found.overlay is None:
        if os.environ.get("CI"):
            pytest.fail(f"the overlay must be tested in CI: {found.shadow}")
        pytest.skip(found.shadow)
    return found


@pytest.fixture
def runner(workspace: Path, kind: str) -> Iterator[ShadowRunner]:
    runner = ShadowRunner(Overlay(workspace), sandbox=sandbox_for(kind))
    yield runner
    runner.close()


def run(runner: ShadowRunner, *argv: str) -> CommandResult:
    return asyncio.run(runner.run(list(argv), 30, SETTINGS))


def sh(runner: ShadowRunner, script: str) -> CommandResult:
    return run(runner, "/bin/sh", "-c", script)


def snapshot(root: Path) -> dict[str, tuple[int, int, bytes, tuple[tuple[str, bytes], ...]]]:
    """Every entry under ``root`` (``.git`` included, and ``root`` itself): its mode,
    mtime, content and extended attributes (an overlay keeps its own marks in
    attributes, which must never land on the workspace)."""
    found = {}
    for folder, dirs, names in os.walk(root):
        for name in ["", *dirs, *names] if folder == str(root) else dirs + names:
            path = Path(folder, name) if name else root
            st = path.lstat()
            data = b""
            if stat.S_ISREG(st.st_mode):
                data = hashlib.blake2b(path.read_bytes()).digest()
            elif stat.S_ISLNK(st.st_mode):
                data = os.fsencode(path.readlink())
            marks = tuple(
                (key, os.getxattr(path, key, follow_symlinks=False))
                for key in sorted(os.listxattr(path, follow_symlinks=False))
            )
            found[str(path.relative_to(root))] = (st.st_mode, st.st_mtime_ns, data, marks)
    return found


def test_the_kind_asked_for_is_the_kind_made(runner: ShadowRunner, kind: str):
    assert run(runner, "true").exit_code == 0
    assert runner.shadow is not None
    assert runner.shadow.kind == kind


def test_a_staged_text_is_seen_and_the_disk_is_untouched(
    runner: ShadowRunner, workspace: Path, kind: str
):
    runner.overlay.stage("app.py", "VALUE = 2\n", "bump")
    runner.overlay.stage("pkg/new/mod.py", "NEW = 1\n", "add")
    assert sh(runner, "cat app.py pkg/new/mod.py").output == "VALUE = 2\nNEW = 1\n"
    assert (workspace / "app.py").read_text() == "VALUE = 1\n"
    assert not (workspace / "pkg/new").exists()
    runner.overlay.stage("app.py", "VALUE = 3\n", "again")
    assert run(runner, "cat", "app.py").output == "VALUE = 3\n"


def test_a_staged_texts_mode_follows_the_workspace_file(runner: ShadowRunner):
    runner.overlay.stage("tool.sh", "#!/bin/sh\necho staged\n", "edit")
    assert run(runner, "./tool.sh").output == "staged\n"


def test_a_staged_deletion_is_seen_and_undone_when_discarded(runner: ShadowRunner):
    runner.overlay.stage("pkg/util.py", None, "remove")
    result = run(runner, "cat", "pkg/util.py")
    assert result.exit_code == 1 and "No such file" in result.output
    assert sh(runner, "ls pkg").output == "__init__.py\n"
    runner.overlay.discard("pkg/util.py")
    assert run(runner, "cat", "pkg/util.py").output == FILES["pkg/util.py"]


def test_a_discarded_new_file_is_gone(runner: ShadowRunner):
    runner.overlay.stage("fresh/added.py", "A = 1\n", "add")
    assert run(runner, "cat", "fresh/added.py").output == "A = 1\n"
    runner.overlay.discard("fresh/added.py")
    assert run(runner, "ls", "fresh").exit_code != 0


WRECK = (
    "echo changed > app.py; rm pkg/util.py; rm -rf pkg; mkdir pkg; echo lone > pkg/lone.py; "
    "chmod -x tool.sh; echo made > made.txt; mkdir -p new/deep; echo deep > new/deep/x.txt; "
    "rm build/old.o; echo built > build/out.o; rm .gitignore; ln -s /etc link-out"
)


def test_a_command_never_changes_the_workspace(runner: ShadowRunner, workspace: Path):
    before = snapshot(workspace)
    runner.overlay.stage("app.py", "VALUE = 2\n", "bump")
    result = sh(runner, WRECK)
    assert result.exit_code == 0, result.output
    assert sh(runner, "cat app.py made.txt").output == "VALUE = 2\nmade\n"
    assert snapshot(workspace) == before


def test_what_a_command_changed_is_restored_and_what_it_made_is_kept(runner: ShadowRunner):
    runner.overlay.stage("app.py", "VALUE = 2\n", "bump")
    assert sh(runner, WRECK).exit_code == 0
    listing = "cat app.py pkg/util.py .gitignore; ls pkg; test -x tool.sh && echo x; "
    listing += "cat made.txt new/deep/x.txt; ls -d link-out"
    result = sh(runner, listing)
    assert result.output == (
        "VALUE = 2\n"  # the staged text, written again
        + FILES["pkg/util.py"]
        + FILES[".gitignore"]
        + "__init__.py\nlone.py\nutil.py\n"  # the workspace's folder, and the file made in it
        + "x\nmade\ndeep\nlink-out\n"
    ), result.output


def test_a_file_a_command_changed_and_the_user_deleted_is_gone(
    runner: ShadowRunner, workspace: Path
):
    assert sh(runner, "echo changed > app.py; echo made > made.txt").exit_code == 0
    (workspace / "app.py").unlink()
    assert (
        sh(runner, "ls app.py made.txt").output
        == "ls: cannot access 'app.py': No such file or directory\nmade.txt\n"
    )


def test_a_file_the_user_changed_shows_and_one_they_made_replaces_the_commands(
    runner: ShadowRunner, workspace: Path
):
    assert sh(runner, "echo made > made.txt").exit_code == 0
    (workspace / "pkg/util.py").write_text("def f():\n    return 2\n")
    (workspace / "made.txt").write_text("the user's\n")
    assert sh(runner, "cat pkg/util.py made.txt").output == "def f():\n    return 2\nthe user's\n"


def test_build_outputs_are_the_commands_own(runner: ShadowRunner, kind: str):
    assert sh(runner, "mkdir -p build && echo built > build/out.o").exit_code == 0
    assert run(runner, "cat", "build/out.o").output == "built\n"
    seen = run(runner, "cat", "build/old.o")
    if kind == "copy":  # the copy shows no build output of the user's
        assert seen.exit_code == 1
    else:  # the overlay shows the user's beneath the command's
        assert seen.output == "the user's build\n"


def test_git_and_linked_folders_are_read_only_and_hooks_masked(
    runner: ShadowRunner, workspace: Path
):
    index = (workspace / ".git/index").read_bytes()
    runner.overlay.stage("app.py", "VALUE = 2\n", "bump")
    assert run(runner, "git", "status", "--short").output == " M app.py\n"
    assert run(runner, "ls", ".git/hooks").output == ""
    assert run(runner, "git", "add", "app.py").exit_code != 0
    for folder in (".git", ".venv", "node_modules"):
        result = sh(runner, f"echo x > {folder}/written")
        assert result.exit_code != 0, folder
        assert "Read-only file system" in result.output, result.output
    assert (workspace / ".git/index").read_bytes() == index
    assert run(runner, "cat", ".venv/lib/site.py").output == FILES[".venv/lib/site.py"]
    assert not (workspace / ".git/written").exists()


def test_staged_paths_inside_linked_folders_or_below_links_are_refused(runner: ShadowRunner):
    runner.overlay.stage("node_modules/left-pad/index.js", "module.exports = 2;\n", "x")
    result = run(runner, "cat", "node_modules/left-pad/index.js")
    assert result.output.startswith("[not in the copy: node_modules/left-pad/index.js")
    assert result.output.endswith("module.exports = 1;\n")


def test_a_link_a_command_made_never_leads_a_staged_text_out(runner: ShadowRunner, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    assert sh(runner, f"ln -s {outside} out").exit_code == 0
    runner.overlay.stage("out/evil.py", "x = 1\n", "add")
    result = run(runner, "true")
    assert "[not in the copy: out/evil.py" in result.output
    assert list(outside.iterdir()) == []


def test_a_discarded_text_below_a_folder_a_command_made_a_link_removes_nothing_outside(
    runner: ShadowRunner, tmp_path: Path
):
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep/b.txt").write_text("keep\n")
    runner.overlay.stage("fresh/deep/b.txt", "B = 1\n", "add")
    assert run(runner, "cat", "fresh/deep/b.txt").output == "B = 1\n"
    assert sh(runner, f"rm -rf fresh && ln -s {outside} fresh").exit_code == 0
    runner.overlay.discard("fresh/deep/b.txt")
    run(runner, "true")
    assert (outside / "deep/b.txt").read_text() == "keep\n"


def test_closing_leaves_nothing_in_the_temporary_folder(
    workspace: Path, kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    sandbox = sandbox_for(kind)
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr("tempfile.tempdir", None)
    runner = ShadowRunner(Overlay(workspace), sandbox=sandbox)
    runner.overlay.stage("app.py", "VALUE = 2\n", "bump")
    assert sh(runner, "rm pkg/util.py; mkdir -p made; echo x > made/x").exit_code == 0
    folder = runner.shadow.folder  # type: ignore[union-attr]
    if kind == "overlay":  # the kernel's scratch folder, mode 000
        (work,) = (folder / "work").iterdir()
        assert stat.S_IMODE(work.stat().st_mode) == 0
    assert folder.parent == temp
    runner.close()
    discard_kept()  # a copy is kept for the next session until then
    assert list(temp.iterdir()) == []


CRASH = """
import asyncio, os, sys
from pathlib import Path
from agent.execution.runner import ShadowRunner
from agent.execution.sandbox import choose
from agent.config.settings import Settings
from agent.staging.workspace import Overlay

runner = ShadowRunner(Overlay(Path(sys.argv[1])), sandbox=choose("bubblewrap"))
argv = ["/bin/sh", "-c", "rm app.py; mkdir -p made; echo x > made/x"]
asyncio.run(runner.run(argv, 30, Settings()))
print(runner.shadow.kind, runner.shadow.folder, flush=True)
os._exit(9)  # no close: as a crash
"""


def test_the_overlay_of_a_crashed_process_is_swept(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    sandbox_for("overlay")
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr("tempfile.tempdir", None)
    done = subprocess.run(
        [sys.executable, "-c", CRASH, str(workspace)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 9, done.stderr
    kind, folder = done.stdout.split()
    assert kind == "overlay" and Path(folder).parent == temp
    assert (Path(folder) / "upper/made/x").read_text() == "x\n"
    assert shadow_owner.sweep() == [Path(folder)]
    assert list(temp.iterdir()) == []
    assert (workspace / "app.py").read_text() == FILES["app.py"]


def test_nothing_stays_mounted(runner: ShadowRunner):
    assert run(runner, "true").exit_code == 0
    assert runner.shadow is not None
    mounts = Path("/proc/self/mountinfo").read_text()
    assert str(runner.shadow.root) not in mounts
    if runner.shadow.kind == "overlay":  # the mount point, empty
        assert list(runner.shadow.root.iterdir()) == []


# -- the overlay only -----------------------------------------------------------


def test_removal_opens_folders_without_permissions(tmp_path: Path):
    folder = tmp_path / "surehand-shadow-x"
    (folder / "work/work/inner").mkdir(parents=True)
    (folder / "work/work/inner/file").write_text("x")
    (folder / "work/work/inner").chmod(0)
    (folder / "work/work").chmod(0)
    shadow_owner.remove(folder)
    assert not folder.exists()


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root")
def test_another_user_mounts_the_overlay_and_removes_its_work_folder():
    """As a user who is not root: a user namespace, ``userxattr``, and the mode-000 work
    folder the kernel leaves, removed by that user (``remove``, run as that user)."""
    if not shutil.which("unshare") or not Path("/usr/bin/python3").exists():
        pytest.skip("needs unshare and the system's python3")
    # in /tmp itself: the test run's temporary folder is root's alone
    top = Path(tempfile.mkdtemp(prefix="surehand-overlay-user-", dir="/tmp"))
    try:
        as_nobody(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    assert not top.exists()


def as_nobody(top: Path) -> None:
    top.chmod(0o755)
    base = top / "as-nobody"
    layers = OverlayLayers(top / "lower", base / "upper", base / "work")  # lower: root's
    for path in (layers.lower, layers.upper, layers.work, base / "merged"):
        path.mkdir(parents=True)
    (layers.lower / "kept").write_text("lower\n")
    for path in (top, base, layers.upper, layers.work, base / "merged"):
        os.chown(path, 65534, 65534)
    mounter = overlay.OverlayMounter(shutil.which("unshare") or "", True, 65534, 65534)
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    script = "cat kept && echo new > made && rm kept"
    inner = [
        *mounter.prefix(layers, base / "merged"),
        "/bin/sh",
        "-c",
        f"cd {base}/merged && {script}",
    ]
    done = subprocess.run(
        [*nobody, *inner], check=False, capture_output=True, text=True, timeout=30
    )
    if done.returncode != 0 and "Operation not permitted" in done.stdout + done.stderr:
        pytest.skip(f"user namespaces are not allowed here: {done.stdout}{done.stderr}")
    assert (done.returncode, done.stdout) == (0, "lower\n"), done.stdout + done.stderr
    assert (layers.lower / "kept").read_text() == "lower\n"
    assert (layers.upper / "made").read_text() == "new\n"
    assert stat.S_ISCHR((layers.upper / "kept").lstat().st_mode)
    (work,) = layers.work.iterdir()
    assert (work.stat().st_uid, stat.S_IMODE(work.stat().st_mode)) == (65534, 0)
    owner = Path(shadow_owner.__file__).read_text()
    remove = owner + f"\nremove(Path({str(base)!r}))\n"
    done = subprocess.run(
        [*nobody, "/usr/bin/python3", "-c", remove],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert not base.exists()


def test_without_unshare_the_probe_says_why_and_commands_use_the_copy(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    found = sandbox_for("overlay")
    bare = tmp_path / "bin"
    bare.mkdir()
    for program in ("sh", "cat", "true"):
        (bare / program).symlink_to(shutil.which(program) or "")
    with monkeypatch.context() as patched:
        patched.setenv("PATH", str(bare))
        why = overlay_probe.probe(found)
    assert why == "unshare is not installed"
    sandbox = found.with_overlay(None, why)
    assert "a full copy of your workspace: unshare is not installed" in sandbox.describe(False)
    assert_commands_get_the_copy(workspace, sandbox)


def assert_commands_get_the_copy(workspace: Path, sandbox: bubblewrap_module.Bubblewrap) -> None:
    """A command in ``workspace`` runs in a full copy, with the staged text in it."""
    runner = ShadowRunner(Overlay(workspace), sandbox=sandbox)
    try:
        runner.overlay.stage("app.py", "VALUE = 2\n", "bump")
        assert run(runner, "cat", "app.py").output == "VALUE = 2\n"
        assert runner.shadow is not None and runner.shadow.kind == "copy"
    finally:
        runner.close()


def test_the_copy_can_be_asked_for(monkeypatch: pytest.MonkeyPatch):
    found = sandbox_for("overlay")
    monkeypatch.setenv("SUREHAND_SHADOW", "copy")
    assert overlay_probe.probe(found) == "the copy was asked for (SUREHAND_SHADOW=copy)"


def test_a_workspace_the_overlay_cannot_name_gets_the_copy(tmp_path: Path):
    found = sandbox_for("overlay")
    workspace = tmp_path / "a,b"
    write_files(workspace, {"app.py": "VALUE = 1\n"})
    assert_commands_get_the_copy(workspace, found)


def test_the_probe_works_here_and_says_so():
    found = sandbox_for("overlay")
    assert found.overlay is not None
    assert "an overlay of your workspace" in found.describe(False)
    assert found.overlay.as_user == (os.geteuid() != 0)


def test_set_up_writes_only_the_staged_texts(workspace: Path):
    runner = ShadowRunner(Overlay(workspace), sandbox=sandbox_for("overlay"))
    try:
        runner.overlay.stage("app.py", "VALUE = 2\n", "bump")
        runner.overlay.stage("pkg/util.py", None, "remove")
        run(runner, "true")
        assert runner.shadow is not None and runner.shadow.layers is not None
        assert runner.shadow.setup.written == ["app.py"]
        assert runner.shadow.setup.removed == ["pkg/util.py"]
        upper = runner.shadow.layers.upper
        held = sorted(str(p.relative_to(upper)) for p in upper.rglob("*"))
        assert held == ["app.py", "pkg", "pkg/util.py"]
        assert stat.S_ISCHR((upper / "pkg/util.py").lstat().st_mode)  # a whiteout
    finally:
        runner.close()


def test_a_runner_whose_sandbox_changes_makes_the_other_kind(workspace: Path):
    overlaid, copied = sandbox_for("overlay"), sandbox_for("copy")
    runner = ShadowRunner(Overlay(workspace), sandbox=overlaid)
    try:
        runner.overlay.stage("app.py", "VALUE = 2\n", "bump")
        assert run(runner, "cat", "app.py").output == "VALUE = 2\n"
        assert runner.shadow is not None
        first = runner.shadow.folder
        runner._sandbox = copied  # as a changed sandbox setting gives another one
        assert run(runner, "cat", "app.py").output == "VALUE = 2\n"
        assert runner.shadow.kind == "copy"
        assert not first.exists()
    finally:
        runner.close()
