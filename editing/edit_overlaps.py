"""The replacements of a request's edits in file order, edits on one line merged.

Each edit's plan replaces whole lines, so two edits on one line share a
region; ``without_overlaps`` merges them when their matched texts do not
overlap and each left the line as it was outside its own match, and
refuses them otherwise, with a message saying how to send them as one.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import NoReturn

from . import messages
from .document import Document
from .edit_plan import Plan
from .errors import InvalidRequest
from .replacement import Replacement


def without_overlaps(doc: Document, plans: list[tuple[int, Plan]], path: str) -> list[Replacement]:
    """All replacements in file order, those of several edits on one line merged.

    Replacements are whole lines, so two edits on one line (a minified file,
    a long call) share their region. They are merged when the texts the
    edits matched do not overlap and each edit left its line as it was
    outside its own match: the line then takes each edit's new text at its
    own place, exactly as applying them one after the other would. Edits
    whose matched texts overlap are refused, and so are edits that rewrote
    more of a shared line than their match (a drift undone on the whole line).
    """
    tagged = sorted(
        (
            _Tagged(rep, plan.span(number), index)
            for index, plan in plans
            for number, rep in enumerate(plan.replacements)
        ),
        key=lambda item: (item.rep.start, item.rep.end),
    )
    merged: list[Replacement] = []
    cluster: list[_Tagged] = []
    cluster_end = -1
    for item in tagged:
        rep = item.rep
        if cluster and (rep.start < cluster_end or rep.start == cluster_end == rep.end):
            cluster.append(item)
        else:
            if cluster:
                merged.append(_merged(doc, cluster, path))
            cluster = [item]
        cluster_end = max(cluster_end, rep.end) if len(cluster) > 1 else rep.end
    if cluster:
        merged.append(_merged(doc, cluster, path))
    return merged


@dataclass(frozen=True)
class _Tagged:
    rep: Replacement
    span: tuple[int, int]  # the text the edit matched (view offsets)
    edit: int  # which edit of the request, from 1


_OVERLAPPING_TEXT = (
    "Edits {first} and {second} change the same text on line {line} of {path}: the text "
    "edit {second} quotes overlaps the text edit {first} quotes. Merge them into one edit "
    "(old covering both, new with both changes). No edit was applied."
)


def _merged(doc: Document, cluster: list[_Tagged], path: str) -> Replacement:
    """One replacement for replacements sharing lines (see ``without_overlaps``)."""
    if len(cluster) == 1:
        return cluster[0].rep
    by_span = sorted(cluster, key=lambda item: item.span)
    for before, after in pairwise(by_span):
        if after.span[0] < before.span[1]:
            _refuse_overlap(doc, before, after, path, _OVERLAPPING_TEXT)
    original = doc.original
    start = min(item.rep.start for item in cluster)
    last = max(cluster, key=lambda item: item.rep.end)
    end = last.rep.end
    parts = []
    cursor = doc.original_offset(start)
    for item in by_span:
        rep = item.rep
        a, b = doc.original_offset(item.span[0]), doc.original_offset(item.span[1])
        head = original[doc.original_offset(rep.start) : a]
        tail = original[b : doc.original_offset(rep.end)]
        text = rep.text
        kept = len(text) >= len(head) + len(tail) and text.startswith(head) and text.endswith(tail)
        if not kept:
            # The edit rewrote its line beyond its match: there is no telling
            # how the other edit's change would read in it.
            other = next((o for o in cluster if o.edit != item.edit), item)
            _refuse_overlap(doc, other, item, path, messages.OVERLAP)
        parts += [original[cursor:a], text[len(head) : len(text) - len(tail)]]
        cursor = b
    parts.append(original[cursor : doc.original_offset(end)])
    return Replacement(start, end, "".join(parts), last.rep.ends_line)


def _refuse_overlap(
    doc: Document, one: _Tagged, other: _Tagged, path: str, message: str
) -> NoReturn:
    line = doc.line_number(max(one.span[0], other.span[0]))
    first, second = sorted((one.edit, other.edit))
    raise InvalidRequest(
        message.format(first=first, second=second, line=line, path=path), path=path, line=line
    )
