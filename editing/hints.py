"""The closest real region of a file to text that was not found.

A "not found" is only useful to the model if it shows what the file really
says there. Candidate places come from rapidfuzz: each of the longest quoted
lines is looked up among the file's lines, and every window the hits imply
is scored as a whole against the quoted block.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz, process

from .document import Document

_PROBES = 2  # quoted lines looked up on their own (the longest)
_HITS = 5  # best file lines kept per probe
AROUND = 2  # lines of context shown on each side of the region


@dataclass(frozen=True)
class Region:
    """``lines`` of the file, the first being line ``start`` (1-based).

    ``context`` is the same lines with up to ``AROUND`` more on each side,
    the first being line ``context_start``.
    """

    start: int
    lines: list[str]
    context_start: int
    context: list[str]


def closest(doc: Document, old: str, *, minimum: float = 40.0) -> Region | None:
    """The window of the file most like ``old``, or None if nothing is close."""
    quoted = old.removesuffix("\n").split("\n")
    file_lines = doc.view.split("\n")
    if doc.view.endswith("\n"):
        file_lines.pop()
    if not file_lines or not old.strip():
        return None
    size = min(len(quoted), len(file_lines))
    target = "\n".join(line.strip() for line in quoted)
    probes = sorted(
        (i for i, line in enumerate(quoted) if line.strip()),
        key=lambda i: -len(quoted[i].strip()),
    )[:_PROBES]
    stripped = [line.strip() for line in file_lines]
    starts: set[int] = set()
    for i in probes:
        hits = process.extract(
            quoted[i].strip(), stripped, scorer=fuzz.ratio, limit=_HITS, score_cutoff=minimum
        )
        for _, _, index in hits:
            starts.add(min(max(0, index - i), len(file_lines) - size))
    best_start, best_score = -1, minimum
    for start in sorted(starts):
        score = fuzz.ratio(target, "\n".join(stripped[start : start + size]))
        if score >= best_score and (best_start < 0 or score > best_score):
            best_start, best_score = start, score
    if best_start < 0:
        return None
    first = max(0, best_start - AROUND)
    last = min(len(file_lines), best_start + size + AROUND)
    lines = file_lines[best_start : best_start + size]
    return Region(best_start + 1, lines, first + 1, file_lines[first:last])
