"""Whole-file writes: fine for a new file, guarded for an existing one.

Whole-file output fails in proportion to file size, and its failures
(output cut off, code "summarised" away) are irreversible, so overwriting an
existing file is refused when the content looks like one of them: a
truncated copy, a large share of the lines dropped, an elision line standing
for code, or a file too large to rewrite safely.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from . import elision, messages
from .document import BOM, Document
from .errors import DestructiveWrite, NoChange, Placeholder
from .report import text_diff

MAX_DROPPED_SHARE = 0.3
MAX_LINES = 1000


@dataclass(frozen=True)
class WriteResult:
    path: str
    text: str
    created: bool
    diff: str

    @property
    def message(self) -> str:
        verb = "Created" if self.created else "Rewrote"
        return f"{verb} {self.path}.\n{self.diff}" if self.diff else f"{verb} {self.path}."


def check_write(text: str | None, content: str, *, path: str = "file") -> WriteResult:
    """The text to write for ``content``, or a refusal when it would destroy code.

    ``text`` is the file's current content, None when it does not exist.
    An existing file keeps its BOM and its line ending.
    """
    content = content.replace("\r\n", "\n")
    if text is None:
        return WriteResult(path, content, True, text_diff("", content, path, path))
    doc = Document(text)
    new_text = doc.bom + content.removeprefix(BOM).replace("\n", doc.eol)
    if new_text == text:
        raise NoChange(messages.NO_CHANGE_WRITE.format(path=path), path=path)
    old_lines = doc.view.removesuffix("\n").split("\n") if doc.view else []
    new_lines = content.removeprefix(BOM).removesuffix("\n").split("\n")
    _refuse_placeholders(old_lines, content, path)
    _refuse_destruction(old_lines, new_lines, path)
    return WriteResult(path, new_text, False, text_diff(doc.view, content, path, path))


def _refuse_placeholders(old_lines: list[str], content: str, path: str) -> None:
    existing = {line.strip() for line in old_lines}
    lines = content.split("\n")
    for index in elision.markers(content, stubs=False):
        if lines[index].strip() not in existing:
            raise Placeholder(
                messages.PLACEHOLDER_WRITE.format(path=path, line=lines[index].strip()),
                path=path,
                line=index + 1,
            )


def _refuse_destruction(old_lines: list[str], new_lines: list[str], path: str) -> None:
    total = len(old_lines)
    if total > MAX_LINES:
        raise DestructiveWrite(messages.DESTRUCTIVE_LARGE.format(path=path, total=total), path=path)
    if _is_truncated_copy(old_lines, new_lines):
        raise DestructiveWrite(
            messages.DESTRUCTIVE_TRUNCATED.format(path=path, kept=len(new_lines), total=total),
            path=path,
            line=len(new_lines),
        )
    dropped = _dropped_lines(old_lines, new_lines)
    if total and dropped / total > MAX_DROPPED_SHARE:
        raise DestructiveWrite(
            messages.DESTRUCTIVE_DROPS.format(
                path=path, dropped=dropped, total=total, share=dropped / total
            ),
            path=path,
        )


def _dropped_lines(old_lines: list[str], new_lines: list[str]) -> int:
    """Old lines with no counterpart in new (a changed line is not dropped)."""
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    dropped = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("delete", "replace"):
            dropped += max(0, (i2 - i1) - (j2 - j1))
    return dropped


def _is_truncated_copy(old_lines: list[str], new_lines: list[str]) -> bool:
    """The new lines are the old ones up to a point (the last maybe cut mid-line)."""
    if not new_lines or len(new_lines) >= len(old_lines):
        return False
    *whole, last = new_lines
    return old_lines[: len(whole)] == whole and old_lines[len(whole)].startswith(last)
