"""What of the workspace the shadow copy holds: files to copy, folders to link.

In a git repository, what ``git ls-files --cached --others --exclude-standard``
lists; elsewhere, a walk that skips what the root's ``.gitignore`` ignores.
Ignored folders, and folders named in ``LINKED_NAMES`` that hold no tracked
file, are linked rather than copied (shown read-only in a sandbox); caches
in ``SKIPPED_NAMES`` are left out. So are build outputs (``PRIVATE_NAMES``,
ignored or holding no tracked file): a command builds its own in the copy
and can never reach, or delete, the user's.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pathspec

from agent.execution.git_process import GitProcess

LINKED_NAMES = frozenset({".venv", "venv", "node_modules", ".tox", ".nox"})
PRIVATE_NAMES = frozenset({"target", "build", "dist"})
SKIPPED_NAMES = frozenset(
    {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".git"}
)
_NAMED = re.compile(  # a folder named in one of the sets, anywhere on a path
    "(?:^|/)(?:"
    + "|".join(re.escape(n) for n in sorted(LINKED_NAMES | PRIVATE_NAMES | SKIPPED_NAMES))
    + ")/"
)
GIT_SECONDS = 60.0


def scan(root: Path) -> tuple[dict[str, os.stat_result], set[str]]:
    """The files to copy (path to ``lstat``) and the directories to link.

    Build outputs are in neither: the copy has none until a command makes one.
    """
    listed = _git_listing(root)
    paths, links = listed if listed is not None else _walk(root)
    if os.path.lexists(root / ".git"):
        links.add(".git")
    files: dict[str, os.stat_result] = {}
    for rel in paths:
        try:
            st = os.lstat(f"{root}/{rel}")
        except OSError:
            continue  # deleted since it was listed (or tracked and deleted)
        if stat.S_ISDIR(st.st_mode):
            links.add(rel)  # a submodule
        elif stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            files[rel] = st
    links = _outermost(links)
    inside = tuple(f"{link}/" for link in links)
    files = {rel: st for rel, st in files.items() if not rel.startswith(inside)}
    return files, {link for link in links if link.rpartition("/")[2] not in PRIVATE_NAMES}


def _git_listing(root: Path) -> tuple[list[str], set[str]] | None:
    """Tracked and unignored files and the directories to link, None outside a repository."""
    with ThreadPoolExecutor(1) as pool:  # the two listings side by side
        ignored = pool.submit(_ignored_folders, root)
        tagged = _git(root, "ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard")
        ignored_folders = ignored.result()
    if tagged is None:
        return None
    files: list[str] = []
    links: set[str] = set()
    tracked_in: set[str] = set()  # LINKED_NAMES folders holding a tracked file
    untracked_in: set[str] = set()
    for entry in tagged:
        tag, rel = entry[:1], entry[2:]
        if rel.endswith("/"):
            links.add(rel.rstrip("/"))  # a nested repository
            continue
        if not _NAMED.search(rel):  # most files: no folder of interest on the way
            files.append(rel)
            continue
        parts = rel.split("/")[:-1]
        if any(part in SKIPPED_NAMES for part in parts) and tag == "?":
            continue
        named = next(
            (i for i, part in enumerate(parts) if part in LINKED_NAMES | PRIVATE_NAMES), None
        )
        if named is not None:
            (untracked_in if tag == "?" else tracked_in).add("/".join(parts[: named + 1]))
        files.append(rel)
    links |= untracked_in - tracked_in
    links |= ignored_folders
    return files, links


def _ignored_folders(root: Path) -> set[str]:
    listed = _git(
        root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"
    )
    folders = [rel for rel in listed or () if rel.endswith("/")]
    if not folders:
        return set()
    # ``--directory`` also lists folders that only hold ignored things without
    # being ignored; ``check-ignore`` keeps those a pattern ignores.
    ignored = _git(
        root, "check-ignore", "-z", "--stdin", stdin="\0".join(folders) + "\0", ok=(0, 1)
    )
    return {
        rel.rstrip("/")
        for rel in ignored or ()
        if not SKIPPED_NAMES.intersection(rel.rstrip("/").split("/"))
    }


def _git(
    root: Path, *args: str, stdin: str | None = None, ok: tuple[int, ...] = (0,)
) -> list[str] | None:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=root,
            input=os.fsencode(stdin) if stdin is not None else None,
            capture_output=True,
            check=False,
        )
    except OSError:
        return None
    if done.returncode not in ok:
        return None
    return [os.fsdecode(entry) for entry in done.stdout.split(b"\0") if entry]


def _walk(root: Path) -> tuple[list[str], set[str]]:
    """Files the root's ``.gitignore`` does not ignore, and the directories to link."""
    ignore_file = root / ".gitignore"
    lines = ignore_file.read_text("utf-8", "replace").splitlines() if ignore_file.is_file() else []
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    files: list[str] = []
    links: set[str] = set()
    folders = [""]
    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(root / folder))
        except OSError:
            continue  # unreadable: not copied
        for entry in entries:
            rel = folder + entry.name
            if not entry.is_dir(follow_symlinks=False):
                if not spec.match_file(rel):
                    files.append(rel)
            elif entry.name in SKIPPED_NAMES:
                continue
            elif entry.name in LINKED_NAMES | PRIVATE_NAMES or spec.match_file(rel + "/"):
                links.add(rel)
            else:
                folders.append(rel + "/")
    return files, links


