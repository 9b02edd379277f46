"""``surehand apply-patch`` on real directories."""

import subprocess
import sys
from pathlib import Path

import pytest

UPDATE_A = """\
*** Begin Patch
*** Update File: a.py
@@ def f():
-    return 1
+    return 2
*** End Patch
"""


def surehand(*args: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "editing.disk.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_bytes(b"def f():\r\n    return 1\r\n")
    (root / "b.py").write_text("x = 1\n", encoding="utf-8")
    return root


def test_applies_and_prints_summary_and_diff(project: Path):
    result = surehand("apply-patch", "-C", str(project), stdin=UPDATE_A)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "M a.py"
    assert "-    return 1\n+    return 2\n" in result.stdout
    assert (project / "a.py").read_bytes() == b"def f():\r\n    return 2\r\n"


def test_reads_the_patch_from_a_file_and_works_in_the_current_directory(project: Path):
    patch_file = project.parent / "change.patch"
    patch_file.write_text(UPDATE_A, encoding="utf-8")
    result = surehand("apply-patch", str(patch_file), cwd=project)
    assert result.returncode == 0, result.stderr
    assert (project / "a.py").read_bytes() == b"def f():\r\n    return 2\r\n"


def test_dry_run_writes_nothing(project: Path):
    before = snapshot(project)
    result = surehand("apply-patch", "--dry-run", "-C", str(project), stdin=UPDATE_A)
    assert result.returncode == 0
    assert "M a.py" in result.stdout
    assert snapshot(project) == before


def test_add_delete_and_move(project: Path):
    patch = """\
*** Begin Patch
*** Add File: pkg/new.py
+VALUE = 1
*** Delete File: b.py
*** Update File: a.py
*** Move to: pkg/a.py
@@
-    return 1
+    return 3
*** End Patch
"""
    result = surehand("apply-patch", "-C", str(project), stdin=patch)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:3] == ["A pkg/new.py", "D b.py", "R a.py -> pkg/a.py"]
    assert snapshot(project) == {
        "pkg/a.py": b"def f():\r\n    return 3\r\n",
        "pkg/new.py": b"VALUE = 1\n",
    }


def test_refused_multi_file_patch_leaves_every_file_untouched(project: Path):
    before = snapshot(project)
    patch = """\
*** Begin Patch
*** Add File: c.py
+y = 2
*** Update File: b.py
-x = 1
+x = 10
*** Update File: a.py
-    return 42
+    return 43
*** End Patch
"""
    result = surehand("apply-patch", "-C", str(project), stdin=patch)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "in a.py, chunk 1 of 1 was not found" in result.stderr
    assert snapshot(project) == before


def test_parse_error_exits_2(project: Path):
    before = snapshot(project)
    result = surehand(
        "apply-patch", "-C", str(project), stdin=UPDATE_A.replace("*** End Patch\n", "")
    )
    assert result.returncode == 2
    assert result.stderr.startswith("Patch not applied (parse error at line")
    assert snapshot(project) == before


@pytest.mark.parametrize("path", ["../outside.py", "/etc/hostname", "sub/../../outside.py"])
def test_paths_outside_the_directory_are_refused(project: Path, path: str):
    before = snapshot(project)
    result = surehand(
        "apply-patch",
        "-C",
        str(project),
        stdin=f"*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch\n",
    )
    assert result.returncode == 1
    assert "Refused:" in result.stderr
    assert snapshot(project) == before
    assert not (project.parent / "outside.py").exists()


def test_symlink_leading_out_is_refused(project: Path):
    outside = project.parent / "secret.py"
    outside.write_text("token = 1\n", encoding="utf-8")
    (project / "link.py").symlink_to(outside)
    patch = "*** Begin Patch\n*** Update File: link.py\n-token = 1\n+token = 2\n*** End Patch\n"
    result = surehand("apply-patch", "-C", str(project), stdin=patch)
    assert result.returncode == 1
    assert "symbolic link" in result.stderr
    assert outside.read_text(encoding="utf-8") == "token = 1\n"


def test_directory_symlink_leading_out_is_refused(project: Path):
    outside = project.parent / "elsewhere"
    outside.mkdir()
    (project / "vendor").symlink_to(outside, target_is_directory=True)
    patch = "*** Begin Patch\n*** Add File: vendor/x.py\n+x = 1\n*** End Patch\n"
    result = surehand("apply-patch", "-C", str(project), stdin=patch)
    assert result.returncode == 1
    assert "symbolic link" in result.stderr
    assert list(outside.iterdir()) == []


def test_binary_file_is_refused(project: Path):
    (project / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    patch = "*** Begin Patch\n*** Update File: image.png\n-PNG\n+GIF\n*** End Patch\n"
    result = surehand("apply-patch", "-C", str(project), stdin=patch)
    assert result.returncode == 1
    assert "binary" in result.stderr


def test_git_directory_is_not_edited(project: Path):
    (project / ".git").mkdir()
    patch = "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+rm -rf /\n*** End Patch\n"
    result = surehand("apply-patch", "-C", str(project), stdin=patch)
    assert result.returncode == 1
    assert "is inside .git" in result.stderr
    assert not (project / ".git" / "hooks").exists()


def test_file_mode_is_kept_and_no_temporary_file_is_left(project: Path):
    script = project / "run.sh"
    script.write_text("echo 1\n", encoding="utf-8")
    script.chmod(0o755)
    patch = "*** Begin Patch\n*** Update File: run.sh\n-echo 1\n+echo 2\n*** End Patch\n"
    assert surehand("apply-patch", "-C", str(project), stdin=patch).returncode == 0
    assert script.stat().st_mode & 0o777 == 0o755
    assert sorted(p.name for p in project.iterdir()) == ["a.py", "b.py", "run.sh"]
