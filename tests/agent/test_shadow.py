"""The shadow copy on real directories: what is copied, linked, synced and restored."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.execution.shadow import ShadowCopy
from agent.staging.workspace import Overlay
from tests.agent.overlay_support import Buffers, git, write_files

GITIGNORE = "*.log\nnode_modules/\ndata/\n"


def files_in(root: Path) -> set[str]:
    """Every file and link under ``root``, not looking inside links."""
    found = set()
    for folder, dirs, names in os.walk(root):
        rel = Path(folder).relative_to(root)
        found |= {(rel / n).as_posix() for n in names}
        found |= {(rel / d).as_posix() for d in dirs if (Path(folder) / d).is_symlink()}
    return found


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    write_files(
        root,
        {
            ".gitignore": GITIGNORE,
            "app.py": "VALUE = 1\n",
            "pkg/util.py": "def f():\n    return 1\n",
            "run.log": "ignored\n",
            "node_modules/left-pad/index.js": "module.exports = 1;\n",
            "data/big.csv": "a,b\n",
            ".venv/lib/site.py": "SITE = True\n",
            "pkg/__pycache__/util.cpython-311.pyc": "cache",
        },
    )
    return root


@pytest.fixture
def shadow(tree: Path) -> Iterator[ShadowCopy]:
    with ShadowCopy(tree) as copy:
        yield copy


def test_plain_folder_copies_what_gitignore_keeps_and_links_the_rest(
    tree: Path, shadow: ShadowCopy
):
    assert files_in(shadow.root) == {
        ".gitignore",
        "app.py",
        "pkg/util.py",
        "node_modules",
        "data",
        ".venv",
    }
    assert shadow.links == {"node_modules", "data", ".venv"}
    linked = shadow.root / "node_modules"
    assert linked.is_symlink()
    assert (linked / "left-pad/index.js").read_text() == "module.exports = 1;\n"
    assert (shadow.root / ".venv/lib/site.py").read_text() == "SITE = True\n"
    assert sorted(shadow.setup.written) == [".gitignore", "app.py", "pkg/util.py"]


def test_git_repository_copies_tracked_and_untracked_files_not_ignored(tree: Path):
    write_files(
        tree,
        {"new.py": "NEW = 1\n", "build/out.txt": "built\n", ".gitignore": GITIGNORE + "build/\n"},
    )
    git(tree, "init", "-q")
    git(tree, "add", ".gitignore", "app.py", "pkg/util.py")
    git(tree, "commit", "-q", "-m", "start")
    with ShadowCopy(tree) as shadow:
        assert files_in(shadow.root) == {
            ".gitignore",
            "app.py",
            "pkg/util.py",
            "new.py",
            ".git",
            "node_modules",
            "data",
            ".venv",
        }
        assert (shadow.root / ".git").resolve() == tree / ".git"
        assert not (shadow.root / "build").exists()  # a build output: commands make their own


def test_build_outputs_are_private_and_the_real_ones_untouched(tree: Path):
    write_files(tree, {"target/debug/app": "binary\n", "dist/pkg.whl": "wheel\n"})
    with ShadowCopy(tree) as shadow:
        assert not (shadow.root / "target").exists()
        assert not (shadow.root / "dist").exists()
        (shadow.root / "target").mkdir()
        (shadow.root / "target/new").write_text("made by a command\n")
        shadow.write({})
        assert (shadow.root / "target/new").read_text() == "made by a command\n"
    assert (tree / "target/debug/app").read_text() == "binary\n"
    assert not (tree / "target/new").exists()


def test_mount_points_replace_links_for_a_sandbox(tree: Path):
    with ShadowCopy(tree, mount_points=True) as shadow:
        assert shadow.links == {"node_modules", "data", ".venv"}
        for link in shadow.links:
            path = shadow.root / link
            assert path.is_dir() and not path.is_symlink() and not any(path.iterdir())
        (tree / "data").rename(tree / "data-old")
        shadow.write({})
        assert not (shadow.root / "data").exists()


def test_known_folder_with_tracked_files_is_copied_not_linked(tree: Path):
    write_files(tree, {"build/gen.py": "GEN = 1\n"})
    git(tree, "init", "-q")
    git(tree, "add", "build/gen.py")
    git(tree, "commit", "-q", "-m", "start")
    with ShadowCopy(tree) as shadow:
        assert "build" not in shadow.links
        assert not (shadow.root / "build").is_symlink()
        assert (shadow.root / "build/gen.py").read_text() == "GEN = 1\n"


def test_staged_texts_are_written_as_utf8_bytes_and_the_disk_is_untouched(
    tree: Path, shadow: ShadowCopy
):
    report = shadow.write({"app.py": "VALUE = 2\r\n# 日本 🎉\r\n", "pkg/new.py": "NEW = 1\n"})
    assert sorted(report.written) == ["app.py", "pkg/new.py"]
    assert (shadow.root / "app.py").read_bytes() == "VALUE = 2\r\n# 日本 🎉\r\n".encode()
    assert (shadow.root / "pkg/new.py").read_text() == "NEW = 1\n"
    assert (tree / "app.py").read_text() == "VALUE = 1\n"
    assert not (tree / "pkg/new.py").exists()


def test_staged_deletion_removes_the_file_and_its_empty_folder(tree: Path, shadow: ShadowCopy):
    report = shadow.write({"pkg/util.py": None})
    assert report.removed == ["pkg/util.py"]
    assert not (shadow.root / "pkg").exists()
    assert (tree / "pkg/util.py").exists()


def test_sync_is_incremental(shadow: ShadowCopy):
    texts = {"app.py": "VALUE = 2\n", "pkg/util.py": None}
    first = shadow.write(texts)
    assert (first.written, first.removed) == (["app.py"], ["pkg/util.py"])
    again = shadow.write(texts)
    assert (again.written, again.removed, again.refused) == ([], [], [])


def test_disk_changes_are_picked_up(tree: Path, shadow: ShadowCopy):
    (tree / "app.py").write_text("VALUE = 100\n")
    (tree / "pkg/added.py").write_text("ADDED = 1\n")
    (tree / "pkg/util.py").unlink()
    report = shadow.write({})
    assert sorted(report.written) == ["app.py", "pkg/added.py"]
    assert report.removed == ["pkg/util.py"]
    assert (shadow.root / "app.py").read_text() == "VALUE = 100\n"
    assert (shadow.root / "pkg/added.py").read_text() == "ADDED = 1\n"


def test_discarded_staging_restores_the_disk_version(tree: Path, shadow: ShadowCopy):
    shadow.write({"app.py": "VALUE = 2\n", "pkg/util.py": None, "extra.py": "X = 1\n"})
    report = shadow.write({})
    assert sorted(report.written) == ["app.py", "pkg/util.py"]
    assert report.removed == ["extra.py"]
    assert (shadow.root / "app.py").read_text() == "VALUE = 1\n"
    assert (shadow.root / "pkg/util.py").read_text() == "def f():\n    return 1\n"
    assert not (shadow.root / "extra.py").exists()


def test_sync_takes_the_overlays_staged_changes_and_open_buffers(tree: Path, shadow: ShadowCopy):
    overlay = Overlay(tree, source=Buffers({"pkg/util.py": "def f():\n    return 'unsaved'\n"}))
    overlay.stage("app.py", "VALUE = 3\n", "bump")
    report = shadow.write(overlay.overlaid())
    assert sorted(report.written) == ["app.py", "pkg/util.py"]
    assert (shadow.root / "pkg/util.py").read_text() == "def f():\n    return 'unsaved'\n"
    assert (shadow.root / "app.py").read_text() == "VALUE = 3\n"


def test_a_file_a_command_changed_in_the_copy_is_restored(shadow: ShadowCopy):
    (shadow.root / "app.py").write_text("VALUE = 'formatted by a command'\n")
    (shadow.root / "output.txt").write_text("a command's output\n")
    assert shadow.write({}).written == ["app.py"]
    assert (shadow.root / "app.py").read_text() == "VALUE = 1\n"
    assert (shadow.root / "output.txt").exists()


def test_executable_bits_and_links_are_copied(tree: Path):
    (tree / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (tree / "run.sh").chmod(0o755)
    (tree / "alias.py").symlink_to("app.py")
    with ShadowCopy(tree) as shadow:
        assert os.access(shadow.root / "run.sh", os.X_OK)
        assert (shadow.root / "alias.py").readlink() == Path("app.py")
        shadow.write({"run.sh": "#!/bin/sh\necho staged\n"})
        assert os.access(shadow.root / "run.sh", os.X_OK)
        assert (shadow.root / "run.sh").read_text() == "#!/bin/sh\necho staged\n"


def test_staged_paths_inside_links_or_outside_are_refused(tree: Path, shadow: ShadowCopy):
    report = shadow.write(
        {"node_modules/left-pad/index.js": "hacked\n", "../escape.py": "x\n", ".git/config": "x"}
    )
    assert sorted(report.refused) == [
        "../escape.py",
        ".git/config",
        "node_modules/left-pad/index.js",
    ]
    assert report.written == []
    assert (tree / "node_modules/left-pad/index.js").read_text() == "module.exports = 1;\n"
    assert not (tree.parent / "escape.py").exists()


def test_sync_never_writes_through_a_link_a_command_made(tree: Path, shadow: ShadowCopy):
    outside = tree.parent / "outside"
    outside.mkdir()
    (shadow.root / "pkg/util.py").unlink()
    (shadow.root / "pkg").rmdir()
    (shadow.root / "pkg").symlink_to(outside, target_is_directory=True)
    report = shadow.write({"pkg/new.py": "NEW = 1\n"})
    assert report.refused == ["pkg/new.py"]
    assert list(outside.iterdir()) == []


def test_close_removes_the_copy_but_not_what_it_linked(tree: Path):
    shadow = ShadowCopy(tree)
    shadow.close()
    assert not shadow.root.exists()
    assert (tree / "node_modules/left-pad/index.js").exists()
    assert (tree / ".venv/lib/site.py").exists()
