"""The unified diff of a file with line splices, in one pass over the file.

It is the diff ``report.describe`` writes for the same replacements: the
splices' line diffs and the lines between them make one diff of the whole
file, grouped into hunks with ``CONTEXT`` lines around each change as
``difflib`` groups them (a report's windows of neighbouring replacements
come to the same hunks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..line_diff import Opcode
from ..unified_hunks import CONTEXT


class Splice(NamedTuple):
    """``view[start:end]``, whole lines from line ``line`` (0-based) on, becomes ``text``.

    ``old_lines`` are the lines replaced, ``new_lines`` those of ``text``,
    ``opcodes`` the line diff of one into the other.
    """

    start: int
    end: int
    line: int
    old_lines: list[str]
    new_lines: list[str]
    text: str
    opcodes: list[Opcode]


def unified_diff(view: str, splices: Sequence[Splice], path: str, new_path: str) -> str:
    """The diff of ``view`` with ``splices`` (in file order), every line ending in a newline."""
    if not splices:
        return ""
    old = view.split("\n")
    if old[-1] == "":
        old.pop()  # a final newline ends the last line
    out = [f"--- {path}\n", f"+++ {new_path}\n"]
    changes = _changes(splices)
    n = CONTEXT
    start = 0  # index in changes of the hunk's first change
    for index, change in enumerate(changes):
        following = changes[index + 1] if index + 1 < len(changes) else None
        # Up to twice the context lines between two changes keep them in one hunk.
        if following is not None and following.old_start - change.old_end <= 2 * n:
            continue
        head = changes[start]
        before = min(n, head.old_start - (changes[start - 1].old_end if start else 0))
        after = min(n, (following.old_start if following else len(old)) - change.old_end)
        old_range = _range(head.old_start - before, change.old_end + after)
        new_range = _range(head.new_start - before, change.new_end + after)
        out.append(f"@@ -{old_range} +{new_range} @@\n")
        _context(out, old[head.old_start - before : head.old_start])
        for at in range(start, index + 1):
            one = changes[at]
            if one.old_end > one.old_start:
                out += ("-", "\n-".join(old[one.old_start : one.old_end]), "\n")
            if one.added:
                out += ("+", "\n+".join(one.added), "\n")
            end = changes[at + 1].old_start if at < index else one.old_end + after
            _context(out, old[one.old_end : end])
        start = index + 1
    return "".join(out)


@dataclass(slots=True)
class _Change:
    """A run of changed lines: old lines ``[old_start, old_end)`` become ``added``,
    which start at new line ``new_start``."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int
    added: list[str]


def _changes(splices: Sequence[Splice]) -> list[_Change]:
    """The changed runs of the whole file's diff, neighbouring ones joined (as
    ``difflib`` never gives two changes in a row)."""
    changes: list[_Change] = []
    shift = 0  # new line number minus old line number before the splice
    for splice in splices:
        first, lines = splice.line, splice.new_lines
        to = first + shift
        for tag, i1, i2, j1, j2 in splice.opcodes:
            if tag == "equal":
                continue
            if changes and changes[-1].old_end == first + i1:
                last = changes[-1]
                last.old_end, last.new_end = first + i2, to + j2
                last.added += lines[j1:j2]
            else:
                changes.append(_Change(first + i1, first + i2, to + j1, to + j2, lines[j1:j2]))
        shift += len(lines) - len(splice.old_lines)
    return changes


def _context(out: list[str], lines: list[str]) -> None:
    if lines:
        out += (" ", "\n ".join(lines), "\n")


def _range(start: int, stop: int) -> str:
    """A hunk's range as ``difflib`` writes it, the length always given."""
    beginning, length = start + 1, stop - start
    if not length:
        beginning -= 1
    return f"{beginning},{length}"
