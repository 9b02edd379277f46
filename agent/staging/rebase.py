"""Re-basing the agent's hunks onto a text the user changed meanwhile.

The agent read a file (``base``) and staged hunks on it (``hunks``, regions
of base, see ``hunks``); since then the file became ``theirs`` (the user
typed in the buffer, or changed the file on disk). :func:`rebase` is a
three-way merge:

- The user's changes are the line differences of base -> theirs
  (``difflib.SequenceMatcher``, no autojunk, common head and tail first).
- An agent hunk *clashes* with a user change when their base ranges overlap,
  or when both insert at the same point. Ranges that only touch (one ends
  where the other begins) do not clash.
- A clashing hunk that is exactly the user's change (same base range, same
  new text) is already in ``theirs``: it counts as applied, once. Any other
  clashing hunk is left out and reported as a :class:`Conflict`, with its
  lines and what the user has there: never guessed.
- Every other hunk is moved onto its place in ``theirs`` and applied.

Lines keep their endings and only ``"\\n"`` ends a line, so CRLF files,
mixed endings and a missing final newline come through byte for byte. Pure:
no I/O, no LSP types.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.staging.hunks import Hunk, StagedText, apply, line_of, line_regions
from agent.staging.line_cut import split_lines

__all__ = ["Conflict", "Rebased", "hunks_between", "rebase", "split_lines"]


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
    """What the user's text has there now."""
    label: str = field(default="", compare=False)
    """The description of the edit(s) the hunk holds."""
    line: int = field(default=0, compare=False)
    """1-based line of ``theirs`` where the clash is."""


@dataclass(frozen=True)
class Rebased:
    """The outcome of :func:`rebase`."""

    text: str
    """``theirs`` with every non-conflicting agent hunk applied."""
    applied: int
    """How many agent hunks are in ``text`` (those the user had already typed included)."""
    conflicts: tuple[Conflict, ...]
    hunks: tuple[Hunk, ...] = field(default=(), compare=False)
    """The hunks still to apply, as regions of ``theirs`` (the ones already there left out)."""


@dataclass(frozen=True)
class _Change:
    """Base ``[start, end)`` became ``[new_start, new_end)`` of the other text (offsets)."""

    start: int
    end: int
    new_start: int
    new_end: int

    @property
    def growth(self) -> int:
        return (self.new_end - self.new_start) - (self.end - self.start)


def hunks_between(base: str, ours: str, label: str = "change") -> tuple[Hunk, ...]:
    """The hunks of a change known only by its two texts."""
    staged = StagedText(base)
    staged.change(ours, label)
    return tuple(staged.hunks)


def _user_changes(base: str, theirs: str) -> list[_Change]:
    changes, shift = [], 0
    for start, end, new in line_regions(base, theirs):
        changes.append(_Change(start, end, start + shift, start + shift + len(new)))
        shift += len(new) - (end - start)
    return changes


def _clash(hunk: Hunk, user: _Change) -> bool:
    if hunk.start == hunk.end == user.start == user.end:
        return True
    return hunk.start < user.end and user.start < hunk.end


def rebase(base: str, ours: str | tuple[Hunk, ...], theirs: str) -> Rebased:
    """Apply the agent's hunks on ``base`` (or its whole new text ``ours``) to ``theirs``,
    leaving out the hunks that clash with the user's changes."""
    hunks = hunks_between(base, ours) if isinstance(ours, str) else ours
    user = _user_changes(base, theirs)
    moved: list[Hunk] = []
    conflicts: list[Conflict] = []
    applied = 0
    passed = 0  # user changes wholly before the current agent hunk ...
    shift = 0  # ... and how much they lengthened theirs
    for hunk in hunks:
        while (
            passed < len(user) and user[passed].end <= hunk.start and not _clash(hunk, user[passed])
        ):
            shift += user[passed].growth
            passed += 1
        touching = []
        for change in user[passed:]:
            if not _clash(hunk, change):
                break
            touching.append(change)
        if not touching:
            moved.append(Hunk(hunk.start + shift, hunk.end + shift, hunk.text, hunk.descriptions))
            applied += 1
            continue
        # Where the hunk stands in theirs, widened to the whole user changes it clashes with.
        first, last = touching[0], touching[-1]
        start = first.new_start - max(0, first.start - hunk.start)
        end = last.new_end + max(0, hunk.end - last.end)
        same_range = len(touching) == 1 and (first.start, first.end) == (hunk.start, hunk.end)
        if same_range and theirs[start:end] == hunk.text:
            applied += 1
            continue
        first_line = line_of(base, hunk.start)
        last_line = line_of(base, hunk.end - 1) if hunk.end > hunk.start else first_line - 1
        conflicts.append(
            Conflict(
                base_start=first_line,
                base_end=last_line,
                ours=hunk.text,
                theirs=theirs[start:end],
                label=hunk.label,
                line=line_of(theirs, start),
            )
        )
    return Rebased(apply(theirs, moved), applied, tuple(conflicts), tuple(moved))
