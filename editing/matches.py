"""What the matcher finds: the levels of its ladder, one match, every match at a level.

``Level`` names the passes of ``matcher`` (strictest first, the order they
run in); ``Match`` is one place the quoted text matched, as offsets into the
document's LF view; ``Located`` is every match at the first level that found
any, with the text as it was matched. These are the types every pass and
every caller of the matcher share, kept apart from the passes so that each
pass can build them without importing the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from .escapes import Variant
from .indentation import IndentMap


class Level(IntEnum):
    EXACT = 0
    TRAILING_WHITESPACE = 1
    INDENTATION = 2
    PUNCTUATION = 3
    ESCAPES = 4

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


@dataclass(frozen=True, slots=True)
class Match:
    """One place the quoted text matched: ``view[start:end]``.

    ``level`` is the pass that matched (never ``ESCAPES``; see ``Located``);
    ``indent`` is set for whole-line matches from pass 2 on.
    """

    start: int
    end: int
    level: Level
    indent: IndentMap | None = None
    fragment: bool = False
    ends_line: bool = False  # the match includes the newline ending its last line


@dataclass(frozen=True)
class Located:
    """Every match of ``old`` at the first level that found any.

    ``old`` is the text as matched: unescaped with ``escapes`` when that
    variant was needed (the caller unescapes new text the same way).
    """

    level: Level
    matches: tuple[Match, ...]
    old: str
    escapes: Variant | None = None
    # How many matches there are in all when ``matches`` holds only the first
    # ones (``locate``'s ``limit``); None when that was not counted.
    total: int | None = None

    @property
    def reported_level(self) -> Level:
        return Level.ESCAPES if self.escapes else self.level

    @property
    def count(self) -> int:
        """How many matches there are (at least ``len(matches)`` when not counted)."""
        return len(self.matches) if self.total is None else self.total

    @property
    def complete(self) -> bool:
        """Whether ``matches`` holds every match."""
        return self.total == len(self.matches)
