"""``list_files``: the files under a folder, as the agent sees the workspace.

The files are those on disk that ``.gitignore`` files (the root's and nested
ones, by git's rules: the deepest file's last matching pattern decides, and
nothing inside an excluded folder comes back) do not exclude, without
``.git`` and symbolic links (ripgrep skips them too); plus every text of the
overlay (files the agent staged, the editor's open buffers), ignored or not;
minus the files staged as deleted. A folder named as the start is walked
even when ignored, as ripgrep does.

``glob`` is matched against the workspace-relative path with gitignore rules
(pathspec): ``*.py`` without a slash matches the name at any depth,
``src/*.py`` only directly in ``src``, ``**/`` spans folders and ``tests/``
is everything in a ``tests`` folder. ``Scope`` and ``walk`` are shared with
``grep``. In a git repository, git lists the files (``walk``).
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from pathspec import GitIgnoreSpec

from agent.execution.git_process import GitProcess
from agent.messages import NO_SUCH_FILE
from agent.staging.workspace import FileMissing, NotATextFile, Overlay, ToolError
from agent.tools import messages
from agent.tools.base import ToolResult, load_spec
from agent.tools.context import ToolContext

MAX_FILES = 500
GIT_SECONDS = 30.0
REGULAR_MODES = ("100644 ", "100755 ")  # in the index: a file, an executable

Rules = tuple[tuple[str, GitIgnoreSpec], ...]  # (folder, its .gitignore), outermost first


class BadGlob(ToolError):
    reason = "bad_glob"


@dataclass(frozen=True)
class Scope:
    """The files a listing or search covers: under ``start``, matching ``glob``."""

    start: str
    glob: str | None = None
    glob_matches: Callable[[str], bool] = field(default=lambda _: True, compare=False, repr=False)

    @classmethod
    def of(cls, overlay: Overlay, path: str | None, glob: str | None) -> Scope:
        """The scope of ``path`` (a file or folder) and ``glob``, or a ``ToolError``."""
        start = overlay.relative(path or ".")
        if not glob:
            scope = cls(start)
        else:
            try:
                spec = GitIgnoreSpec.from_lines([glob])
            except (ValueError, re.error) as error:
                raise BadGlob(messages.BAD_GLOB.format(glob=glob, error=error)) from None
            scope = cls(start, glob, spec.match_file)
        if start != "." and not overlay.exists(start) and not cls(start).texts(overlay):
            raise FileMissing(NO_SUCH_FILE.format(path=start))
        target = overlay.root / start
        if target.exists() and not (target.is_dir() or target.is_file()):
            # a FIFO, a device or a socket: reading it could block forever
            raise NotATextFile(messages.NOT_LISTABLE.format(path=start))
        return scope

    @property
    def where(self) -> str:
        """The scope in words, for messages: "src (files matching '*.py')"."""
        folder = messages.WHOLE_WORKSPACE if self.start == "." else self.start
        if not self.glob:
            return folder
        return messages.SCOPE_WITH_GLOB.format(folder=folder, glob=self.glob)

    def covers(self, relative: str) -> bool:
        inside = self.start in (".", relative) or relative.startswith(f"{self.start}/")
        git = ".git" in relative.split("/")
        return inside and not git and self.glob_matches(relative)

    def texts(self, overlay: Overlay) -> dict[str, str]:
        """The overlay's texts in scope (staged files and open buffers), by path."""
        return {
            relative: text
            for relative, text in overlay.overlaid().items()
            if text is not None and self.covers(relative)
        }

    def disk_files(self, root: Path, overlaid: Collection[str]) -> Iterator[str]:
        """The files on disk in scope but not ``overlaid``, in path order."""
        files = walk(root, self.start)  # under ``start``, none in a ``.git`` folder
        if self.glob is None:  # each file in scope: no look at each (78,000 on Linux)
            yield from (rel for rel in files if rel not in overlaid) if overlaid else files
            return
        for relative in files:
            if relative not in overlaid and self.covers(relative):
                yield relative


def path_key(relative: str) -> str:
    """Sort key putting a folder's files together, as ripgrep's ``--sort path`` does:
    the path compared part by part, as a string with its slashes made the least
    character (a string sorts faster than a tuple of its parts)."""
    return relative.replace("/", "\0")


