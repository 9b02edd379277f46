"""Refusal messages that need the file: where old matches, or what it is closest to."""

from __future__ import annotations

from collections.abc import Sequence

from . import messages
from .document import Document
from .hints import closest
from .matcher import Level, Located, Match


def lines_of(doc: Document, matches: Sequence[Match]) -> str:
    """``line 4``, ``lines 4-6`` or ``lines 3-4, 9``: the lines ``matches`` cover."""
    spans = []
    for match in matches:
        first = doc.line_number(match.start)
        last = first + doc.view.count("\n", match.start, max(match.start, match.end - 1))
        spans.append((first, last))
    return messages.line_spans(spans)


def ambiguous(doc: Document, located: Located, matches: list[Match], path: str) -> str:
    """Every place old matches, for the model to pick one with more context."""
    where = lines_of(doc, matches[:20])
    where += f", and {len(matches) - 20} more" if len(matches) > 20 else ""
    level = located.reported_level
    how = f" ({messages.LEVEL_NOTES[level.label]})" if level > Level.EXACT else ""
    return messages.AMBIGUOUS.format(path=path, count=len(matches), how=how, where=where)


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
    parts.append(messages.NOT_FOUND_CLOSEST.format(first=region.start, last=last))
    parts.append(messages.numbered(region.context_start, region.context))
    quoted = old.removesuffix("\n").split("\n")
    differences = [
        f"  {label + ':':<6}{q}\n  {'file:':<6}{f}  (line {region.start + i})"
        for i, (q, f) in enumerate(zip(quoted, region.lines, strict=False))
        if q.strip() != f.strip()
    ]
    if differences:
        parts.append(messages.NOT_FOUND_DIFFERS)
        parts.extend(differences[:8])
    parts.append(retry)
    return "\n".join(parts), region.start
