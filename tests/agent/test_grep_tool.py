"""``grep`` on a real overlay, by ripgrep and by the Python fallback: the same answers."""

import asyncio
import os
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.staging.workspace import FileMissing, NotATextFile, Overlay, PathRefused
from agent.tools.context import ToolContext
from agent.tools.grep import TOOL, BadPattern, Grep, find_ripgrep
from agent.tools.list_files import BadGlob
from tests.agent.overlay_support import Buffers, write_files

RG = find_ripgrep()

FILES: dict[str, str | bytes] = {
    ".gitignore": "build/\n*.log\n",
    "README.md": "Use parse_dmy for dates.\n",
    "src/dates.py": (
        "def parse_dmy(text):\n    day, month, year = text.split('/')\n    return year, month, day\n"
    ),
    "src/app.py": "from dates import parse_dmy\n\nprint(parse_dmy('1/2/2024'))\n",
    "build/out.py": "parse_dmy = None\n",
    "debug.log": "parse_dmy failed\n",
    "docs/.gitignore": "*.tmp\n!keep.tmp\n",
    "docs/notes.tmp": "parse_dmy draft\n",
    "docs/keep.tmp": "parse_dmy kept\n",
    "image.bin": b"parse_dmy\0\x89PNG\n",
}

EVERY_MATCH = (
    "README.md:1: Use parse_dmy for dates.\n"
    "docs/keep.tmp:1: parse_dmy kept\n"
    "src/app.py:1: from dates import parse_dmy\n"
    "src/app.py:3: print(parse_dmy('1/2/2024'))\n"
    "src/dates.py:1: def parse_dmy(text):"
)


@pytest.fixture(params=["ripgrep", "python"])
def grep(request: pytest.FixtureRequest) -> Grep:
    if request.param == "ripgrep":
        assert RG, "the ripgrep package is a dependency: its rg should be beside python"
        return Grep(rg=RG)
    return Grep(rg=None)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_files(tmp_path / "ws", FILES)
    return tmp_path / "ws"


def context_for(root: Path, buffers: dict[str, str] | None = None, **settings) -> ToolContext:
    source = Buffers(buffers) if buffers is not None else None
    return ToolContext(Overlay(root, source), Settings(**settings))


def search(grep: Grep, ctx: ToolContext, pattern: str, **args):
    call = {"pattern": pattern, "path": None, "glob": None, "ignore_case": None, "context": None}
    return asyncio.run(grep.run({**call, **args}, ctx))


def test_matches_come_in_path_order_without_ignored_binary_or_git_files(grep, root):
    write_files(root, {".git/config": "parse_dmy\n"})
    result = search(grep, context_for(root), "parse_dmy")
    assert result.text == EVERY_MATCH
    assert result.summary == "5 matches in 4 files"


def test_gitignore_is_honoured_outside_a_git_repository_too(grep, root):
    assert not any((folder / ".git").exists() for folder in (root, *root.parents))
    assert search(grep, context_for(root), "parse_dmy").text == EVERY_MATCH


def test_staged_text_is_searched_instead_of_the_disk(grep, root):
    ctx = context_for(root)
    ctx.overlay.stage("src/dates.py", "def parse_ymd(text):\n    pass\n", "rename")
    ctx.overlay.stage("src/new.py", "x = parse_dmy('3/4/2025')\n", "add")
    assert search(grep, ctx, "parse_dmy", path="src").text == (
        "src/app.py:1: from dates import parse_dmy\n"
        "src/app.py:3: print(parse_dmy('1/2/2024'))\n"
        "src/new.py:1: x = parse_dmy('3/4/2025')"
    )
    assert search(grep, ctx, "parse_ymd").text == "src/dates.py:1: def parse_ymd(text):"


def test_a_staged_deletion_is_not_searched(grep, root):
    ctx = context_for(root)
    ctx.overlay.stage("README.md", None, "remove")
    assert "README.md" not in search(grep, ctx, "parse_dmy").text
    with pytest.raises(FileMissing):
        search(grep, ctx, "parse_dmy", path="README.md")


def test_open_buffers_are_searched_instead_of_the_disk(grep, root):
    buffers = {"src/app.py": "parse_dmy unsaved\n", "scratch.py": "parse_dmy(x)\n"}
    result = search(grep, context_for(root, buffers), "parse_dmy", glob="*.py")
    assert result.text == (
        "scratch.py:1: parse_dmy(x)\n"
        "src/app.py:1: parse_dmy unsaved\n"
        "src/dates.py:1: def parse_dmy(text):"
    )


