"""Re-basing the agent's proposal onto a buffer the user kept typing in.

The agent read a file (``base``) and proposed ``ours``; while the user
reviewed the proposal, the editor's buffer became ``theirs``. :func:`rebase`
is a three-way merge on lines:

- The agent's hunks are the non-equal opcodes of base -> ours, the user's
  changes those of base -> theirs (``difflib.SequenceMatcher``, no autojunk).
- An agent hunk *clashes* with a user change when their base ranges overlap,
  or when both insert at the same point. Ranges that only touch (one ends on
  the line where the other begins) do not clash.
- A clashing hunk that is exactly the user's change (same base lines, same
  new text) is already in ``theirs``: it counts as applied, once. Any other
  clashing hunk is left out and reported as a :class:`Conflict`.
- Every other hunk is moved onto its lines in ``theirs`` and applied.

Lines keep their endings and only ``"\\n"`` ends a line (``str.splitlines``
would also split on form feeds and Unicode separators), so CRLF files, mixed
endings and a missing final newline come through byte for byte. Pure: no I/O,
no LSP types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import partial
from itertools import islice, takewhile

_AFTER_NEWLINE = re.compile(r"(?<=\n)")


@dataclass(frozen=True)
class Conflict:
    """An agent hunk left out because the user changed the same lines."""

    base_start: int
    """1-based first line of the agent's hunk in base."""
    base_end: int
    """Its last line, inclusive; ``base_start - 1`` for an insertion."""
    ours: str
    """The agent's replacement text for those lines."""
    theirs: str
    """What the user's buffer has there now."""


@dataclass(frozen=True)
class Rebased:
    """The outcome of :func:`rebase`."""

    text: str
    """``theirs`` with every non-conflicting agent hunk applied."""
    applied: int
    """How many agent hunks are in ``text`` (those the user had already typed included)."""
    conflicts: tuple[Conflict, ...]


@dataclass(frozen=True)
class _Hunk:
    """Base lines ``[start, end)`` became lines ``[new_start, new_end)`` of the other text."""

    start: int
    end: int
    new_start: int
    new_end: int

    @property
    def growth(self) -> int:
        return (self.new_end - self.new_start) - (self.end - self.start)


def split_lines(text: str) -> list[str]:
    """``text``'s lines with their endings; only ``"\\n"`` ends a line."""
    lines = _AFTER_NEWLINE.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def _hunks(base: list[str], other: list[str]) -> list[_Hunk]:
    opcodes = SequenceMatcher(None, base, other, autojunk=False).get_opcodes()
    return [_Hunk(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in opcodes if tag != "equal"]


def _clash(agent: _Hunk, user: _Hunk) -> bool:
    if agent.start == agent.end == user.start == user.end:
        return True
    return agent.start < user.end and user.start < agent.end


def rebase(base: str, ours: str, theirs: str) -> Rebased:
    """Apply the agent's change base -> ours to ``theirs``, leaving out hunks that clash."""
    base_lines, ours_lines, theirs_lines = split_lines(base), split_lines(ours), split_lines(theirs)
    user = _hunks(base_lines, theirs_lines)
    edits: list[tuple[int, int, list[str]]] = []  # theirs [start, end) -> lines, in order
    conflicts: list[Conflict] = []
    applied = 0
    passed = 0  # user changes wholly before the current agent hunk ...
    shift = 0  # ... and how many lines they added to theirs
    for hunk in _hunks(base_lines, ours_lines):
        while (
            passed < len(user) and user[passed].end <= hunk.start and not _clash(hunk, user[passed])
        ):
            shift += user[passed].growth
            passed += 1
        replacement = ours_lines[hunk.new_start : hunk.new_end]
        touching = list(takewhile(partial(_clash, hunk), islice(user, passed, None)))
        if not touching:
            edits.append((hunk.start + shift, hunk.end + shift, replacement))
            applied += 1
            continue
        # Where the hunk stands in theirs, widened to the whole user changes it clashes with.
        first, last = touching[0], touching[-1]
        start = first.new_start - max(0, first.start - hunk.start)
        end = last.new_end + max(0, hunk.end - last.end)
        same_lines = len(touching) == 1 and (first.start, first.end) == (hunk.start, hunk.end)
        if same_lines and theirs_lines[start:end] == replacement:
            applied += 1
            continue
        conflicts.append(
            Conflict(
                base_start=hunk.start + 1,
                base_end=hunk.end,
                ours="".join(replacement),
                theirs="".join(theirs_lines[start:end]),
            )
        )
    merged: list[str] = []
    cursor = 0
    for start, end, lines in edits:
        merged += theirs_lines[cursor:start]
        merged += lines
        cursor = end
    merged += theirs_lines[cursor:]
    return Rebased("".join(merged), applied, tuple(conflicts))
