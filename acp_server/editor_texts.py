"""The editor's texts, unsaved changes included, read through ``fs/read_text_file``.

A ``TextSource`` for the overlay (``agent.staging.workspace``): each read asks the
client, from the worker thread, and waits for its answer there; a file the
client cannot read (it does not exist, it is not text, the client failed or
took too long) is read from the disk as usual. The texts read that differ
from the disk are the source's ``paths``: the shadow copy holds them too,
so commands see what the editor shows.
"""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Callable, Iterable
from pathlib import Path

from editing.disk.workdir import Workdir

from .bridge import READ_TIMEOUT

log = logging.getLogger(__name__)

Read = Callable[[str], concurrent.futures.Future[str]]
"""Asks the client for the text of an absolute path."""


class EditorTexts:
    def __init__(self, root: Path, read: Read) -> None:
        self.root = root
        self._read = read
        self._disk = Workdir(root)
        self._seen: dict[str, str] = {}  # texts read through the editor
        self.written: set[str] = set()  # files written through the editor (maybe not saved)

    def text(self, relative: str) -> str | None:
        path = self.root / relative
        if not path.is_file() and relative not in self.written:
            return None  # the client would make up an empty text for a new path
        try:
            text = self._read(str(path)).result(timeout=READ_TIMEOUT)
        except Exception:
            log.info("fs/read_text_file failed for %s; the disk is read", relative, exc_info=True)
            return None
        self._seen[relative] = text
        return text

    def paths(self) -> Iterable[str]:
        """The files whose text in the editor is not the disk's."""
        for relative, text in list(self._seen.items()):
            try:
                on_disk = self._disk.read(relative)
            except Exception:
                on_disk = None
            if on_disk != text:
                yield relative
