"""The overlay the agent works in: the workspace as it is, plus staged changes.

The base layer is a ``TextSource`` for the current text of each file (the
editor's open buffers, unsaved text included) falling back to the disk.
The staged layer holds the agent's changes, path to new text (None for a
deleted file); reads see it first. Nothing here ever writes to the
workspace: the staged layer becomes the proposal.

Each edited file also keeps its staged edits as hunks of the text the agent
read first (``originals``), as ``StagedText`` (see ``hunks``): a proposal's
hunks are those edits, never a fresh diff of the whole file, so any subset
of them the user accepts is that text with exactly those edits applied.

Every path is relative to the root and must stay inside it (no ``..``, no
absolute path elsewhere, no symlink leading out); ``.git/`` can be read but
not changed; only UTF-8 text up to a size cap is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Protocol

from agent import messages
from agent.staging.hunks import Hunk, StagedText
from editing.disk.paths import OutsideRoot, resolve_inside, why_refused
from editing.disk.workdir import NotText, read_text


class TextSource(Protocol):
    def text(self, relative: str) -> str | None:
        """The current text of ``relative`` if this source holds it (else None: use the disk)."""
        ...

    def paths(self) -> Iterable[str]:
        """The relative paths this source holds text for (the editor's open files)."""
        ...


class ToolError(Exception):
    """A tool call that cannot be done; ``message`` is for the model."""

    reason: ClassVar[str] = "tool_error"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        path: str | None = None,
        line: int | None = None,
    ) -> None:
        """``reason`` overrides the class's code (an engine refusal's, say)."""
        super().__init__(message)
        self.message = message
        self.code = reason or self.reason
        self.path = path
        self.line = line


class PathRefused(ToolError):
    reason = "path_refused"


class FileMissing(ToolError):
    reason = "not_found"


class NotATextFile(ToolError):
    reason = "not_text"


class FileExists(ToolError):
    reason = "exists"


@dataclass(frozen=True)
class EditRecord:
    """One change the agent made, with what it said the change was for."""

    path: str
    description: str
    before: str | None
    after: str | None


