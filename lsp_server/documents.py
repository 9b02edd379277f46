"""The editor's open documents, kept in sync from didOpen / didChange / didClose.

The server keeps its own copy rather than pygls's: incremental changes are
applied with LSP's own line rules and the negotiated position encoding
(``positions``), so the text the agent reads is exactly the buffer's, form
feeds and all. ``BufferSource`` lets the agent's overlay read these buffers
(unsaved text included) and remembers which version of a buffer it read, so
a proposal can be sent against that version; it also tells what a file holds
now in the editor, or else on disk.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from . import positions


@dataclass
class OpenDocument:
    uri: str
    text: str
    version: int


@dataclass
class Documents:
    encoding: str = types.PositionEncodingKind.Utf16
    _open: dict[str, OpenDocument] = field(default_factory=dict)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    # Called with the URI after every open, change and close (the review follows them).
    listeners: list[Callable[[str], None]] = field(default_factory=list)

    def open(self, uri: str, text: str, version: int) -> None:
        self._open[uri] = OpenDocument(uri, text, version)
        self._notify(uri)

    def change(
        self,
        uri: str,
        version: int,
        changes: Sequence[types.TextDocumentContentChangeEvent],
    ) -> None:
        document = self._open.get(uri)
        if document is None:
            return
        text = document.text
        for change in changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                starts = positions.line_starts(text)
                begin = positions.offset(text, change.range.start, self.encoding, starts)
                end = positions.offset(text, change.range.end, self.encoding, starts)
                text = text[:begin] + change.text + text[end:]
            else:
                text = change.text
        document.text, document.version = text, version
        self._notify(uri)

    def close(self, uri: str) -> None:
        self._open.pop(uri, None)
        self._notify(uri)

    def get(self, uri: str) -> OpenDocument | None:
        return self._open.get(uri)

    def __iter__(self):
        return iter(list(self._open.values()))

    async def wait_for_change(self, timeout: float) -> bool:
        """Wait until a document changes (or ``timeout`` passes); whether one did."""
        self._changed.clear()
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def _notify(self, uri: str) -> None:
        self._changed.set()
        for listener in self.listeners:
            listener(uri)


def uri_of(root: Path, relative: str) -> str:
    return from_fs_path(str(root / relative)) or ""


def relative_of(root: Path, uri: str) -> str | None:
    """The workspace-relative path of ``uri``, None when it is not a file in the root."""
    path = to_fs_path(uri)
    if path is None:
        return None
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return None


@dataclass
class BufferSource:
    """The agent's base layer: open buffers of the workspace, by relative path."""

    documents: Documents
    root: Path
    # For each path, the versions the agent read, by text: a proposal is sent
    # against the version whose text it started from.
    read: dict[str, dict[str, int]] = field(default_factory=dict)

    def document(self, relative: str) -> OpenDocument | None:
        """The open buffer of ``relative`` (URIs compared as resolved paths)."""
        for document in self.documents:
            if relative_of(self.root, document.uri) == relative:
                return document
        return None

    def text(self, relative: str) -> str | None:
        document = self.document(relative)
        if document is None:
            return None
        self.read.setdefault(relative, {})[document.text] = document.version
        return document.text

    def paths(self) -> Iterable[str]:
        for document in self.documents:
            relative = relative_of(self.root, document.uri)
            if relative is not None:
                yield relative

    def version(self, relative: str, text: str) -> int | None:
        """The buffer version ``text`` was read at (None: the file is not open)."""
        document = self.document(relative)
        if document is None:
            return None
        if document.text == text:
            return document.version
        return self.read.get(relative, {}).get(text)

    def current(self, relative: str) -> str | None:
        """What ``relative`` holds now: its buffer, else the disk (None: no such text file)."""
        document = self.document(relative)
        if document is not None:
            return document.text
        try:
            return (self.root / relative).read_bytes().decode("utf-8")
        except (FileNotFoundError, IsADirectoryError, UnicodeDecodeError):
            return None

    def forget(self) -> None:
        self.read.clear()
