"""``surehand apply-patch`` given a patch file or a directory that is not there."""

from pathlib import Path

from tests.editing.test_apply_patch_cli import UPDATE_A, project, snapshot, surehand

__all__ = ["project"]


def test_a_missing_patch_file_is_a_clear_error(project: Path):
    before = snapshot(project)
    result = surehand("apply-patch", str(project / "no-such.patch"), "-C", str(project))
    assert result.returncode == 2
    assert result.stderr.strip() == f"No such patch file: {project / 'no-such.patch'}"
    assert "Traceback" not in result.stderr
    assert snapshot(project) == before


def test_a_patch_that_is_not_text_is_a_clear_error(project: Path, tmp_path: Path):
    binary = tmp_path / "binary.patch"
    binary.write_bytes(b"\xff\xfe\x00junk")
    result = surehand("apply-patch", str(binary), "-C", str(project))
    assert result.returncode == 2
    assert result.stderr.startswith(f"Cannot read the patch file {binary}")
    assert "Traceback" not in result.stderr


def test_a_missing_directory_is_a_clear_error(tmp_path: Path):
    result = surehand("apply-patch", "-C", str(tmp_path / "nowhere"), stdin=UPDATE_A)
    assert result.returncode == 2
    assert result.stderr.strip() == f"No such directory: {tmp_path / 'nowhere'}"
