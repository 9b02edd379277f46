"""The hunks ``difflib.unified_diff`` prints, written from a diff's opcodes in one pass.

``unified_hunks`` takes two line lists and the opcodes of their diff and
groups them into hunks as ``difflib`` does (``CONTEXT`` lines around each
change, a longer unchanged run ending one hunk and starting the next),
without comparing a line: the report has its opcodes already. Its output
is held to ``difflib``'s, byte for byte, by the tests.
"""

from __future__ import annotations

from .line_diff import Opcode

CONTEXT = 3  # lines around each change, in every diff the engine writes


def unified_hunks(
    old: list[str], new: list[str], opcodes: list[Opcode], offsets: tuple[int, int]
) -> list[str]:
    """The hunks ``difflib.unified_diff(old, new, n=CONTEXT)`` prints (file
    headers left out), for a diff with these opcodes (merged: no two equal
    ones in a row), each line ending in a newline; ``offsets`` are added to
    the line numbers of the hunk headers, which always give the length.
    Returned in pieces of whole lines.

    ``difflib``'s grouping in the same pass: the first and last unchanged
    runs keep ``CONTEXT`` lines, and one longer than twice that ends a hunk
    and starts the next.
    """
    out: list[str] = []
    body: list[str] = []
    began: tuple[int, int] | None = None  # where the open hunk starts (old, new)
    changed = False  # whether the open hunk has a change
    last = len(opcodes) - 1
    for index, opcode in enumerate(opcodes):
        tag, i1, i2, j1, j2 = opcode
        if tag == "equal":
            if index == 0:
                i1, j1 = max(i1, i2 - CONTEXT), max(j1, j2 - CONTEXT)
            if index == last:
                i2, j2 = min(i2, i1 + CONTEXT), min(j2, j1 + CONTEXT)
            if i2 - i1 > 2 * CONTEXT:
                body.append(_prefixed(" ", old, i1, i1 + CONTEXT))
                if began is not None and changed:
                    out.append(_header(began, (i1 + CONTEXT, j1 + CONTEXT), offsets))
                    out += body
                body = [_prefixed(" ", old, i2 - CONTEXT, i2)]
                began, changed = (i2 - CONTEXT, j2 - CONTEXT), False
                continue
            body.append(_prefixed(" ", old, i1, i2))
        else:
            changed = True
            if tag != "insert":
                body.append(_prefixed("-", old, i1, i2))
            if tag != "delete":
                body.append(_prefixed("+", new, j1, j2))
        if began is None:
            began = (i1, j1)
        ended = (i2, j2)
    if began is not None and changed:
        out.append(_header(began, ended, offsets))
        out += body
    return out


def _header(began: tuple[int, int], ended: tuple[int, int], offsets: tuple[int, int]) -> str:
    old_range = _range(began[0], ended[0], offsets[0])
    new_range = _range(began[1], ended[1], offsets[1])
    return f"@@ -{old_range} +{new_range} @@\n"


def _prefixed(prefix: str, lines: list[str], start: int, stop: int) -> str:
    """``lines[start:stop]``, each after ``prefix`` and before a newline, as one string."""
    if stop - start == 1:
        return f"{prefix}{lines[start]}\n"
    if start >= stop:
        return ""
    return prefix + f"\n{prefix}".join(lines[start:stop]) + "\n"


def _range(start: int, stop: int, offset: int) -> str:
    """A hunk's range as ``difflib`` writes it (the length always given), moved by ``offset``."""
    beginning, length = start + 1, stop - start
    if not length:
        beginning -= 1
    return f"{beginning + offset},{length}"
