"""``grep``: search the text of the workspace's files as the agent sees them.

Files on disk are searched by ripgrep when there is one (the virtualenv's,
else on ``PATH``), else in Python over ``list_files.walk``; either way
``.gitignore`` files, ``.git``, symbolic links, binary files (a NUL byte)
and files over ``max_file_bytes`` are left out. ripgrep honours .gitignore
files as git does inside a repository (plus ``.ignore`` files and git's
excludes), and all of them outside one; the Python walk reads the
workspace's own .gitignore files.

The overlay's texts (staged changes, open buffers) replace the disk's: those
files are dropped from ripgrep's results and searched in Python with the
pattern compiled by ``re``, so a pattern ripgrep takes but ``re`` cannot is
refused when such files are in scope. Lines are matched one at a time.

Results come in path order (a folder's files together) with at most
``MAX_MATCHES`` matching lines shown, and the number of all the others.
ripgrep searches in parallel (``--sort=path`` would make it search on one
thread, at about half its speed on two cores), so files come in any order,
each whole: ``Found`` keeps the files first in path order until they hold
enough lines, and a file that comes later in path order than all of those
is counted, its events not decoded. The Python search adds files in path
order, and counts only once it has enough.
"""

from __future__ import annotations

import asyncio
import base64
import bisect
import json
import re
import shutil
import sys
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar

from agent.models.model import ToolSpec
from agent.staging.workspace import ToolError
from agent.tools import messages
from agent.tools.base import ToolResult, load_spec
from agent.tools.context import ToolContext
from agent.tools.list_files import Scope, count, path_key

MAX_MATCHES = 100
MAX_CONTEXT = 5
MAX_LINE_CHARS = 200
_MATCH = b'{"type":"match"'
_CONTEXT = b'{"type":"context"'


class BadPattern(ToolError):
    reason = "bad_pattern"


@dataclass(frozen=True)
class Query:
    pattern: str
    ignore_case: bool = False
    context: int = 0  # lines before and after each match


@dataclass(frozen=True)
class FileHits:
    """One file's matching lines, and its lines by number (matches and context)."""

    path: str
    lines: dict[int, str]
    matches: tuple[int, ...]


@dataclass
class Found:
    """Files added in any order: those first in path order kept, in that order, as long
    as they are needed to show ``MAX_MATCHES`` lines; the others only counted."""

    hits: list[FileHits] = field(default_factory=list)
    matches: int = 0
    files: int = 0
    _keys: list[str] = field(default_factory=list)  # the kept files' path keys
    _kept: int = 0  # matching lines in the kept files

    def wants(self, path: str) -> bool:
        """Whether a file at ``path`` could be among those shown: else only count it."""
        return self._kept < MAX_MATCHES or path_key(path) < self._keys[-1]

    def add(self, hits: FileHits | None, count: int = 0) -> None:
        """Add a file's hits, or just the ``count`` of matches of a file not kept."""
        if hits is not None:
            count = len(hits.matches)
            if self.wants(hits.path):
                self._keep(hits)
        if count:
            self.matches += count
            self.files += 1

    def _keep(self, hits: FileHits) -> None:
        key = path_key(hits.path)
        at = bisect.bisect(self._keys, key)
        self._keys.insert(at, key)
        self.hits.insert(at, hits)
        self._kept += len(hits.matches)
        while len(self.hits) > 1 and self._kept - len(self.hits[-1].matches) >= MAX_MATCHES:
            self._kept -= len(self.hits.pop().matches)  # the others show enough without it
            self._keys.pop()


def find_ripgrep() -> str | None:
    """The ``rg`` beside this interpreter (the pinned one), else the one on ``PATH``."""
    return shutil.which("rg", path=str(Path(sys.executable).parent)) or shutil.which("rg")


