"""Shared by the agent's tests: files on disk, git in them, and the editor's open buffers over them."""

from __future__ import annotations

import subprocess
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


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` with a throw-away identity; its output."""
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    done = subprocess.run(
        ["git", *identity, *args], cwd=root, capture_output=True, text=True, check=True
    )
    return done.stdout


class Buffers:
    """The editor's open files, path to unsaved text: a ``TextSource``."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def text(self, relative: str) -> str | None:
        return self.texts.get(relative)

    def paths(self) -> list[str]:
        return list(self.texts)