def _outermost(folders: set[str]) -> set[str]:
    return {f for f in folders if not under_any(f, folders)}


def under_any(rel: str, folders: set[str]) -> bool:
    """Whether a folder holding ``rel`` is in ``folders``."""
    parts = rel.split("/")
    return any("/".join(parts[:i]) in folders for i in range(1, len(parts)))


@dataclass(frozen=True)
class Status:
    """What ``git status`` says of the workspace: enough to sync without a scan.

    A file in neither of two statuses' ``changed`` is the same in the index,
    the tree and ``head`` both times; if ``head`` is the same commit, it has
    not changed in between.
    """

    head: str  # the commit checked out, "(initial)" before the first one
    changed: frozenset[str]  # differ from head (in the index or the tree), or untracked
    untracked: frozenset[str]
    ignored: frozenset[str]  # folders an ignore pattern matches
    moved: bool = False  # a rename was reported (not expected with --no-renames)


class StatusQuery:
    """``git status`` started now and read later, so the caller can work meanwhile.

    Run with ``--no-optional-locks``: it never rewrites the user's index.
    """

    def __init__(self, root: Path, prefix: str) -> None:
        self.prefix = prefix
        argv = ["--no-optional-locks", "-c", "core.quotePath=false", "status"]
        argv += ["--porcelain=v2", "-z", "--branch", "--untracked-files=all"]
        argv += ["--ignored=matching", "--no-renames", "--ignore-submodules=all", "--", "."]
        self.git = GitProcess(root, *argv, seconds=GIT_SECONDS)

    def result(self) -> Status | None:
        """The status, None if git failed."""
        out = self.git.output()
        return None if out is None else _parse_status(out, self.prefix)


def repository_prefix(root: Path) -> str | None:
    """The root's path inside its git work tree ("" at its top, "src/" in src), None outside one."""
    listed = _git(root, "rev-parse", "--is-inside-work-tree", "--show-prefix")
    if listed is None:
        return None
    lines = "\0".join(listed).splitlines()
    if not lines or lines[0] != "true":
        return None
    return lines[1] if len(lines) > 1 else ""


_FIELDS = {"1": 8, "2": 9, "u": 10, "?": 1, "!": 1}  # an entry's fields before its path


def _parse_status(out: bytes, prefix: str) -> Status | None:
    """``git status --porcelain=v2 -z --branch`` output, paths made relative to the root."""
    head = ""
    changed: set[str] = set()
    untracked: set[str] = set()
    ignored: set[str] = set()
    moved = False
    entries = iter(os.fsdecode(out).split("\0"))
    for entry in entries:
        kind = entry[:1]
        if entry.startswith("# branch.oid "):
            head = entry.removeprefix("# branch.oid ")
        if kind not in _FIELDS:
            continue
        path = entry.split(" ", _FIELDS[kind])[-1]
        if kind == "2":  # a rename: then comes the path it had
            changed.add(next(entries, ""))
            moved = True
        if kind == "!":
            if path.endswith("/"):
                ignored.add(path.rstrip("/"))
            continue
        changed.add(path)
        if kind == "?":
            untracked.add(path)
    if not head:
        return None

    def inside(paths: set[str]) -> frozenset[str]:
        return frozenset(p[len(prefix) :] for p in paths if p.startswith(prefix))

    return Status(head, inside(changed), inside(untracked), inside(ignored), moved)


def rule(rel: str, untracked: bool) -> str:
    """What ``scan`` does with one listed file outside the linked folders:
    "copy", "skip" (an untracked cache) or "scan" (it may change what is linked)."""
    if not _NAMED.search(rel):
        return "copy"
    parts = rel.split("/")[:-1]
    if untracked and any(part in SKIPPED_NAMES for part in parts):
        return "skip"
    return "scan"