@dataclass
class Grep:
    """The tool; with ``rg=None`` it searches in Python only."""

    rg: str | None = field(default_factory=find_ripgrep)
    spec: ClassVar[ToolSpec] = load_spec("grep")

    def describe(self, args: dict[str, Any]) -> str:
        where = f" in {args['path']}" if args.get("path") else ""
        return f"Searching for {args['pattern']!r}{where}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        context = min(max(args.get("context") or 0, 0), MAX_CONTEXT)
        query = Query(args["pattern"], bool(args.get("ignore_case")), context)
        overlay, max_bytes = ctx.overlay, ctx.settings.max_file_bytes
        scope = Scope.of(overlay, args.get("path"), args.get("glob"))
        overlaid, texts = set(overlay.overlaid()), scope.texts(overlay)
        if self.rg is None:
            disk = await asyncio.to_thread(
                search_disk, overlay.root, scope, query, max_bytes, skip=overlaid
            )
        else:
            disk = await ripgrep(self.rg, overlay.root, scope, query, max_bytes, skip=overlaid)
        changed = Found()
        if texts:
            regex = _compile(query, ripgrep_accepted=self.rg is not None)
            for relative in sorted(texts, key=path_key):
                changed.add(search(relative, texts[relative], regex, context))
        matches, files = disk.matches + changed.matches, disk.files + changed.files
        if not matches:
            text = messages.NO_MATCHES.format(pattern=query.pattern, where=scope.where)
            return ToolResult(text, summary="no matches")
        hits = sorted([*disk.hits, *changed.hits], key=lambda h: path_key(h.path))
        summary = f"{count(matches, 'match', 'matches')} in {count(files, 'file')}"
        return ToolResult(render(hits, matches, context), summary=summary)


# -- Python -------------------------------------------------------------------


def search(relative: str, text: str, regex: re.Pattern[str], context: int) -> FileHits | None:
    """The lines of ``text`` that ``regex`` matches, with ``context`` lines around them."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    matches = tuple(n for n, line in enumerate(lines, 1) if regex.search(line))
    if not matches:
        return None
    shown = {n for m in matches for n in range(m - context, m + context + 1)}
    return FileHits(
        relative, {n: lines[n - 1].rstrip("\r") for n in shown if 0 < n <= len(lines)}, matches
    )


def search_disk(
    root: Path, scope: Scope, query: Query, max_bytes: int, *, skip: Collection[str]
) -> Found:
    """Search the files on disk in scope, not in ``skip``, skipping binary and large ones."""
    regex = _compile(query)
    found = Found()
    for relative in scope.disk_files(root, skip):
        path = root / relative
        try:
            data = path.read_bytes() if path.stat().st_size <= max_bytes else b"\0"
        except OSError:
            continue
        if b"\0" in data:
            continue
        text = data.decode("utf-8", "replace")
        if not found.wants(relative):  # enough lines to show: only count the rest
            found.add(None, count_lines(text, regex))
        else:
            found.add(search(relative, text, regex, query.context))
    return found


def count_lines(text: str, regex: re.Pattern[str]) -> int:
    """How many lines of ``text`` ``regex`` matches, as ``search`` splits them."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return sum(1 for line in lines if regex.search(line))


def _compile(query: Query, ripgrep_accepted: bool = False) -> re.Pattern[str]:
    try:
        return re.compile(query.pattern, re.IGNORECASE if query.ignore_case else 0)
    except re.error as error:
        text = messages.ONLY_RIPGREP_ACCEPTS if ripgrep_accepted else messages.BAD_PATTERN
        raise BadPattern(text.format(pattern=query.pattern, error=error)) from None


# -- ripgrep ------------------------------------------------------------------


