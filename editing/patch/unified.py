"""The unified diff of a file with line splices, in one pass over the file.

It is the diff ``report.describe`` writes for the same replacements: the
splices' line diffs and the lines between them make one diff of the whole
file, grouped into hunks with ``CONTEXT`` lines around each change as
``difflib`` groups them (a report's windows of neighbouring replacements
come to the same hunks).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

from ..line_diff import Opcode, merged
from ..report import CONTEXT


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
    new: list[str] = []
    opcodes: list[Opcode] = []
    at = 0  # the old line after the previous splice
    shift = 0  # new line number minus old line number there
    for splice in splices:
        first = splice.line
        if first > at:
            opcodes.append(("equal", at, first, at + shift, first + shift))
            new += old[at:first]
        to = first + shift
        opcodes += [
            (t, i1 + first, i2 + first, j1 + to, j2 + to) for t, i1, i2, j1, j2 in splice.opcodes
        ]
        new += splice.new_lines
        at = first + len(splice.old_lines)
        shift += len(splice.new_lines) - len(splice.old_lines)
    if at < len(old):
        opcodes.append(("equal", at, len(old), at + shift, len(old) + shift))
        new += old[at:]
    out = [f"--- {path}\n", f"+++ {new_path}\n"]
    for group in _grouped(merged(opcodes), CONTEXT):
        head, tail = group[0], group[-1]
        out.append(f"@@ -{_range(head[1], tail[2])} +{_range(head[3], tail[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            # Each run of lines joined at once: "\n " between them, " " before the first.
            if tag == "equal":
                out += (" ", "\n ".join(old[i1:i2]), "\n")
                continue
            if tag != "insert":
                out += ("-", "\n-".join(old[i1:i2]), "\n")
            if tag != "delete":
                out += ("+", "\n+".join(new[j1:j2]), "\n")
    return "".join(out)


def _grouped(codes: list[Opcode], n: int) -> Iterator[list[Opcode]]:
    """``difflib.SequenceMatcher.get_grouped_opcodes(n)`` of these opcodes."""
    if not codes:
        codes = [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        # A long run of equal lines ends a hunk and starts the next.
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = [(tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2)]
        else:
            group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    """A hunk's range as ``difflib`` writes it, the length always given."""
    beginning, length = start + 1, stop - start
    if not length:
        beginning -= 1
    return f"{beginning},{length}"