def walk(root: Path, start: str = ".") -> Iterator[str]:
    """The files under ``start`` (relative) that .gitignore files keep, in path order.

    At the top of a git repository git lists them (``git ls-files``, far
    faster than a walk on a big tree; it also honours ``.git/info/exclude``);
    elsewhere, or for a start folder that is itself ignored, they are walked.
    """
    target = root / start
    if target.is_file():
        yield start
    elif target.is_dir():
        listed = _git_files(root, start)
        if listed is not None:
            yield from listed
        else:
            yield from _walk_folder(root, start, _rules_above(root, start))


def _git_files(root: Path, start: str) -> list[str] | None:
    """The regular files git lists under ``start``, None where git cannot say.

    Tracked and untracked files alike; links, submodules and deleted files
    left out. A git process that reads the index loads all of it (on a big
    repository that is much of its time), so a folder takes one ``git
    ls-files`` for both kinds, with an ``lstat`` of each file it lists, and
    whether ``start`` itself is ignored asked beside it (of the ignore files
    only). The whole workspace takes three processes at once
    (``_whole_workspace``).
    """
    if not (root / ".git").exists():
        return None
    if start == ".":
        return _whole_workspace(root)
    ignored = _git_process(root, "check-ignore", "-q", "--no-index", "--", start)
    # the folder as it is named, not a pattern (a folder named ``?`` is that folder)
    asked = ["--literal-pathspecs", "ls-files", "-z", "-t", "-s", "--cached", "--others"]
    asked += ["--exclude-standard"]
    listing = _git_process(root, *asked, "--", start).output()
    if ignored.output() is not None:
        return None  # ignored, but named outright: walked, as ripgrep does
    if listing is None:
        return None
    files: list[str] = []  # in git's order, nearly the order wanted: the sort is quick
    last = ""
    for entry in os.fsdecode(listing).split("\0"):
        tag, _, rest = entry.partition(" ")
        if tag != "?":
            rest = rest.partition("\t")[2]
            if rest == last:  # a conflict lists a file once a stage
                continue
            last = rest
        # a link, a submodule, a deleted file, or one gone since it was listed: left out
        if rest and _is_file(root, rest):
            files.append(rest)
    return _sorted(files)


def _whole_workspace(root: Path) -> list[str] | None:
    """The whole workspace's files: the index's regular files, less those ``git
    diff-files`` finds deleted or of another type now (it looks at every file
    on several threads, in C; one of those that is a regular file now is
    listed), plus the untracked ones, each a process of its own. The
    untracked files are the slow part (git walks the tree for them): the
    index's entries are read while it walks."""
    tracked = _git_process(root, "ls-files", "-z", "-s")
    untracked = _git_process(root, "ls-files", "-z", "--others", "--exclude-standard")
    deletions = _git_process(root, "diff-files", "-z", "--name-only", "--diff-filter=DT")
    index = tracked.output()
    files = _regular_entries(os.fsdecode(index)) if index is not None else None
    others, deleted = untracked.output(), deletions.output()
    if files is None or others is None or deleted is None:
        return None
    if deleted:
        changed = set(os.fsdecode(deleted).split("\0"))
        files = [rel for rel in files if rel not in changed]
        files += [rel for rel in changed if rel and _is_file(root, rel)]
    files += [rel for rel in os.fsdecode(others).split("\0") if rel and _is_file(root, rel)]
    return _sorted(files)


def _regular_entries(listing: str) -> list[str]:
    """The paths of ``git ls-files -z -s`` entries that are regular files, each once.

    An entry is its mode, object name, stage, a tab and the path; all but the
    path have one width in a repository (the object name is SHA-1's or
    SHA-256's), so the path is cut at the first entry's tab: one slice an
    entry instead of parsing each (78,000 entries on Linux).
    """
    entries = listing.split("\0")
    at = entries[0].find("\t") + 1
    if not at:
        return []
    paths = [entry[at:] for entry in entries if entry.startswith(REGULAR_MODES)]
    if any(f" {stage}\t" in listing for stage in "123"):  # a conflict: an entry a stage
        paths = list(dict.fromkeys(paths))
    return paths


