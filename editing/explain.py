"""Refusal messages that need the file: where old matches, or what it is closest to."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from . import messages
from .document import Document
from .hints import closest
from .matches import Level, Located, Match


def lines_of(doc: Document, matches: Sequence[Match]) -> str:
    """``line 4``, ``lines 4-6`` or ``lines 3-4, 9``: the lines ``matches`` cover.

    Several matches on the same lines are named once, with the columns where
    they start: ``line 1 (columns 5, 12)``.
    """
    spans: list[tuple[int, int]] = []
    columns: list[list[int]] = []
    for match in matches:
        first = doc.line_number(match.start)
        last = first + doc.view.count("\n", match.start, max(match.start, match.end - 1))
        column = match.start - doc.line_start(match.start) + 1
        if spans and spans[-1] == (first, last):
            columns[-1].append(column)
        else:
            spans.append((first, last))
            columns.append([column])
    return messages.line_spans(spans, columns)


LISTED = 20  # places an ambiguous refusal names; it counts the others


def ambiguous(
    doc: Document, located: Located, matches: list[Match], path: str, count: int | None = None
) -> str:
    """Every place old matches, for the model to pick one with more context.

    ``count`` is how many places there are when ``matches`` holds only the
    first ``LISTED`` of them.
    """
    count = len(matches) if count is None else count
    where = lines_of(doc, matches[:LISTED])
    where += f", and {count - LISTED} more" if count > LISTED else ""
    level = located.reported_level
    how = f" ({messages.LEVEL_NOTES[level.label]})" if level > Level.EXACT else ""
    return messages.AMBIGUOUS.format(path=path, count=count, how=how, where=where)


def not_found(
    doc: Document,
    old: str,
    path: str,
    *,
    head: str | None = None,
    retry: str = messages.NOT_FOUND_RETRY,
    label: str = "old",
) -> tuple[str, int | None]:
    """The closest real region of the file and how old differs from it: the
    message, and the first line of that region (None when nothing is close).

    ``head`` replaces the first line (patches say which chunk), ``retry``
    the closing instruction.
    """
    parts = [head or messages.NOT_FOUND.format(path=path)]
    region = closest(doc, old)
    if region is None:
        parts.append(messages.NOT_FOUND_NOTHING_CLOSE)
        return "\n".join(parts), None
    last = region.start + len(region.lines) - 1
    parts.append(messages.NOT_FOUND_CLOSEST.format(where=messages.line_span(region.start, last)))
    parts.append(messages.numbered(region.context_start, region.context))
    quoted = old.removesuffix("\n").split("\n")
    differences = []
    for i, (q, f) in enumerate(zip(quoted, region.lines, strict=False)):
        if q.strip(" \t") == f.strip(" \t"):
            continue
        number = region.start + i
        lines = [f"  {label + ':':<6}{q}", f"  {'file:':<6}{f}  (line {number})"]
        lines += _invisible(q, f, f"in {label}")
        lines += _invisible(f, q, f"in the file's line {number}")
        differences.append("\n".join(lines))
    if differences:
        parts.append(messages.NOT_FOUND_DIFFERS)
        parts.extend(differences[:8])
    parts.append(retry)
    return "\n".join(parts), region.start


# Characters that do not show, or look like a plain space, when printed.
_INVISIBLE = {"Zs", "Zl", "Zp", "Cf", "Cc", "Co", "Cn", "Mn"}


def _invisible(text: str, other: str, where: str) -> list[str]:
    """A line naming each invisible character of ``text`` that ``other`` lacks."""
    names = []
    for column, char in enumerate(text, 1):
        if char in " \t" or char in other or unicodedata.category(char) not in _INVISIBLE:
            continue
        name = unicodedata.name(char, "unnamed character")
        names.append(f"U+{ord(char):04X} {name} at column {column}")
        if len(names) == 3:
            break
    return [f"        {where}: " + "; ".join(names)] if names else []
