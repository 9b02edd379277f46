"""Is the edit already in the file? Two signs, used by edits and patches alike.

- old is found only inside a copy of new: resending ``x`` -> ``x + 1`` to a
  file that has ``x + 1`` finds ``x`` in it, and applying would give
  ``x + 1 + 1``;
- old is nowhere but new is there and has a line old lacks. Its presence
  must be evidence, not coincidence: a lone ``return 0`` is in many files,
  so a one-line new only counts as all of a line of the file (indentation
  aside), found as it is (blanks at the end aside) and only once.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import pairwise

from . import matcher, punctuation
from .document import Document
from .matcher import EVERYWHERE, Scope
from .matches import Level, Located, Match

_NEARBY = 4  # matches up to which copies are looked for only around each match


def could_be_inside(old: str, new: str, level: Level) -> bool:
    """Whether a match of old at ``level`` can sit inside a copy of new at all.

    An exact match is old itself, or old without some of its outer blanks (a
    fragment's, or one of a last line without its newline), so its copy of
    new holds old's text without them: one search. At the other levels old
    and new are compared folded, without their blanks.
    """
    if not new or new.isspace():
        return False
    if level == Level.EXACT:
        return old.strip() in new
    return _compact(old) in _compact(new)


def all_inside(doc: Document, located: Located, new: str) -> bool:
    """Whether every match in ``located.matches`` sits inside a copy of new."""
    if not could_be_inside(located.old, new, located.level):
        return False
    return all(_inside_nearby(doc, located, new, [match]) for match in located.matches)


def inside_new(doc: Document, located: Located, new: str) -> dict[Match, Match]:
    """The matches of old that sit inside a copy of new already in the file, with that copy
    (the first copy, in file order, that holds the match)."""
    if not could_be_inside(located.old, new, located.level):
        return {}
    if len(located.matches) <= _NEARBY:
        return _inside_nearby(doc, located, new, located.matches)
    return _inside_sorted(located.matches, matcher.find(doc, new, located.level))


def _inside_nearby(
    doc: Document, located: Located, new: str, matches: Sequence[Match]
) -> dict[Match, Match]:
    """Each match's copy, looked for only where a copy holding it can start."""
    inside: dict[Match, Match] = {}
    reach = new.count("\n") + 1  # lines a copy of new spans at most
    for match in matches:
        first = match.start
        for _ in range(reach):
            if first == 0:
                break
            first = doc.view.rfind("\n", 0, first - 1) + 1
        copies = matcher.iter_matches(doc, new, located.level, first, match.start)
        copy = next((c for c in copies if c.start <= match.start and match.end <= c.end), None)
        if copy is not None:
            inside[match] = copy
    return inside


def _inside_sorted(matches: Sequence[Match], copies: list[Match]) -> dict[Match, Match]:
    """Each match's copy in one pass over copies in file order.

    Copies of one text at one level end in the order they start, so the
    copies that hold a match are those from the first that ends at or after
    it to the last that starts at or before it; the first of them is the copy.
    """
    ends = [c.end for c in copies]
    if any(a > b for a, b in pairwise(ends)):
        return _inside_each(matches, copies)
    starts = [c.start for c in copies]
    inside: dict[Match, Match] = {}
    for match in matches:
        first = bisect_left(ends, match.end)
        if first < bisect_right(starts, match.start):
            inside[match] = copies[first]
    return inside


def _inside_each(matches: Sequence[Match], copies: list[Match]) -> dict[Match, Match]:
    """Each match's copy, every copy tried (the reference the passes above agree with)."""
    inside: dict[Match, Match] = {}
    for match in matches:
        copy = next((c for c in copies if c.start <= match.start and match.end <= c.end), None)
        if copy is not None:
            inside[match] = copy
    return inside


def copy_of_new(doc: Document, old: str, new: str, scope: Scope = EVERYWHERE) -> Match | None:
    """Where new already is, when old is not there and new proves the edit was made."""
    old_lines = {line.strip() for line in old.split("\n")}
    new_lines = [line.strip() for line in new.split("\n") if line.strip()]
    if not any(line not in old_lines for line in new_lines):
        return None
    located = matcher.locate(doc, new, scope)
    if located is None:
        return None
    if len(new_lines) == 1:
        whole = [m for m in located.matches if _whole_line(doc, m)]
        if located.reported_level > Level.TRAILING_WHITESPACE or len(whole) != 1:
            return None
        return whole[0]
    return located.matches[0]


def _whole_line(doc: Document, match: Match) -> bool:
    """Whether the match is all of its line but the indentation."""
    after = "" if match.ends_line else doc.view[match.end : doc.line_end(match.end)]
    return doc.starts_line(match.start) and not after.strip()


# The characters ``str.split`` splits ASCII text at, deleted in one C pass.
_ASCII_BLANKS = str.maketrans("", "", "".join(c for c in map(chr, range(128)) if c.isspace()))


def _compact(text: str) -> str:
    folded = punctuation.fold(text)
    if folded.isascii():
        return folded.translate(_ASCII_BLANKS)
    return "".join(folded.split())
