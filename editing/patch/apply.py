"""Apply a whole patch to a set of files, all or nothing.

Pure like the rest of the engine: ``read(path)`` gives a file's current
text (None when it does not exist) and nothing is written. Every operation
is computed first, in order, each seeing the results of the ones before it;
the first refusal stops everything and the caller writes nothing.

An update whose chunks are each a plain splice found exactly once is
applied in one pass (``plain``), with the very result the general path
(``chunks``) gives; every other update takes the general path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..document import Document
from ..errors import Exists, NoChange, NotFound
from ..matches import Level
from ..report import text_diff
from . import messages
from .chunks import apply_chunks
from .model import AddFile, DeleteFile, Patch, UpdateFile
from .parser import parse_patch
from .plain import apply_plain

Reader = Callable[[str], "str | None"]


@dataclass(frozen=True)
class FileChange:
    """One file's fate: ``A``dded, ``M``odified, ``D``eleted or ``R``enamed (and maybe edited).

    ``path`` is where the file is afterwards (for a deletion, where it was);
    ``source`` is the old path of a renamed file.
    """

    kind: str
    path: str
    before: str | None
    after: str | None
    diff: str
    source: str | None = None

    @property
    def summary(self) -> str:
        if self.kind == "R":
            return f"R {self.source} -> {self.path}"
        return f"{self.kind} {self.path}"


@dataclass(frozen=True)
class PatchResult:
    changes: tuple[FileChange, ...]
    level: Level

    @property
    def summary(self) -> list[str]:
        return [change.summary for change in self.changes]

    @property
    def diff(self) -> str:
        return "".join(change.diff for change in self.changes)

    @property
    def files(self) -> dict[str, str | None]:
        """Every path the patch touches and its new text (None: deleted or moved away)."""
        files = {change.path: change.after for change in self.changes}
        files.update({change.source: None for change in self.changes if change.source})
        return files

    @property
    def message(self) -> str:
        head = messages.APPLIED.format(summary=", ".join(self.summary))
        return f"{head}\n{self.diff}" if self.diff else head


@dataclass
class _Workspace:
    """The files as the operations so far left them, over ``read``."""

    read: Reader
    files: dict[str, str | None] = field(default_factory=dict)
    originals: dict[str, str | None] = field(default_factory=dict)  # what ``read`` gave
    diffs: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # renamed file -> its first path

    def original(self, path: str) -> str | None:
        """The file's text before the patch (``read`` once per path)."""
        if path not in self.originals:
            self.originals[path] = self.read(path)
        return self.originals[path]

    def get(self, path: str) -> str | None:
        return self.files[path] if path in self.files else self.original(path)

    def put(self, path: str, text: str | None) -> None:
        self.files[path] = text
        self.diffs.pop(path, None)


def apply_patch(patch: Patch | str, read: Reader) -> PatchResult:
    """The result of applying ``patch`` (parsed first if given as text), or a refusal."""
    if isinstance(patch, str):
        patch = parse_patch(patch)
    work = _Workspace(read)
    level = Level.EXACT
    for op in patch.ops:
        if isinstance(op, AddFile):
            if work.get(op.path) is not None:
                raise Exists(messages.ADD_EXISTS.format(path=op.path), path=op.path)
            work.put(op.path, op.content)
        elif isinstance(op, DeleteFile):
            if work.get(op.path) is None:
                raise NotFound(
                    messages.MISSING.format(header="*** Delete File", path=op.path), path=op.path
                )
            work.put(op.path, None)
        else:
            level = max(level, _update(work, op))
    changes = _changes(work)
    if not changes:
        raise NoChange(messages.NO_CHANGE, path="")
    return PatchResult(tuple(changes), level)


def _update(work: _Workspace, op: UpdateFile) -> Level:
    text = work.get(op.path)
    if text is None:
        raise NotFound(
            messages.MISSING.format(header="*** Update File", path=op.path), path=op.path
        )
    destination = op.move_to if op.move_to and op.move_to != op.path else None
    if destination is not None and work.get(destination) is not None:
        raise Exists(messages.MOVE_EXISTS.format(path=destination), path=destination)
    first_touch = op.path not in work.files
    # Most updates are plain splices, applied in one pass; the general path decides the rest.
    updated = apply_plain(Document(text), op.chunks, op.path, destination) or apply_chunks(
        text, op.chunks, op.path, destination
    )
    target = destination or op.path
    if destination is not None:
        work.put(op.path, None)
        work.sources[destination] = work.sources.pop(op.path, op.path)
    work.put(target, updated.text)
    if first_touch:
        # The chunk diff is exact and cheap; files touched twice get a full diff.
        work.diffs[target] = updated.diff
    return updated.level


def _changes(work: _Workspace) -> list[FileChange]:
    # A file renamed and still there; its first path is no deletion of its own.
    renamed = {
        path: source
        for path, source in work.sources.items()
        if work.files.get(path) is not None and work.original(source) is not None
    }
    moved_away = set(renamed.values())
    changes = []
    for path, after in work.files.items():
        source = renamed.get(path)
        if source is not None:
            before = work.original(source)
            diff = work.diffs.get(path) or text_diff(before, after, source, path)
            changes.append(FileChange("R", path, before, after, diff, source))
            continue
        if path in moved_away and after is None:
            continue
        before = work.original(path)
        if before == after:
            continue
        kind = "A" if before is None else "D" if after is None else "M"
        old_label = "/dev/null" if before is None else path
        new_label = "/dev/null" if after is None else path
        diff = work.diffs.get(path) or text_diff(before, after, old_label, new_label)
        changes.append(FileChange(kind, path, before, after, diff))
    return changes