async def ripgrep(
    rg: str, root: Path, scope: Scope, query: Query, max_bytes: int, *, skip: Collection[str]
) -> Found:
    """Search the files on disk in scope, not in ``skip``, with ripgrep."""
    try:
        process = await asyncio.create_subprocess_exec(
            *_argv(rg, root, query, max_bytes, scope.start),
            cwd=root,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            # An event holds a line of a file and its submatches: under 64 bytes a character.
            limit=64 * max_bytes + 2**16,
        )
    except OSError:  # rg went missing or cannot run: search in Python
        return await asyncio.to_thread(search_disk, root, scope, query, max_bytes, skip=skip)
    assert process.stdout is not None and process.stderr is not None
    stderr = asyncio.ensure_future(process.stderr.read())
    try:
        found, finished = await _read_events(
            process.stdout, lambda p: p not in skip and scope.covers(p)
        )
        await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        errors = (await stderr).decode("utf-8", "replace").strip().removeprefix("rg: ")
    if not finished:
        if "regex" in errors:
            raise BadPattern(
                messages.RIPGREP_BAD_PATTERN.format(pattern=query.pattern, errors=errors)
            )
        errors = errors or messages.RIPGREP_EXIT_CODE.format(code=process.returncode)
        raise ToolError(messages.RIPGREP_FAILED.format(errors=errors))
    return found


def _argv(rg: str, root: Path, query: Query, max_bytes: int, start: str) -> list[str]:
    argv = [rg, "--json", "--no-config", "--no-messages", "--hidden"]
    argv += ["--glob=!.git", f"--max-filesize={max_bytes}"]
    if not any((folder / ".git").exists() for folder in (root, *root.parents)):
        argv.append("--no-require-git")  # honour .gitignore files outside a repository too
    if query.ignore_case:
        argv.append("--ignore-case")
    if query.context:
        argv.append(f"--context={query.context}")
    return [*argv, f"--regexp={query.pattern}", "--", start]


async def _read_events(
    stream: AsyncIterator[bytes], keep: Callable[[str], bool]
) -> tuple[Found, bool]:
    """``Found`` from ripgrep's ``--json`` events, and whether its summary came.

    Each file's events come together, from its ``begin`` to its ``end``."""
    found = Found()
    path, counted, counting = "", 0, False
    lines: dict[int, str] = {}
    matches: list[int] = []
    async for raw in stream:
        if counting and raw.startswith((_MATCH, _CONTEXT)):  # a file only counted
            counted += raw.startswith(_MATCH)
            continue
        event = json.loads(raw)
        kind, data = event["type"], event["data"]
        if kind == "begin":
            path, lines, matches, counted = PurePosixPath(_text(data["path"])).as_posix(), {}, [], 0
            counting = not found.wants(path)
        elif kind in ("match", "context"):
            lines[data["line_number"]] = _text(data["lines"]).rstrip("\r\n")
            if kind == "match":
                matches.append(data["line_number"])
        elif kind == "end" and data.get("binary_offset") is None and keep(path):
            found.add(FileHits(path, lines, tuple(matches)) if matches else None, counted)
        elif kind == "summary":
            return found, True
    return found, False


def _text(data: dict[str, str]) -> str:
    """A ``{"text"}`` or, for bytes that are not UTF-8, ``{"bytes"}`` (base64) field."""
    if "text" in data:
        return data["text"]
    return base64.b64decode(data["bytes"]).decode("utf-8", "replace")


# -- output -------------------------------------------------------------------


def render(hits: list[FileHits], total: int, context: int) -> str:
    """``path:12: text`` per match, ``path-13- text`` per context line; files apart with context."""
    blocks: list[str] = []
    shown = 0
    for file in hits:
        if shown >= MAX_MATCHES:
            break
        first = file.matches[: MAX_MATCHES - shown]
        visible = {n for m in first for n in range(m - context, m + context + 1)}
        numbers = sorted(visible & file.lines.keys())
        matched = set(file.matches)
        shown += len(matched.intersection(numbers))
        lines: list[str] = []
        for number in numbers:
            if context and lines and number - 1 not in visible:
                lines.append("--")
            mark = ":" if number in matched else "-"
            lines.append(f"{file.path}{mark}{number}{mark} {_clip(file.lines[number])}")
        blocks.append("\n".join(lines))
    text = ("\n\n" if context else "\n").join(blocks)
    if total > shown:
        text += "\n\n" + messages.MORE_MATCHES.format(count=total - shown)
    return text


def _clip(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else f"{line[:MAX_LINE_CHARS]}…"


TOOL = Grep()
