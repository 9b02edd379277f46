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

Multi-line text matches whole lines from pass 1 on; a single-line fragment
(no newline) matches as a substring, with its outer blanks ignored. In
passes 1 to 3 a multi-line text may also start inside a line (as it can in
pass 0): its first line is then the end of a file line, after other text,
and its other lines are whole lines at that level
(``_find_partial_start``). Both kinds count together for uniqueness at
their level. Each
line pass searches the file for the longest line key of the quoted text with
``str.find`` and checks the neighbouring lines around each hit, so its cost
stays close to one ``str.find`` over the file.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import IntEnum
from itertools import islice
from weakref import WeakKeyDictionary

from . import counting, indentation, punctuation
from .document import Document
from .escapes import Variant, unescape
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


_KEYS: dict[Level, Callable[[str], str]] = {
    Level.TRAILING_WHITESPACE: str.rstrip,
    # Only spaces and tabs are indentation; odd spaces there are punctuation drift.
    Level.INDENTATION: lambda line: line.lstrip(" \t").rstrip(),
    Level.PUNCTUATION: lambda line: punctuation.fold(line).strip(),
}


_PLAIN_LEVELS = (Level.EXACT, Level.TRAILING_WHITESPACE, Level.INDENTATION, Level.PUNCTUATION)


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
        if whole is None or not _may_start_inside(old):
            return whole
        return whole + sum(1 for _ in _find_partial_start(doc, old, level, 0, None))
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
        return _find_exact(doc, old, first, last)
    if "\n" not in old:
        return _find_fragment(doc, old, level, first, last)
    whole = _find_lines(doc, old, level, first, last)
    if not partial or level not in _PARTIAL_LEVELS or not _may_start_inside(old):
        return whole
    inside = _find_partial_start(doc, old, level, first, last)
    return heapq.merge(whole, inside, key=lambda match: match.start)


def _in_range(matches: Iterator[Match], first: int, last: int | None) -> Iterator[Match]:
    """The matches starting in ``[first, last]`` of matches in file order."""
    for match in matches:
        if last is not None and match.start > last:
            return
        if match.start >= first:
            yield match


def _occurrences(text: str, needle: str, first: int = 0, last: int | None = None) -> Iterator[int]:
    """Start of every occurrence of ``needle`` (overlapping ones included) in
    ``[first, last]``."""
    stop = len(text) if last is None else min(len(text), last + len(needle))
    pos = text.find(needle, first, stop)
    while pos >= 0:
        yield pos
        pos = text.find(needle, pos + 1, stop)


def _find_exact(doc: Document, old: str, first: int, last: int | None) -> Iterator[Match]:
    """Substring matches, never starting inside a line's indentation.

    ``    return x`` is one line of the file when the file has it at that
    depth; inside a deeper ``        return x`` it is indentation drift, for
    the later passes to count. An old text ending with a newline also
    matches the last line of a file that has no final newline.
    """
    if not old:
        return
    view = doc.view
    blank_start = old[0] in " \t"
    ends_line = old.endswith("\n")
    size, exact = len(old), Level.EXACT
    # ``_occurrences`` written out: one generator per match found, not two.
    stop = len(view) if last is None else min(len(view), last + size)
    start = view.find(old, first, stop)
    while start >= 0:
        if not (blank_start and _inside_indentation(view, start)):
            yield Match(start, start + size, exact, None, False, ends_line)
        start = view.find(old, start + 1, stop)
    body = old[:-1]
    if ends_line and body.strip() and not view.endswith("\n") and view.endswith(body):
        start = len(view) - len(body)
        in_range = first <= start and (last is None or start <= last)
        if in_range and not (blank_start and _inside_indentation(view, start)):
            yield Match(start, len(view), Level.EXACT)


def exact_lines(
    doc: Document, old: str, first: int = 0, last: int | None = None, *, at_end: bool = False
) -> Iterator[Match]:
    """The exact matches a whole-line ``Scope(first, last, True, at_end)`` admits, in order."""
    exact = Level.EXACT
    for start, end, ends_line in exact_line_spans(doc.view, old, first, last, at_end=at_end):
        yield Match(start, end, exact, None, False, ends_line)


