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

from agent import messages
from agent.staging.workspace import NotATextFile

from . import positions


@dataclass
class OpenDocument:
    uri: str
    text: str
    version: int


@dataclass
class Documents:
    """The open buffers. One over ``max_bytes`` (UTF-8; the agent's ``maxFileBytes``)
    is not kept: its URI is remembered as too large (``oversized``) until it is
    closed or its whole text is sent again within the limit, and ``warn`` says so."""

    encoding: str = types.PositionEncodingKind.Utf16
    max_bytes: int = 1_000_000
    _open: dict[str, OpenDocument] = field(default_factory=dict)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    # Called with the URI after every open, change and close (the review follows them).
    listeners: list[Callable[[str], None]] = field(default_factory=list)
    oversized: dict[str, int] = field(default_factory=dict)  # URI -> its size in bytes
    warn: Callable[[str], None] | None = None

    def open(self, uri: str, text: str, version: int) -> None:
        if self._over(uri, text):
            return
        self.oversized.pop(uri, None)
        self._open[uri] = OpenDocument(uri, text, version)
        self._notify(uri)

    def too_large(self, uri: str, size: int) -> None:
        """``uri``'s buffer is ``size`` bytes, over the limit: it is not kept."""
        first = uri not in self.oversized
        self.oversized[uri] = size
        if first and self.warn is not None:
            self.warn(
                f"surehand does not read the editor's buffer of {uri}: it is {size} bytes,"
                f" over the limit of {self.max_bytes} (maxFileBytes); the agent sees it as"
                " a file it cannot read until it is smaller"
            )
        if self._open.pop(uri, None) is not None:
            self._notify(uri)

    def _over(self, uri: str, text: str) -> bool:
        if len(text) * 4 <= self.max_bytes:
            return False
        size = len(text.encode("utf-8", "surrogatepass"))
        if size <= self.max_bytes:
            return False
        self.too_large(uri, size)
        return True

    def change(
        self,
        uri: str,
        version: int,
        changes: Sequence[types.TextDocumentContentChangeEvent],
    ) -> None:
        document = self._open.get(uri)
        if document is None and uri in self.oversized:
            # A buffer too large to keep is taken again from a whole new text, if small.
            wholes = [
                i
                for i, c in enumerate(changes)
                if not isinstance(c, types.TextDocumentContentChangePartial)
            ]
            if wholes:
                self.open(uri, changes[wholes[-1]].text, version)
                document, changes = self._open.get(uri), changes[wholes[-1] + 1 :]
        if document is None:
            return
        text = document.text
        for change in changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                starts = positions.line_starts(text)
                begin = positions.offset(text, change.range.start, self.encoding, starts)
                end = positions.offset(text, change.range.end, self.encoding, starts)
                begin, end = min(begin, end), max(begin, end)  # a reversed range, as editors do
                text = text[:begin] + change.text + text[end:]
            else:
                text = change.text
            if self._over(uri, text):
                return
        document.text, document.version = text, version
        self._notify(uri)

    def close(self, uri: str) -> None:
        self.oversized.pop(uri, None)
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
    """The workspace-relative path of ``uri``, None when it is not a file in the root:
    only a ``file:`` URI without a host (or ``localhost``) names one; its path is
    resolved (``..``, percent-encoded or not, and symlinks) before it is compared."""
    if not isinstance(uri, str) or uri[:7].lower() != "file://":
        return None
    host = uri[7:].split("/", 1)[0]
    if host not in ("", "localhost") or "\x00" in uri:
        return None
    path = to_fs_path("file://" + uri[7 + len(host) :])
    if path is None or "\x00" in path:
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
            for uri, size in list(self.documents.oversized.items()):
                if relative_of(self.root, uri) == relative:
                    why = (
                        f"is open in the editor with {size} bytes, over the limit of"
                        f" {self.documents.max_bytes} bytes"
                    )
                    raise NotATextFile(messages.NOT_TEXT.format(path=relative, why=why))
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

    def on_disk(self, relative: str) -> str | None:
        """What ``relative`` holds on disk, whatever a buffer of it says (None: no such
        text file)."""
        try:
            return (self.root / relative).read_bytes().decode("utf-8")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, UnicodeDecodeError):
            return None

    def existing(self, relative: str) -> str | None:
        """What ``relative`` holds if it exists on disk: its buffer's text, else the disk's;
        None when the file is not there, whatever buffer the editor still has of it. A file
        operation happens on disk and is judged there; the text an editor wrote into the
        new file may still be unsaved in its buffer."""
        if not (self.root / relative).is_file():
            return None
        document = self.document(relative)
        return document.text if document is not None else self.on_disk(relative)

    def forget(self) -> None:
        self.read.clear()
