"""``list_files`` on a real overlay: .gitignore, staged files, open buffers, glob, path."""

import asyncio
import subprocess
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.staging.workspace import FileMissing, Overlay, PathRefused
from agent.tools.context import ToolContext
from agent.tools.list_files import MAX_FILES, TOOL, BadGlob, _walk_folder, walk
from tests.agent.overlay_support import Buffers, write_files

FILES = {
    ".gitignore": "build/\n*.log\n/secret.txt\n",
    "README.md": "# demo\n",
    "secret.txt": "root only\n",
    "src/app.py": "print('app')\n",
    "src/secret.txt": "not the root one\n",
    "src/util/strings.py": "X = 1\n",
    "src/util/.gitignore": "*.py\n!strings.py\n",
    "src/util/cache.py": "cached\n",
    "build/out.js": "x\n",
    "debug.log": "x\n",
    "docs/guide.md": "# guide\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    ".github/workflows/ci.yml": "on: push\n",
}

EVERY_FILE = [
    ".github/workflows/ci.yml",
    ".gitignore",
    "README.md",
    "docs/guide.md",
    "src/app.py",
    "src/secret.txt",
    "src/util/.gitignore",
    "src/util/strings.py",
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_files(tmp_path, FILES)
    return tmp_path


def context_for(root: Path, buffers: dict[str, str] | None = None) -> ToolContext:
    return ToolContext(Overlay(root, Buffers(buffers) if buffers else None), Settings())


def listing(ctx: ToolContext, path: str | None = None, glob: str | None = None):
    return asyncio.run(TOOL.run({"path": path, "glob": glob}, ctx))


def test_lists_every_file_gitignore_keeps_in_path_order(root):
    result = listing(context_for(root))
    assert result.text == "\n".join(EVERY_FILE)
    assert result.summary == "8 files"


def test_staged_files_are_marked_and_deletions_left_out(root):
    ctx = context_for(root)
    ctx.overlay.stage("src/app.py", "print('changed')\n", "change")
    ctx.overlay.stage("src/new.py", "x = 1\n", "add")
    ctx.overlay.stage("README.md", None, "remove")
    ctx.overlay.stage("docs/guide.md", "# guide\n", "touch, same text")
    assert listing(ctx, "src").text == (
        "src/app.py (modified)\n"
        "src/new.py (new)\n"
        "src/secret.txt\n"
        "src/util/.gitignore\n"
        "src/util/strings.py"
    )
    assert "README.md" not in listing(ctx).text
    assert "docs/guide.md\n" in listing(ctx).text


def test_a_folder_with_only_staged_files_can_be_listed(root):
    ctx = context_for(root)
    ctx.overlay.stage("pkg/mod.py", "x = 1\n", "add")
    assert listing(ctx, "pkg").text == "pkg/mod.py (new)"
    assert listing(ctx, "pkg", "*.md").text == "No files in pkg (files matching '*.md')."


def test_open_buffers_of_files_not_on_disk_are_listed(root):
    ctx = context_for(root, {"notes.md": "unsaved\n", "src/app.py": "print('edited')\n"})
    result = listing(ctx)
    assert result.text.split("\n") == sorted([*EVERY_FILE, "notes.md"], key=lambda p: p.split("/"))


@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        ("*.py", ["src/app.py", "src/util/strings.py"]),
        ("src/*.py", ["src/app.py"]),
        ("**/*.md", ["README.md", "docs/guide.md"]),
        ("docs/", ["docs/guide.md"]),
        ("*.rs", []),
    ],
)
def test_glob_is_matched_against_the_workspace_relative_path(root, glob, expected):
    result = listing(context_for(root), glob=glob)
    assert result.text == (
        "\n".join(expected) or f"No files in the workspace (files matching {glob!r})."
    )


def test_an_invalid_glob_is_refused(root):
    with pytest.raises(BadGlob) as caught:
        listing(context_for(root), glob="!")
    assert caught.value.reason == "bad_glob"


def test_path_limits_the_listing(root):
    ctx = context_for(root)
    assert listing(ctx, "src/util").text == "src/util/.gitignore\nsrc/util/strings.py"
    assert listing(ctx, "src/app.py").text == "src/app.py"
    # A folder named outright is listed even when ignored, as ripgrep searches it.
    assert listing(ctx, "build").text == "build/out.js"


def test_missing_and_outside_paths_are_refused(root):
    ctx = context_for(root)
    with pytest.raises(FileMissing):
        listing(ctx, "nowhere")
    for path in ["..", "/etc", "src/../../x"]:
        with pytest.raises(PathRefused):
            listing(ctx, path)


def test_symbolic_links_are_not_followed(tmp_path):
    write_files(tmp_path, {"outside/secret.txt": "x\n", "ws/a.txt": "x\n"})
    (tmp_path / "ws" / "link.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    (tmp_path / "ws" / "linked").symlink_to(tmp_path / "outside")
    assert listing(context_for(tmp_path / "ws")).text == "a.txt"


@pytest.mark.slow
def test_the_listing_is_capped(tmp_path):
    write_files(tmp_path, {f"f{n:03}.txt": "" for n in range(MAX_FILES + 10)})
    result = listing(context_for(tmp_path))
    lines = result.text.split("\n")
    assert lines[:-1] == [f"f{n:03}.txt" for n in range(MAX_FILES)]
    assert lines[-1] == "10 more files not listed; narrow with path or glob."
    assert result.summary == f"{MAX_FILES + 10} files"


def test_an_empty_folder(root):
    (root / "empty").mkdir()
    result = listing(context_for(root), "empty")
    assert (result.text, result.summary) == ("No files in empty.", "0 files")


def test_bad_gitignore_lines_are_skipped(tmp_path):
    write_files(tmp_path, {".gitignore": "\\\n*.tmp\n", "a.tmp": "", "b.txt": ""})
    assert list(walk(tmp_path)) == [".gitignore", "b.txt"]


def test_describe():
    assert TOOL.describe({"path": "src", "glob": None}) == "Listing files in src"
    assert TOOL.describe({"path": None, "glob": None}) == "Listing files in the workspace"


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """The same tree as a real git repository, with a tracked file since deleted and links."""
    files = {k: v for k, v in FILES.items() if not k.startswith(".git/")}
    write_files(tmp_path, {**files, "gone.txt": "tracked, then deleted\n"})
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "link.md").symlink_to("README.md")
    (tmp_path / "new.md").write_text("untracked\n")
    return tmp_path


def test_in_a_git_repository_git_lists_the_same_files_as_the_walk(repository: Path):
    listed = list(walk(repository))
    assert listed == [*EVERY_FILE[:3], "docs/guide.md", "new.md", *EVERY_FILE[4:]]
    walked = list(_walk_folder(repository, ".", ()))
    assert listed == walked
    assert list(walk(repository, "src")) == ["src/app.py", "src/secret.txt", *EVERY_FILE[6:]]


def test_an_ignored_folder_named_as_the_start_is_still_walked(repository: Path):
    assert list(walk(repository, "build")) == ["build/out.js"]


def test_git_info_exclude_is_honoured(repository: Path):
    (repository / ".git/info").mkdir(exist_ok=True)
    (repository / ".git/info/exclude").write_text("new.md\n")  # untracked: now excluded
    assert "new.md" not in list(walk(repository))
