"""Find the text a model quoted: the tolerance ladder, strictest level first.

Passes, in order; the first that finds anything decides, and uniqueness is
counted at that level only:

0. ``EXACT``: the quoted text as a substring of the file (line endings
   aside: the file is searched through its LF view).
1. ``TRAILING_WHITESPACE``: whole lines equal once trailing blanks are
   dropped on both sides.
2. ``INDENTATION``: whole lines equal once stripped, and one ``IndentMap``
   explains every line's indentation (the block was quoted at another depth
   or in other units).
3. ``PUNCTUATION``: as 2, after folding curly quotes, dashes, odd spaces and
   fullwidth forms to ASCII on both sides.
4. ``ESCAPES``: passes 0-3 again with one level of backslash escaping
   removed from the quoted text (reported with the sub-level that matched).

Multi-line text matches whole lines from pass 1 on (``line_search``); a
single-line fragment (no newline) matches as a substring, with its outer
blanks ignored (``fragment_search``). In passes 1 to 3 a multi-line text
may also start inside a line (as it can in pass 0, ``exact_search``): its
first line is then the end of a file line, after other text, and its other
lines are whole lines at that level (``partial_start_search``). Both kinds
count together for uniqueness at their level. Each line pass searches the
file for the longest line key of the quoted text with ``str.find`` and
checks the neighbouring lines around each hit, so its cost stays close to
one ``str.find`` over the file. This module runs the ladder and counts;
the passes live in those modules, and what they find (``Level``,
``Match``, ``Located``) in ``matches``.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from . import counting
from .document import Document
from .escapes import Variant, unescape
from .exact_search import exact_lines, find_exact
from .fragment_search import find_fragment
from .line_search import find_lines
from .matches import Level, Located, Match
from .partial_start_search import find_partial_start, may_start_inside

_PLAIN_LEVELS = (Level.EXACT, Level.TRAILING_WHITESPACE, Level.INDENTATION, Level.PUNCTUATION)

_PARTIAL_LEVELS = (Level.TRAILING_WHITESPACE, Level.INDENTATION, Level.PUNCTUATION)


@dataclass(frozen=True)
class Scope:
    """Where matches count: those starting in ``view[first:last + 1]``.

    With ``whole_lines`` only matches covering whole lines count (a patch
    quotes lines, never a fragment of one); with ``at_end`` only those that
    end the file.
    """

    first: int = 0
    last: int | None = None
    whole_lines: bool = False
    at_end: bool = False  # only matches followed by nothing but blank lines

    @property
    def filters(self) -> bool:
        """Whether ``admits`` asks more of a match than where it starts."""
        return self.whole_lines or self.at_end

    def admits(self, doc: Document, match: Match) -> bool:
        if match.start < self.first or (self.last is not None and match.start > self.last):
            return False
        if self.at_end and doc.view[match.end :].strip():
            return False
        if not self.whole_lines:
            return True
        starts_line = match.start == 0 or doc.view[match.start - 1] == "\n"
        ends_line = match.ends_line or match.end == doc.line_end(match.end)
        return starts_line and ends_line and not match.fragment


EVERYWHERE = Scope()


def locate(
    doc: Document,
    old: str,
    scope: Scope = EVERYWHERE,
    limit: int | None = None,
    *,
    count: bool = True,
) -> Located | None:
    """All matches of ``old`` in ``scope`` at the strictest level that has any, or None.

    With ``limit`` only the first ``limit`` matches are kept (the search stops
    there); ``count`` then counts the others into ``Located.total`` without
    building them.
    """
    located = _locate_plain(doc, old, scope, limit, count)
    if located:
        return located
    tried = {old}
    for variant in Variant:
        unescaped = unescape(old, variant)
        if unescaped in tried or not unescaped.strip():
            continue
        tried.add(unescaped)
        located = _locate_plain(doc, unescaped, scope, limit, count)
        if located:
            return Located(located.level, located.matches, unescaped, variant, located.total)
    return None


def _locate_plain(
    doc: Document, old: str, scope: Scope, limit: int | None, count: bool
) -> Located | None:
    for level in _PLAIN_LEVELS:
        if level == Level.EXACT and scope.whole_lines:
            found = exact_lines(doc, old, scope.first, scope.last, at_end=scope.at_end)
        else:
            found = iter_matches(
                doc, old, level, scope.first, scope.last, partial=not scope.whole_lines
            )
            if scope.filters:
                found = (m for m in found if scope.admits(doc, m))
        matches = list(found if limit is None else islice(found, limit))
        if not matches:
            continue
        if limit is None or len(matches) < limit:
            return Located(level, tuple(matches), old, total=len(matches))
        total = None
        if count:
            whole_file = scope.first == 0 and scope.last is None and not scope.filters
            total = _count(doc, old, level) if whole_file else None
            if total is None:
                total = len(matches) + sum(1 for _ in found)
        return Located(level, tuple(matches), old, total=total)
    return None


def _count(doc: Document, old: str, level: Level) -> int | None:
    """How many matches ``find`` gives, counted without building them (None: no fast way)."""
    if level == Level.EXACT:
        return counting.exact(doc.view, old)
    if "\n" in old and level in (Level.TRAILING_WHITESPACE, Level.INDENTATION):
        whole = counting.whole_lines(doc.view, old, indented=level == Level.INDENTATION)
        if whole is None or not may_start_inside(old):
            return whole
        return whole + sum(1 for _ in find_partial_start(doc, old, level, 0, None))
    return None


def find(
    doc: Document, old: str, level: Level, first: int = 0, last: int | None = None
) -> list[Match]:
    """Every match of ``old`` at exactly one level, in file order (starting in
    ``view[first:last + 1]``)."""
    return list(iter_matches(doc, old, level, first, last))


def iter_matches(
    doc: Document,
    old: str,
    level: Level,
    first: int = 0,
    last: int | None = None,
    *,
    partial: bool = True,
) -> Iterator[Match]:
    """The matches of ``find``, one at a time: the search goes no further than asked.

    ``partial``: a multi-line old may also start inside a line (passes 1 and 2).
    """
    if level == Level.EXACT:
        return find_exact(doc, old, first, last)
    if "\n" not in old:
        return find_fragment(doc, old, level, first, last)
    whole = find_lines(doc, old, level, first, last)
    if not partial or level not in _PARTIAL_LEVELS or not may_start_inside(old):
        return whole
    inside = find_partial_start(doc, old, level, first, last)
    return heapq.merge(whole, inside, key=lambda match: match.start)
