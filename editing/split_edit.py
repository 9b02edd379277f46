"""Edits split at their elision lines: old and new both use one for unchanged code.

``old`` = ``A / # ... / B`` with ``new`` = ``A' / # ... / B'`` means: find A,
then B after it, keep what lies between, and replace A by A' and B by B'.
The lines an elision line stands for must sit inside the block it is
indented in: every elided line is blank or indented at least as deep as the
elision line, so B is searched only up to the end of that block, and must
be unique there. Elided spans far longer than the quoted text are refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from . import elision, indentation, matcher, messages
from .document import Document
from .errors import Ambiguous, Disproportionate, InvalidRequest, NotFound
from .escapes import unescape
from .matcher import Scope
from .matches import Level, Located, Match
from .replacement import Replacement, build

GAP_MIN = 40  # elided lines always allowed
GAP_RATIO = 8  # elided lines allowed per quoted line beyond that


@dataclass(frozen=True)
class _Segment:
    old: str
    new: str
    marker_before: str | None  # the elision line between this segment and the previous


@dataclass(frozen=True)
class _Link:
    """Where one segment matched, and how (level, escapes) it was found."""

    match: Match
    found: Located


def plan_split_edit(
    doc: Document, old: str, new: str, path: str
) -> tuple[list[Replacement], Level]:
    """Replacements for an edit whose old has elision lines paired in new."""
    segments = _segments(old, new, path)
    first = matcher.locate(doc, segments[0].old)
    links = [_Link(start, first) for start in first.matches] if first else []
    chains = []
    ambiguous_at = None
    for link in links:
        chain = _chain(doc, link, segments)
        if isinstance(chain, int):
            ambiguous_at = chain
        elif chain:
            chains.append(chain)
    if not chains and ambiguous_at is not None:
        raise Ambiguous(
            messages.ELISION_AMBIGUOUS.format(path=path, line=ambiguous_at),
            path=path,
            line=ambiguous_at,
        )
    if not chains:
        raise NotFound(messages.ELISION_NOT_FOUND.format(path=path), path=path)
    if len(chains) > 1:
        firsts = [doc.line_number(chain[0].match.start) for chain in chains]
        where = messages.line_spans([(line, line) for line in firsts])
        raise Ambiguous(
            messages.ELISION_AMBIGUOUS_START.format(path=path, count=len(chains), where=where),
            path=path,
            line=firsts[0],
        )
    chain = chains[0]
    _check_gap(doc, chain, segments, old, path)
    replacements = []
    for segment, link in zip(segments, chain, strict=True):
        found = link.found
        seg_new = unescape(segment.new, found.escapes) if found.escapes else segment.new
        if found.old.endswith("\n") and seg_new and not seg_new.endswith("\n"):
            seg_new += "\n"
        replacements.append(build(doc, [link.match], found.old, seg_new, path))
    level = max(link.found.reported_level for link in chain)
    return replacements, level


def _segments(old: str, new: str, path: str) -> list[_Segment]:
    old_parts, old_markers = elision.split(old)
    new_parts, new_markers = elision.split(new)
    if len(new_markers) != len(old_markers):
        raise InvalidRequest(
            messages.ELISION_DROPPED.format(path=path, line=old_markers[0].strip()), path=path
        )
    segments = []
    for index, (old_part, new_part) in enumerate(zip(old_parts, new_parts, strict=True)):
        marker = old_markers[index - 1] if index else None
        if old_part.strip():
            segments.append(_Segment(old_part, new_part, marker))
            continue
        if new_part.strip():
            edge = "start" if index == 0 else "end" if index == len(old_parts) - 1 else "middle"
            line = (old_markers[0] if index == 0 else old_markers[index - 1]).strip()
            raise InvalidRequest(
                messages.ELISION_EDGE.format(path=path, line=line, edge=edge), path=path
            )
    if not segments:
        raise InvalidRequest(messages.ELISION_ONLY.format(path=path), path=path)
    # The first kept segment has nothing before it to be elided.
    segments[0] = _Segment(segments[0].old, segments[0].new, None)
    return segments


def _chain(doc: Document, start: _Link, segments: list[_Segment]) -> list[_Link] | int | None:
    """The unique continuation of ``start`` through every later segment.

    None when a segment is missing from its block; the line number of the
    block's start when a segment occurs in it more than once.
    """
    chain = [start]
    for segment in segments[1:]:
        previous = chain[-1].match
        limit = _block_end(doc, previous, segment.marker_before or "")
        found = matcher.locate(doc, segment.old, Scope(previous.end, limit))
        candidates = [m for m in found.matches if doc.starts_line(m.start)] if found else []
        if len(candidates) > 1:
            return doc.line_number(previous.start)
        if not candidates or found is None:
            return None
        chain.append(_Link(candidates[0], found))
    return chain


def _block_end(doc: Document, previous: Match, marker: str) -> int:
    """The last offset where the segment after an elision line may start."""
    marker_indent = indentation.leading(marker)
    if previous.indent is not None:
        marker_indent = previous.indent.apply(marker_indent) or marker_indent
    pos = previous.end if previous.ends_line else doc.line_end(previous.end) + 1
    return indentation.block_end(doc.view, pos, indentation.columns(marker_indent))


def _check_gap(
    doc: Document, chain: list[_Link], segments: list[_Segment], old: str, path: str
) -> None:
    """Refuse elision lines that stand for far more lines than old quotes."""
    quoted = sum(1 for line in old.split("\n") if line.strip() and not elision.is_marker(line))
    gap = first_gap = last_gap = 0
    marker = ""
    matches = [link.match for link in chain]
    for (before, after), segment in zip(pairwise(matches), segments[1:], strict=True):
        first = doc.line_number(before.end) + (0 if before.ends_line else 1)
        last = doc.line_number(after.start) - 1
        if last >= first:
            gap += last - first + 1
            if not first_gap:
                first_gap, marker = first, (segment.marker_before or "").strip()
            last_gap = last
    if gap > max(GAP_MIN, GAP_RATIO * quoted):
        raise Disproportionate(
            messages.ELISION_GAP.format(
                path=path, line=marker, gap=gap, first=first_gap, last=last_gap, quoted=quoted
            ),
            path=path,
            line=first_gap,
        )