def exact_line_spans(
    view: str, old: str, first: int = 0, last: int | None = None, *, at_end: bool = False
) -> Iterator[tuple[int, int, bool]]:
    """``exact_lines`` as ``(start, end, ends_line)`` of each match, no ``Match`` built.

    Only matches at a line start count, so the search looks for old after a
    newline (and at the very start): in a file where old's text also occurs
    inside lines, those are never visited. A match at a line start is never
    inside indentation.
    """
    if not old:
        return
    size = len(old)
    ends_line = old.endswith("\n")
    # A match ends the file when nothing but blanks follows it.
    content_end = len(view.rstrip()) if at_end else 0
    stop = len(view) if last is None else min(len(view), last + size)
    at_start = first == 0 and size <= stop and view.startswith(old)
    if at_start and _admitted_end(view, size, ends_line, content_end):
        yield 0, size, ends_line
    needle = "\n" + old
    # Old at ``start`` is the needle at ``start - 1``.
    at = view.find(needle, max(first - 1, 0), stop)
    while at >= 0:
        start = at + 1
        if _admitted_end(view, start + size, ends_line, content_end):
            yield start, start + size, ends_line
        at = view.find(needle, start, stop)
    if view.endswith("\n") or not ends_line:
        return
    body = old[:-1]
    if body.strip() and view.endswith(body):
        start = len(view) - len(body)
        in_range = first <= start and (last is None or start <= last)
        if in_range and (start == 0 or view[start - 1] == "\n"):
            yield start, len(view), False


def _admitted_end(view: str, end: int, ends_line: bool, content_end: int) -> bool:
    """Whether a match ending at ``end`` ends its line (and the file, if
    ``content_end``: the end of the file's last non-blank text)."""
    if end < content_end:
        return False
    return ends_line or end == len(view) or view[end] == "\n"


def _inside_indentation(view: str, pos: int) -> bool:
    """Whether ``pos`` is past a line's start but within its leading blanks.

    Reads back over the blanks before ``pos`` only, never to the line's start:
    a long line with a match every few characters stays linear.
    """
    start = pos
    while start > 0 and view[start - 1] in " \t":
        start -= 1
    return start < pos and (start == 0 or view[start - 1] == "\n")


# -- single-line fragments ------------------------------------------------


def _find_fragment(
    doc: Document, old: str, level: Level, first: int, last: int | None
) -> Iterator[Match]:
    """Matches of a one-line old with its outer blanks ignored.

    An old quoted with blanks before it was quoted from a line's start: it
    only matches text that has nothing but blanks before it on its line.
    """
    matches = _fragments(doc, old, level, first, last)
    if old[:1].isspace():
        return (m for m in matches if doc.starts_line(m.start))
    return matches


def _fragments(
    doc: Document, old: str, level: Level, first: int, last: int | None
) -> Iterator[Match]:
    if level == Level.TRAILING_WHITESPACE:
        core = old.strip(" \t")  # odd spaces are punctuation drift
        if not core or core == old:
            return iter(())
        return (
            Match(s, s + len(core), level, fragment=True)
            for s in _occurrences(doc.view, core, first, last)
        )
    if level == Level.PUNCTUATION:
        core = punctuation.fold(old).strip()
        if not core or (core == old.strip() and doc.is_ascii):
            return iter(())
        if doc.is_ascii:
            return (
                Match(s, s + len(core), level, fragment=True)
                for s in _occurrences(doc.view, core, first, last)
            )
        return _in_range(_fragments_in_folded(doc, core), first, last)
    return iter(())


def _fragments_in_folded(doc: Document, core: str) -> Iterator[Match]:
    """Fragment matches found in the folded view, mapped back to view offsets."""
    folded = doc.folded
    line_index = 0
    counted_to = 0
    for pos in _occurrences(folded, core):
        line_index += folded.count("\n", counted_to, pos)
        counted_to = pos
        line_start = doc.line_starts[line_index]
        folded_start = folded.rfind("\n", 0, pos) + 1
        view_line = doc.view[line_start : doc.line_end(line_start)]
        span = _unfold_span(view_line, pos - folded_start, pos - folded_start + len(core))
        # Composed accents can shift the folded line against the view: check.
        if span and punctuation.fold(view_line[span[0] : span[1]]).strip() == core:
            yield Match(
                line_start + span[0], line_start + span[1], Level.PUNCTUATION, fragment=True
            )


