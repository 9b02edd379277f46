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

from . import matcher, punctuation
from .document import Document
from .matcher import EVERYWHERE, Level, Located, Match, Scope


def inside_new(doc: Document, located: Located, new: str) -> dict[Match, Match]:
    """The matches of old that sit inside a copy of new already in the file, with that copy."""
    if not new.strip() or _compact(located.old) not in _compact(new):
        return {}
    copies = matcher.find(doc, new, located.level)
    inside: dict[Match, Match] = {}
    for match in located.matches:
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


def _compact(text: str) -> str:
    return "".join(punctuation.fold(text).split())
