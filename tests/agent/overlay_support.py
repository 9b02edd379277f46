"""Shared by the agent's tests: files on disk, and the editor's open buffers over them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def write_files(root: Path, files: Mapping[str, str | bytes]) -> None:
    """Write each relative path's text (or bytes) under ``root``, making its folders."""
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


class Buffers:
    """The editor's open files, path to unsaved text: a ``TextSource``."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def text(self, relative: str) -> str | None:
        return self.texts.get(relative)

    def paths(self) -> list[str]:
        return list(self.texts)