def _unfold_span(line: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of ``line`` whose fold is ``fold(line)[start:end]``, if chars line up."""
    folded_pos = 0
    view_start = None
    for index, char in enumerate(line):
        if folded_pos == start and view_start is None:
            view_start = index
        if folded_pos == end:
            return (view_start, index) if view_start is not None else None
        folded_pos += len(punctuation.fold(char))
    if folded_pos == end and view_start is not None:
        return view_start, len(line)
    return None


# -- whole lines ------------------------------------------------------------


def _find_lines(
    doc: Document, old: str, level: Level, first: int, last: int | None
) -> Iterator[Match]:
    old_lines = old.split("\n")
    ends_with_newline = old_lines[-1] == ""
    if ends_with_newline:
        old_lines.pop()
    key = _KEYS[level]
    keys = [key(line) for line in old_lines]
    anchor_at = max(range(len(keys)), key=lambda i: len(keys[i]))
    anchor = keys[anchor_at]
    if not anchor:
        return
    if level == Level.PUNCTUATION and doc.is_ascii and old.isascii():
        return
    folded = level == Level.PUNCTUATION and not doc.is_ascii
    text = doc.folded if folded else doc.view
    # The folded text's offsets are not the view's: it is searched whole.
    begin, stop = (0, None) if folded else (first, _anchor_bound(text, last, anchor_at))
    windows = _windows(
        text,
        anchor,
        anchor_at,
        keys,
        key,
        count_lines=folded,
        begin=begin,
        stop=stop,
        # A line whose text without trailing blanks is the anchor starts with it.
        at_line_start=level == Level.TRAILING_WHITESPACE,
    )
    for line_index, found_spans in windows:
        spans = _view_spans(doc, line_index, len(found_spans)) if folded else found_spans
        indent = None
        if level >= Level.INDENTATION:
            pairs = _indent_pairs(doc, old_lines, spans, loose=level == Level.PUNCTUATION)
            indent = indentation.infer(pairs) if pairs is not None else None
            if indent is None:
                continue
        start, end = spans[0][0], spans[-1][1]
        if last is not None and start > last:
            return
        if start < first:
            continue
        ends_line = ends_with_newline and end < len(doc.view)
        yield Match(start, end + ends_line, level, indent, ends_line=ends_line)


_PARTIAL_LEVELS = (Level.TRAILING_WHITESPACE, Level.INDENTATION, Level.PUNCTUATION)


def _may_start_inside(old: str) -> bool:
    """Whether old may start inside a line: its first line and some later line have text."""
    head, _, rest = old.partition("\n")
    return bool(head.strip()) and bool(rest.strip())


def _find_partial_start(
    doc: Document, old: str, level: Level, first: int, last: int | None
) -> Iterator[Match]:
    """Matches of a multi-line old whose first line is the end of a file line.

    The file line holds other text before it (else it is a whole-line
    match); old's first line equals the rest of that line, outer blanks
    aside (and typographic look-alikes folded at ``PUNCTUATION``), and old's
    other lines match the lines after it as whole lines at ``level`` (their
    ``IndentMap`` is the match's: old's first line has no indentation of its
    own). The match runs from inside the first line to the end of the last
    line's text (its trailing blanks left out), as a fragment: new's first
    line follows the file's own text, the file's blanks after the last
    line's text stay, and old's final newline is no part of it.
    """
    head, _, rest = old.partition("\n")
    if rest.endswith("\n"):
        rest = rest[:-1]
    folded = level == Level.PUNCTUATION
    key = punctuation.fold(head).strip() if folded else head.strip(" \t")
    rest_level = level
    if folded and doc.is_ascii and rest.isascii():
        rest_level = Level.INDENTATION  # the look-alikes are in old's first line only
    view = doc.view
    for line_start, line_end in _lines_ending_with(doc, key, folded=folded and not doc.is_ascii):
        span = _line_tail(view[line_start:line_end], key, folded=folded)
        if span is None:
            continue
        start = line_start + span
        if start < first:
            continue
        if last is not None and start > last:
            return
        below = line_end + 1
        match = next(_find_lines(doc, rest, rest_level, below, below), None)
        if match is None or match.start != below:
            continue
        end = match.end
        while view[end - 1] in " \t":
            end -= 1  # the file's blanks after the text are its own, kept (as in pass 0)
        yield Match(start, end, level, match.indent, fragment=True)


def _lines_ending_with(doc: Document, key: str, *, folded: bool) -> list[tuple[int, int]]:
    """``(start, end)`` in the view of each line, followed by another, whose text
    ends with ``key`` (blanks after it aside; read folded with ``folded``).

    One ``str.find`` over the file, so lines that cannot hold a match cost
    nothing; kept for the document, since the passes after look for the same key.
    """
    cache = _TAILS.setdefault(doc, {})
    found = cache.get((key, folded))
    if found is None:
        found = cache[key, folded] = list(_scan_line_ends(doc, key, folded=folded))
    return found


_TAILS: WeakKeyDictionary[Document, dict[tuple[str, bool], list[tuple[int, int]]]] = (
    WeakKeyDictionary()
)


def _scan_line_ends(doc: Document, key: str, *, folded: bool) -> Iterator[tuple[int, int]]:
    text = doc.folded if folded else doc.view
    view = doc.view
    pos = text.find(key)
    line_index, counted_to = 0, 0
    while pos >= 0:
        line_end = text.find("\n", pos + len(key))
        if line_end < 0:
            return  # the last line: no line after it for old's others
        if text[pos:line_end].rstrip().endswith(key):  # its last copy on the line ends it
            if folded:
                line_index += text.count("\n", counted_to, pos)
                counted_to = pos
                start = doc.line_starts[line_index]
                yield start, doc.line_end(start)
            else:
                yield view.rfind("\n", 0, pos) + 1, line_end
        pos = text.find(key, line_end + 1)


def _line_tail(line: str, key: str, *, folded: bool) -> int | None:
    """Where the end of ``line`` that reads as ``key`` starts, when other text is before it."""
    text = line.rstrip()
    if not folded:
        start = len(text) - len(key)
        found = start > 0 and text.endswith(key)
    else:
        folded_text = punctuation.fold(text)
        if not folded_text.endswith(key):
            return None
        span = _unfold_span(text, len(folded_text) - len(key), len(folded_text))
        if span is None or punctuation.fold(text[span[0] :]).strip() != key:
            return None
        start, found = span[0], True
    return start if found and text[:start].strip() else None


def _anchor_bound(text: str, last: int | None, anchor_at: int) -> int | None:
    """Where the anchor line of a window starting at or before ``last`` ends at the latest."""
    if last is None:
        return None
    end = text.find("\n", min(last, len(text)))
    for _ in range(anchor_at):
        if end < 0:
            break
        end = text.find("\n", end + 1)
    return len(text) if end < 0 else end


def _indent_pairs(
    doc: Document, old_lines: list[str], spans: list[tuple[int, int]], *, loose: bool
) -> list[tuple[str, str]] | None:
    """``(model indent, file indent)`` of each non-blank quoted line.

    ``loose`` reads odd spaces in the model's indentation as spaces; then a
    file indented with odd spaces itself gives None (there is no telling
    what its new lines should be indented with).
    """
    pairs = []
    for model, (s, e) in zip(old_lines, spans, strict=True):
        if not model.strip():
            continue
        file_line = doc.view[s:e]
        file_lead = indentation.leading(file_line)
        if not loose:
            pairs.append((indentation.leading(model), file_lead))
            continue
        if indentation.raw_leading(file_line) != file_lead:
            return None
        pairs.append((indentation.model_leading(model)[0], file_lead))
    return pairs


def _windows(
    text: str,
    anchor: str,
    anchor_at: int,
    keys: list[str],
    key: Callable[[str], str],
    *,
    count_lines: bool,
    begin: int = 0,
    stop: int | None = None,
    at_line_start: bool = False,
) -> Iterator[tuple[int, list[tuple[int, int]]]]:
    """Runs of consecutive lines of ``text`` whose keys are ``keys``.

    Yields each line's ``(start, end)`` and, with ``count_lines``, the index
    of the run's first line (-1 otherwise). Only anchor lines starting at or
    after ``begin`` and ending by ``stop`` are looked at; with ``at_line_start``
    only anchors that start their line.
    """
    # A final newline ends the last line; it does not start another one.
    limit = len(text) - 1 if text.endswith("\n") else len(text)
    stop = len(text) if stop is None else stop
    line_index = 0
    counted_to = 0
    pos = _next_anchor(text, anchor, begin, stop, at_line_start)
    while 0 <= pos <= limit:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        if key(text[start:end]) == anchor:
            spans = _walk(text, (start, end), anchor_at, len(keys), limit)
            if spans and all(key(text[s:e]) == k for (s, e), k in zip(spans, keys, strict=True)):
                if not count_lines:
                    yield -1, spans
                else:
                    line_index += text.count("\n", counted_to, start)
                    counted_to = start
                    yield line_index - anchor_at, spans
        pos = _next_anchor(text, anchor, end + 1, stop, at_line_start)


def _next_anchor(text: str, anchor: str, start: int, stop: int, at_line_start: bool) -> int:
    """The next occurrence of ``anchor`` in ``text[start:stop]`` (at a line start if asked)."""
    if not at_line_start:
        return text.find(anchor, start, stop)
    if start == 0 and text.startswith(anchor) and len(anchor) <= stop:
        return 0
    found = text.find("\n" + anchor, max(start - 1, 0), stop)
    return found + 1 if found >= 0 else -1


def _walk(
    text: str, line: tuple[int, int], before: int, count: int, limit: int
) -> list[tuple[int, int]] | None:
    """Spans of ``count`` lines around the line span ``line``, which is number ``before``."""
    start, end = line
    spans = [line]
    s = start
    for _ in range(before):
        if s == 0:
            return None
        e = s - 1
        s = text.rfind("\n", 0, e) + 1
        spans.append((s, e))
    spans.reverse()
    e = end
    for _ in range(count - before - 1):
        if e >= limit:
            return None
        s = e + 1
        e = text.find("\n", s)
        e = len(text) if e < 0 else e
        spans.append((s, e))
    return spans


def _view_spans(doc: Document, first: int, count: int) -> list[tuple[int, int]]:
    starts = doc.line_starts
    spans = []
    for index in range(first, first + count):
        start = starts[index]
        end = starts[index + 1] - 1 if index + 1 < len(starts) else len(doc.view)
        spans.append((start, end))
    return spans
