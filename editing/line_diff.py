"""A line diff that keeps the lines both sides share at either end in place.

A diff of repeated lines can align them in several ways; keeping the common
first and last lines where they are keeps their bytes (and line endings)
there. Used by the engine when it writes the model's new lines and by the
agent when it finds an edit's hunk inside the lines it replaced.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

Opcode = tuple[str, int, int, int, int]  # difflib's: tag, old start, old end, new start, new end


def line_opcodes(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """difflib's opcodes of ``old`` -> ``new``, the common head and tail matched directly."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    middle = difflib.SequenceMatcher(
        None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
    ).get_opcodes()
    opcodes: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    opcodes += [(t, i1 + head, i2 + head, j1 + head, j2 + head) for t, i1, i2, j1, j2 in middle]
    if tail:
        opcodes.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    return opcodes
