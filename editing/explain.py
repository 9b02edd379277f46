"""Refusal messages that need the file: where old matches, or what it is closest to."""

from __future__ import annotations

from . import messages
from .document import Document
from .hints import closest
from .matcher import Level, Located, Match


def ambiguous(doc: Document, located: Located, matches: list[Match], path: str) -> str:
    """Every place old matches, for the model to pick one with more context."""
    lines_each = located.old.rstrip("\n").count("\n")
    firsts = [doc.line_number(m.start) for m in matches[:20]]
    where = messages.line_spans([(first, first + lines_each) for first in firsts])
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
) -> str:
    """The closest real region of the file and how old differs from it.

    ``head`` replaces the first line (patches say which chunk), ``retry``
    the closing instruction.
    """
    parts = [head or messages.NOT_FOUND.format(path=path)]
    region = closest(doc, old)
    if region is None:
        parts.append(messages.NOT_FOUND_NOTHING_CLOSE)
        return "\n".join(parts)
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
    return "\n".join(parts)
