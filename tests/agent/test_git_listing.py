"""git's listing of a workspace is the walk's, whatever the tree holds.

``walk`` asks git in a repository (the whole workspace in three processes,
a folder in one) and walks the folders elsewhere; on any tree the two must
list the same files in the same order: tracked and untracked, deleted ones
and links left out, ignored ones left out, names of any characters.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.tools.list_files import _regular_entries, _walk_folder, walk

GIT = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, env={**os.environ, **GIT}
    )


names = st.text(st.sampled_from("ab.-_ ?\t\\é#!x1"), min_size=1, max_size=6).filter(
    lambda n: n not in (".", "..", ".git") and not n.startswith(".git")
)
paths = st.lists(names, min_size=1, max_size=3).map("/".join)
kinds = st.sampled_from(
    ["tracked", "untracked", "deleted", "link", "ignored", "now_a_link", "now_a_file"]
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.dictionaries(paths, kinds, min_size=1, max_size=12))
def test_git_lists_what_the_walk_finds(tmp_path_factory, tree: dict[str, str]) -> None:
    root = tmp_path_factory.mktemp("repo")
    (root / ".gitignore").write_text("*.o\n")
    made: dict[str, str] = {}
    for rel, kind in tree.items():
        target = root / (rel + ".o" if kind == "ignored" else rel)
        if any(_taken(root / p) for p in _parents(rel)) or os.path.lexists(target):
            continue  # a file where a folder is wanted, or a folder where a file is
        target.parent.mkdir(parents=True, exist_ok=True)
        if kind in ("link", "now_a_file"):
            target.symlink_to("elsewhere")
        else:
            target.write_text(rel + "\n")
        made[str(target.relative_to(root))] = kind
    git(root, "init", "-q")
    git(root, "add", "-f", "--", ".gitignore", *[r for r, k in made.items() if k != "untracked"])
    git(root, "commit", "-q", "-m", "tree")
    for rel, kind in made.items():
        if kind == "deleted":
            (root / rel).unlink()
        elif kind == "now_a_link":  # committed a file, now a link
            (root / rel).unlink()
            (root / rel).symlink_to("elsewhere")
        elif kind == "now_a_file":  # committed a link, now a file
            (root / rel).unlink()
            (root / rel).write_text("a file now\n")
    listed = list(walk(root))
    walked = list(_walk_folder(root, ".", ()))
    tracked_ignored = [r for r, k in made.items() if k == "ignored"]
    # git lists a tracked file an ignore pattern matches; the walk cannot know it is tracked
    assert [r for r in listed if r not in tracked_ignored] == walked
    assert set(tracked_ignored) <= set(listed)
    for folder in {r.split("/")[0] for r in made if "/" in r}:
        if (root / folder).is_dir():
            inside = [r for r in listed if r.startswith(f"{folder}/")]
            assert list(walk(root, folder)) == inside


def _taken(path: Path) -> bool:
    """Something not a folder is there: a file, a link."""
    return path.is_symlink() or (path.exists() and not path.is_dir())


def _parents(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def test_a_conflicted_file_is_listed_once(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "a.txt").write_text("base\n")
    git(tmp_path, "add", "a.txt")
    git(tmp_path, "commit", "-q", "-m", "base")
    git(tmp_path, "checkout", "-q", "-b", "other")
    (tmp_path / "a.txt").write_text("other\n")
    git(tmp_path, "commit", "-q", "-am", "other")
    git(tmp_path, "checkout", "-q", "main")
    (tmp_path / "a.txt").write_text("main\n")
    git(tmp_path, "commit", "-q", "-am", "main")
    subprocess.run(["git", "merge", "-q", "other"], cwd=tmp_path, capture_output=True, check=False)
    assert "<<<<<<<" in (tmp_path / "a.txt").read_text()
    assert list(walk(tmp_path)) == ["a.txt"]


def test_an_index_entry_is_cut_at_its_path_whatever_its_object_name() -> None:
    sha1 = "100644 " + "a" * 40 + " 0\tsrc/a b.c\0" + "120000 " + "b" * 40 + " 0\tlink\0"
    sha256 = "100755 " + "c" * 64 + " 0\trun.sh\0" + "160000 " + "d" * 64 + " 0\tsub\0"
    conflict = "".join(f"100644 {'e' * 40} {n}\tboth.c\0" for n in "123")
    assert _regular_entries(sha1) == ["src/a b.c"]
    assert _regular_entries(sha256) == ["run.sh"]
    assert _regular_entries(conflict) == ["both.c"]
    assert _regular_entries("") == []