@dataclass
class Overlay:
    root: Path
    source: TextSource | None = None
    max_bytes: int = 1_000_000
    staged: dict[str, str | None] = field(default_factory=dict)
    originals: dict[str, str | None] = field(default_factory=dict)
    history: list[EditRecord] = field(default_factory=list)
    moves: dict[str, str] = field(default_factory=dict)  # new path -> the path it moved from
    edits: dict[str, StagedText] = field(default_factory=dict)  # edited files' hunks
    # The base texts read inside ``one_read`` (None outside it).
    _read: dict[str, str | None] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.root = self.root.resolve()

    # -- paths ---------------------------------------------------------------

    def relative(self, path: str) -> str:
        """``path`` as a clean relative POSIX path inside the root, or ``PathRefused``."""
        candidate = path.strip(" ")  # a control character is refused by the rule, not dropped
        if Path(candidate).is_absolute():
            absolute = Path(candidate).resolve()
            if not absolute.is_relative_to(self.root):
                raise PathRefused(messages.OUTSIDE_WORKSPACE.format(path=path, root=self.root))
            candidate = absolute.relative_to(self.root).as_posix()
        try:
            resolved = resolve_inside(self.root, candidate or ".")
        except OutsideRoot as error:
            raise PathRefused(messages.PATH_REFUSED.format(path=path, why=error.why)) from None
        return resolved.relative_to(self.root).as_posix() if resolved != self.root else "."

    def writable(self, path: str) -> str:
        relative = self.relative(path)
        if relative == "." or why_refused(relative, to_change=True):
            raise PathRefused(messages.READ_ONLY.format(path=path))
        return relative

    # -- reading ---------------------------------------------------------------

    @contextmanager
    def one_read(self) -> Iterator[None]:
        """Inside it, each file's base text is read once: the reads of one change see
        one text, and a megabyte file is not read four times. Never longer: the file
        may change before the next change, on disk at the same size and mtime too."""
        if self._read is not None:
            yield  # inside an outer one: its reads hold
            return
        self._read = {}
        try:
            yield
        finally:
            self._read = None

    def base(self, relative: str) -> str | None:
        """The text before the agent's changes, None when there is no such file."""
        if self._read is None:
            return self._base(relative)
        if relative not in self._read:
            self._read[relative] = self._base(relative)
        return self._read[relative]

    def _base(self, relative: str) -> str | None:
        if self.source is not None:
            text = self.source.text(relative)
            if text is not None:
                return text
        path = self.root / relative
        if not path.exists():
            return None
        if path.is_dir():
            raise NotATextFile(messages.IS_A_DIRECTORY.format(path=relative))
        try:
            return read_text(path, self.max_bytes)
        except NotText as error:
            raise NotATextFile(messages.NOT_TEXT.format(path=relative, why=error.why)) from None

    def text(self, relative: str) -> str | None:
        """The current text (staged first), None when the file does not exist."""
        if relative in self.staged:
            return self.staged[relative]
        return self.base(relative)

    def read(self, path: str) -> tuple[str, str]:
        """``(relative path, text)`` of an existing file, or a ``ToolError``."""
        relative = self.relative(path)
        text = self.text(relative)
        if text is None:
            raise FileMissing(messages.NO_SUCH_FILE.format(path=relative))
        return relative, text

    def exists(self, relative: str) -> bool:
        if relative in self.staged:
            return self.staged[relative] is not None
        in_source = self.source is not None and self.source.text(relative) is not None
        return in_source or (self.root / relative).exists()

    # -- changing -------------------------------------------------------------

    def stage(
        self,
        relative: str,
        text: str | None,
        description: str,
        spans: Sequence[tuple[int, int]] | None = None,
        written: Sequence[tuple[int, int]] | None = None,
        *,
        anchor: tuple[int, int] | None = None,
    ) -> None:
        """Record a change of ``relative`` (None deletes it) made for ``description``;
        ``spans``: the line spans of its current text that the change replaced,
        ``written``: the line spans of ``text`` written in their place; ``anchor``:
        a line of the current text and the offset it starts at, where known."""
        before = self.text(relative)
        if relative not in self.originals:
            self.originals[relative] = self.base(relative)
        original = self.originals[relative]
        self.staged[relative] = text
        self.history.append(EditRecord(relative, description, before, text))
        if text is None or original is None:
            self.edits.pop(relative, None)
            return
        staged = self.edits.get(relative)
        if staged is None or before is None:  # first edit, or made again after a delete
            staged = self.edits[relative] = StagedText(original)
        staged.change(text, description, spans, written, anchor)

    def hunks(self, relative: str) -> tuple[Hunk, ...]:
        """The staged edits of an edited file, as hunks of its original text."""
        staged = self.edits.get(relative)
        return tuple(staged.hunks) if staged is not None else ()

    def changed(self) -> Iterator[tuple[str, str | None, str | None]]:
        """``(path, before, after)`` for every file whose staged text differs from its base."""
        for relative, after in self.staged.items():
            before = self.originals.get(relative)
            if before != after:
                yield relative, before, after

    def overlaid(self) -> dict[str, str | None]:
        """Every path whose text is not the disk's: staged changes and the source's texts.

        Searches and the shadow copy read these instead of the files on disk.
        """
        texts: dict[str, str | None] = {}
        if self.source is not None:
            for relative in self.source.paths():
                texts[relative] = self.source.text(relative)
        texts.update(self.staged)
        return texts

    def discard(self, relative: str | None = None) -> None:
        """Forget the staged change of one file, or of all files."""
        paths = list(self.staged) if relative is None else [relative]
        for path in paths:
            self.staged.pop(path, None)
            self.originals.pop(path, None)
            self.moves.pop(path, None)
            self.edits.pop(path, None)
        self.history = [r for r in self.history if relative is not None and r.path != relative]
