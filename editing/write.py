"""Whole-file writes: fine for a new file, guarded for an existing one.

Whole-file output fails in proportion to file size, and its failures
(output cut off, code "summarised" away) are irreversible, so overwriting an
existing file is refused when the content looks like one of them: a
truncated copy, a large share of the lines dropped, an elision line standing
for code, or a file too large to rewrite safely.

Truncation is judged by the tail, whatever changed before it: the content
stops where the original goes on (its last lines are the original's up to a
point, and the original's lines after that point are missing) and it stops
inside something: its last line is cut mid-line, its brackets are left open
where the original's close, its last line opens a block, or the lines
missing begin inside a block (they dedent below their first line). A
rewrite that drops whole trailing constructs on purpose ends on a complete,
balanced line where the original goes on at the same or a lower depth, and
is written (the share of lines dropped is still guarded).
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

DESTRUCTIVE_CUT_OFF = (
    "File not written: the content for {path} stops at its line {kept} ({last!r}): "
    "{why}, where the file goes on ({missing} more lines from its line {next}: "
    "{next_text!r}), as if the output was cut off. Change the file with targeted edits "
    "instead of rewriting it; to remove code, delete it with an edit that quotes it."
)

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}
# A last line ending in one of these opens a block or continues on the next line.
_OPENING_ENDS = (":", "{", "(", "[", ",", "\\", "=", "&&", "||")
_COMMENTS = ("#", "//", "/*", "*", "--", ";")


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
    cut = _cut_off(old_lines, new_lines)
    if cut is not None:
        kept, at, why = cut
        raise DestructiveWrite(
            DESTRUCTIVE_CUT_OFF.format(
                path=path,
                kept=kept,
                last=new_lines[kept - 1].strip(),
                why=why,
                missing=total - at,
                next=at + 1,
                next_text=old_lines[at].strip(),
            ),
            path=path,
            line=kept,
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


def _cut_off(old_lines: list[str], new_lines: list[str]) -> tuple[int, int, str] | None:
    """Where a content cut off inside something stops, or None.

    Returns how many of the new lines there are up to its last non-blank
    one, the index of the first old line missing after it, and what it
    stops in the middle of. The content stops where the original goes on:
    its last lines are the original's (the last maybe cut short), and the
    original lines after them, some not blank, are not in it.
    """
    old = [line.rstrip() for line in old_lines]
    new = [line.rstrip() for line in new_lines]
    while new and not new[-1].strip():
        new.pop()
    while old and not old[-1].strip():
        old.pop()
    if not new:
        return None
    opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    tag, i1, _, j1, j2 = opcodes[-1]
    if tag not in ("delete", "replace"):
        return None  # it ends where the original ends, or with lines of its own
    # A replacement's new lines stand for as many old ones; the original goes on after them.
    at = i1 + (j2 - j1)
    if at >= len(old):
        return None
    why = None
    if tag == "replace" and _cut_short(new[-1], old[at - 1]):
        at, why = at - 1, "that line is cut short"
    gone = [line.strip() for line in old[at + 1 if why else at :] if line.strip()]
    if not gone or (len(gone) > 1 and _moved(gone, new)):
        return None  # nothing of substance missing, or it was moved up
    if why is None:
        why = _open_construct(old, new, at, rewritten=tag == "replace")
    return (len(new), at, why) if why else None


def _cut_short(last: str, original: str) -> bool:
    """Whether ``last`` is ``original`` cut short (not just a line of its own)."""
    return bool(last.strip()) and len(last) < len(original) and original.startswith(last)


def _open_construct(old: list[str], new: list[str], at: int, *, rewritten: bool) -> str | None:
    """Why the content, stopping before ``old[at]``, stops inside something, or None.

    When its last lines are ``rewritten`` (not the original's), the lines
    missing may be what they replaced: only the content's own state counts.
    """
    if _depth(new) > 0 and _depth(old) <= 0:
        return "it leaves brackets open that the file closes"
    last = new[-1].strip()
    if last.endswith(_OPENING_ENDS) and not last.startswith(_COMMENTS):
        return "its last line opens a block or expression"
    if rewritten:
        return None
    missing = [line for line in old[at:] if line.strip()]
    first = _indent(missing[0])
    if any(_indent(line) < first for line in missing[1:]):
        return "the lines missing start inside a block"
    return None


def _moved(gone: list[str], new: list[str]) -> bool:
    """Whether the lines ``gone`` are all in ``new``, in one block (moved up)."""
    lines = [line.strip() for line in new if line.strip()]
    return any(lines[k : k + len(gone)] == gone for k in range(len(lines) - len(gone) + 1))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _depth(lines: list[str]) -> int:
    """How many brackets the lines leave open (a rough count, strings skipped)."""
    depth = 0
    for line in lines:
        if line.lstrip().startswith(_COMMENTS):
            continue
        quote = ""
        escaped = False
        for char in line:
            if quote:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == quote:
                    quote = ""
            elif char in "\"'`":
                quote = char
            elif char in _OPENERS:
                depth += 1
            elif char in _CLOSERS:
                depth -= 1
    return depth