def test_glob_is_matched_against_the_workspace_relative_path(grep, root):
    ctx = context_for(root)
    assert search(grep, ctx, "parse_dmy", glob="*.py").summary == "3 matches in 2 files"
    assert search(grep, ctx, "parse_dmy", glob="src/app.py").summary == "2 matches in 1 file"
    assert search(grep, ctx, "parse_dmy", glob="**/*.tmp").text == (
        "docs/keep.tmp:1: parse_dmy kept"
    )
    with pytest.raises(BadGlob):
        search(grep, ctx, "parse_dmy", glob="!")


def test_path_limits_the_search_to_a_file_or_folder(grep, root):
    ctx = context_for(root)
    assert search(grep, ctx, "parse_dmy", path="src/dates.py").text == (
        "src/dates.py:1: def parse_dmy(text):"
    )
    assert search(grep, ctx, "parse_dmy", path="src").summary == "3 matches in 2 files"
    assert search(grep, ctx, "parse_dmy", path="docs").text == "docs/keep.tmp:1: parse_dmy kept"
    # A folder named outright is searched even when ignored, as ripgrep does.
    assert search(grep, ctx, "parse_dmy", path="build").text == "build/out.py:1: parse_dmy = None"


def test_ignore_case(grep, root):
    ctx = context_for(root)
    assert search(grep, ctx, "PARSE_DMY").text == ("No matches for 'PARSE_DMY' in the workspace.")
    assert search(grep, ctx, "PARSE_DMY", ignore_case=True).summary == "5 matches in 4 files"


def test_context_lines_are_marked_and_gaps_shown(grep, root):
    write_files(root, {"gap.txt": "a\nhit\nb\nc\nd\nhit\n"})
    ctx = context_for(root)
    ctx.overlay.stage("src/dates.py", "first\nhit staged\nlast\n", "edit")
    assert search(grep, ctx, "hit", context=1).text == (
        "gap.txt-1- a\n"
        "gap.txt:2: hit\n"
        "gap.txt-3- b\n"
        "--\n"
        "gap.txt-5- d\n"
        "gap.txt:6: hit\n"
        "\n"
        "src/dates.py-1- first\n"
        "src/dates.py:2: hit staged\n"
        "src/dates.py-3- last"
    )


def test_context_is_capped_at_five_lines(grep, root):
    write_files(root, {"long.txt": "".join(f"line {n}\n" for n in range(1, 21))})
    result = search(grep, context_for(root), "line 10$", context=50)
    assert result.text.splitlines() == [
        *(f"long.txt-{n}- line {n}" for n in range(5, 10)),
        "long.txt:10: line 10",
        *(f"long.txt-{n}- line {n}" for n in range(11, 16)),
    ]


def test_at_most_a_hundred_matching_lines_are_shown(grep, tmp_path):
    write_files(tmp_path, {"b_many.txt": "hit\n" * 150, "c_more.txt": "hit\n" * 10})
    ctx = context_for(tmp_path)
    ctx.overlay.stage("a_staged.txt", "hit\n" * 5, "add")
    result = search(grep, ctx, "hit")
    lines = result.text.split("\n")
    assert lines[:5] == [f"a_staged.txt:{n}: hit" for n in range(1, 6)]
    assert lines[5:100] == [f"b_many.txt:{n}: hit" for n in range(1, 96)]
    assert lines[100:] == ["", "65 more matches not shown; narrow the pattern or path."]
    assert result.summary == "165 matches in 3 files"


def test_long_lines_are_cut(grep, tmp_path):
    write_files(tmp_path, {"wide.txt": "x" * 150 + "needle" + "y" * 150 + "\n"})
    text = search(grep, context_for(tmp_path), "needle").text
    assert text == "wide.txt:1: " + "x" * 150 + "needle" + "y" * 44 + "…"


def test_binary_and_oversized_files_are_skipped(grep, root):
    write_files(root, {"big.txt": "parse_dmy\n" + "z" * 200})
    ctx = context_for(root, max_file_bytes=100)
    assert "big.txt" not in search(grep, ctx, "parse_dmy").text
    assert search(grep, ctx, "parse_dmy", path="image.bin").text == (
        "No matches for 'parse_dmy' in image.bin."
    )


