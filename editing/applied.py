"""Is the edit already in the file? Two signs, used by edits and patches alike.

- old is found only inside a copy of new: resending ``x`` -> ``x + 1`` to a
  file that has ``x + 1`` finds ``x`` in it, and applying would give
  ``x + 1 + 1``;
- old is nowhere but new is there, and new has a line old lacks (so its
  presence is evidence, not coincidence).
"""

from __future__ import annotations

from . import matcher, punctuation
from .document import Document
from .matcher import EVERYWHERE, Located, Match, Scope


def inside_new(doc: Document, located: Located, new: str) -> list[Match]:
    """The matches of old that sit inside a copy of new already in the file."""
    if not new.strip() or _compact(located.old) not in _compact(new):
        return []
    copies = matcher.find(doc, new, located.level)
    return [
        m for m in located.matches if any(c.start <= m.start and m.end <= c.end for c in copies)
    ]


def copy_of_new(doc: Document, old: str, new: str, scope: Scope = EVERYWHERE) -> Match | None:
    """Where new already is, when old is not there and new proves the edit was made."""
    old_lines = {line.strip() for line in old.split("\n")}
    adds = any(line.strip() and line.strip() not in old_lines for line in new.split("\n"))
    if not adds:
        return None
    located = matcher.locate(doc, new, scope)
    return located.matches[0] if located else None


def _compact(text: str) -> str:
    return "".join(punctuation.fold(text).split())