def _is_file(root: Path, rel: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(f"{root}/{rel}").st_mode)
    except OSError:
        return False


def _sorted(files: list[str]) -> list[str]:
    if ".git" in "/".join(files):  # rare: a folder named .git somewhere
        files = [f for f in files if ".git" not in f.split("/")]
    return sorted(files, key=path_key)


def _git_process(root: Path, *args: str) -> GitProcess:
    """``git ARGS`` started now (read with ``output``: None if it failed)."""
    return GitProcess(root, "-c", "core.quotePath=false", *args, seconds=GIT_SECONDS)


def _rules_above(root: Path, start: str) -> Rules:
    """The .gitignore files above ``start``, less the patterns excluding a folder on the way.

    ``start`` was named outright, so like ripgrep the walk enters it even when
    ignored (a pattern like ``*`` that also matches files is dropped with it).
    """
    rules: Rules = ()
    parts = PurePosixPath(start).parts if start != "." else ()
    for depth in range(len(parts)):
        folder = "/".join(parts[:depth]) or "."
        spec = _gitignore(root, folder)
        if spec is not None:
            way = ["/".join(parts[depth:end]) + "/" for end in range(depth + 1, len(parts) + 1)]
            kept = [p for p in spec.patterns if not (p.include and any(map(p.match_file, way)))]
            rules = (*rules, (folder, GitIgnoreSpec(kept)))
    return rules


def _walk_folder(root: Path, folder: str, rules: Rules) -> Iterator[str]:
    spec = _gitignore(root, folder)
    if spec is not None:
        rules = (*rules, (folder, spec))
    try:
        entries = sorted(os.scandir(root / folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.name == ".git" or entry.is_symlink():
            continue
        relative = entry.name if folder == "." else f"{folder}/{entry.name}"
        is_folder = entry.is_dir()
        if _ignored(relative, is_folder, rules):
            continue
        if is_folder:
            yield from _walk_folder(root, relative, rules)
        elif entry.is_file():
            yield relative


def _gitignore(root: Path, folder: str) -> GitIgnoreSpec | None:
    try:
        lines = (root / folder / ".gitignore").read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    try:
        return GitIgnoreSpec.from_lines(lines)
    except (ValueError, re.error):  # git skips a bad pattern; so do we
        return GitIgnoreSpec.from_lines(line for line in lines if _valid_pattern(line))


def _valid_pattern(line: str) -> bool:
    try:
        GitIgnoreSpec.from_lines([line])
    except (ValueError, re.error):
        return False
    return True


def _ignored(relative: str, is_folder: bool, rules: Rules) -> bool:
    for folder, spec in reversed(rules):
        inner = relative if folder == "." else relative[len(folder) + 1 :]
        decision = spec.check_file(f"{inner}/" if is_folder else inner).include
        if decision is not None:
            return decision
    return False


class ListFiles:
    spec = load_spec("list_files")

    def describe(self, args: dict[str, Any]) -> str:
        return f"Listing files in {args.get('path') or 'the workspace'}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        overlay = ctx.overlay
        scope = Scope.of(overlay, args.get("path"), args.get("glob"))
        overlaid, texts = set(overlay.overlaid()), scope.texts(overlay)
        disk = await asyncio.to_thread(list, scope.disk_files(overlay.root, overlaid))
        # disk is in order and holds none of texts
        files = sorted([*disk, *texts], key=path_key) if texts else disk
        if not files:
            return ToolResult(messages.NO_FILES.format(where=scope.where), summary="0 files")
        marks = {
            relative: messages.MARK_NEW if before is None else messages.MARK_MODIFIED
            for relative, before, after in overlay.changed()
            if after is not None
        }
        lines = [relative + marks.get(relative, "") for relative in files[:MAX_FILES]]
        if len(files) > MAX_FILES:
            lines.append(messages.MORE_FILES.format(count=len(files) - MAX_FILES))
        return ToolResult("\n".join(lines), summary=count(len(files), "file"))


def count(number: int, one: str, many: str = "") -> str:
    """``1 file``, ``2 files``; ``many`` for a plural that is not ``one`` + s."""
    return f"{number} {one}" if number == 1 else f"{number} {many or one + 's'}"


TOOL = ListFiles()