def test_symbolic_links_are_not_followed(grep, tmp_path):
    write_files(tmp_path, {"outside/secret.txt": "parse_dmy secret\n", "ws/a.txt": "nothing\n"})
    (tmp_path / "ws" / "link.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    (tmp_path / "ws" / "linked").symlink_to(tmp_path / "outside")
    assert search(grep, context_for(tmp_path / "ws"), "secret").summary == "no matches"


def test_an_invalid_pattern_is_refused_with_the_regex_error(grep, root):
    with pytest.raises(BadPattern) as caught:
        search(grep, context_for(root), "parse_(")
    assert caught.value.reason == "bad_pattern"
    assert caught.value.message.startswith("Invalid regular expression 'parse_(': ")
    assert "unclosed group" in caught.value.message or "missing )" in caught.value.message


@pytest.mark.skipif(RG is None, reason="needs ripgrep")
def test_a_pattern_only_ripgrep_reads_is_refused_when_overlay_texts_are_in_scope(root):
    ctx = context_for(root, {"src/app.py": "été\n"})
    assert search(Grep(rg=RG), ctx, r"\p{Greek}", path="docs").summary == "no matches"
    with pytest.raises(BadPattern) as caught:
        search(Grep(rg=RG), ctx, r"\p{Greek}")
    assert caught.value.message.startswith(
        "ripgrep accepts '\\\\p{Greek}', but open and changed files are searched with "
        "Python's re, which does not: bad escape \\p at position 0."
    )


@pytest.mark.parametrize("path", ["../elsewhere", "/etc", "src/../../x"])
def test_a_path_outside_the_workspace_is_refused(grep, root, path):
    with pytest.raises(PathRefused):
        search(grep, context_for(root), "x", path=path)


def test_a_missing_path_is_reported(grep, root):
    with pytest.raises(FileMissing) as caught:
        search(grep, context_for(root), "x", path="nowhere")
    assert caught.value.message == "nowhere does not exist. Find files with list_files or grep."


def test_no_matches_is_an_answer_not_an_error(grep, root):
    result = search(grep, context_for(root), "absent", path="src", glob="*.py")
    assert result.text == "No matches for 'absent' in src (files matching '*.py')."
    assert result.summary == "no matches"
    (root / "empty").mkdir()
    assert search(grep, context_for(root), "x", path="empty").text == "No matches for 'x' in empty."


def test_a_ripgrep_that_cannot_run_falls_back_to_python(root, tmp_path):
    result = search(Grep(rg=str(tmp_path / "no-such-rg")), context_for(root), "parse_dmy")
    assert result.text == EVERY_MATCH


def test_describe():
    assert TOOL.describe({"pattern": "parse_dmy", "path": None}) == "Searching for 'parse_dmy'"
    assert TOOL.describe({"pattern": "x", "path": "src"}) == "Searching for 'x' in src"


@pytest.mark.parametrize("where", ["fifo", "folder/fifo"])
def test_a_fifo_is_refused_or_skipped_never_read(grep, root, where):
    """Reading a FIFO blocks until someone writes to it: it must never be opened."""
    (root / "folder").mkdir(exist_ok=True)
    (root / "folder/a.txt").write_text("needle\n")
    os.mkfifo(root / where)
    ctx = context_for(root)
    if where == "fifo":
        with pytest.raises(NotATextFile) as caught:
            asyncio.run(asyncio.wait_for(search_async(grep, ctx, "needle", path="fifo"), 10))
        assert caught.value.message == (
            "fifo is not a regular file or folder (a FIFO, device or socket); it cannot be "
            "listed or searched."
        )
    else:  # inside a folder it is skipped, like any file that is not a regular one
        found = asyncio.run(asyncio.wait_for(search_async(grep, ctx, "needle", path="folder"), 10))
        assert found.text == "folder/a.txt:1: needle"


async def search_async(grep: Grep, ctx: ToolContext, pattern: str, **args):
    return await grep.run({"pattern": pattern, **args}, ctx)


def test_matches_beyond_those_shown_are_counted_without_the_overlaid_files(grep, tmp_path):
    write_files(tmp_path, {f"f{n:03}.txt": "hit\nhit\n" for n in range(120)})
    write_files(tmp_path, {"ignored/x.txt": "hit\n", ".gitignore": "ignored/\n"})
    ctx = context_for(tmp_path, {"f110.txt": "nothing\n"})  # an open buffer without the word
    ctx.overlay.stage("f119.txt", "hit\n", "one left")
    result = search(grep, ctx, "hit", context=1)
    assert result.summary == "237 matches in 119 files"  # 118 files of 2, and f119.txt
    assert result.text.endswith("\n\n137 more matches not shown; narrow the pattern or path.")
    assert result.text.split("\n\n")[-2] == "f049.txt:1: hit\nf049.txt:2: hit"  # the 100th
