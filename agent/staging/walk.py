"""The person's decisions over a proposal, one item at a time, written nowhere.

Each item is one thing to decide: a hunk of an edited file (one of the
model's edits, a region of the text the agent read, with the model's label
for it), or a whole file operation (a new file, a deletion, a move with its
changes). The decision keys are ``git add -p``'s: ``y``/``n`` this item,
``a``/``d`` it and the rest of its file, ``A``/``D`` it and every item
still undecided, ``q`` the rest rejected. A file that changes how tools run
(``agent.staging.governing``) is accepted only item by item, never by
``a`` or ``A``.

``Walk.chosen`` turns the decisions into the proposal of the accepted hunks
(each file's text the agent read with just those applied, ``hunks.apply``),
which a front end lands on the files as they are then and writes like any
proposal; ``review_of`` says what became of every file offered. The
terminal asks the questions one by one, the Agent Client Protocol agent
asks the editor.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent.staging.hunks import Hunk, apply, line_of
from agent.staging.landed import operation_of, rejected
from agent.staging.proposal import Proposal, ProposedChange
from agent.staging.review import FileReport, FileStatus, HunkReport, HunkStatus, Review


@dataclass
class Item:
    """One decision: a hunk of ``change`` (of its ``before``), or its whole file operation."""

    change: ProposedChange
    file: int  # the index of its file in the proposal
    hunk: Hunk | None  # None: the file operation (create, delete, move) as a whole
    accepted: bool | None = None

    @property
    def label(self) -> str:
        if self.hunk is not None:
            return self.hunk.label
        return "; ".join(self.change.descriptions) or "change"

    @property
    def governs(self) -> str | None:
        return self.change.governs


@dataclass
class Walk:
    """The items of one proposal and what the person decided about each."""

    proposal: Proposal
    items: list[Item]

    @classmethod
    def of(cls, proposal: Proposal) -> Walk:
        items = []
        for index, change in enumerate(proposal.changes):
            if operation_of(change) == "edit":
                items += [Item(change, index, hunk) for hunk in change.hunks]
            else:
                items.append(Item(change, index, None))
        return cls(proposal, items)

    def next_open(self, start: int) -> int | None:
        """The first undecided item from ``start`` on, else the first undecided of all."""
        order = [*range(start, len(self.items)), *range(min(start, len(self.items)))]
        return next((i for i in order if self.items[i].accepted is None), None)

    def decide(self, index: int, key: str) -> None:
        """Apply a decision key (``y n a d A D q``) at item ``index``."""
        item = self.items[index]
        accept = key in ("y", "a", "A")
        later = self.items[index + 1 :]
        if key in ("a", "d"):
            others = [i for i in later if i.file == item.file]
        elif key in ("A", "D", "q"):
            others = self.items
        else:
            others = []
        if key != "q":
            item.accepted = accept
        for other in others:
            if other.accepted is None and not (accept and other.governs):
                other.accepted = accept

    def summary(self) -> str:
        """The summary line, ``3 of 5 hunks accepted in 2 files.`` (a file operation is one)."""
        accepted = [i for i in self.items if i.accepted]
        files = len({i.file for i in accepted})
        where = f" in {files} file{'s' if files != 1 else ''}" if accepted else ""
        total = len(self.items)
        return f"{len(accepted)} of {total} hunk{'s' if total != 1 else ''} accepted{where}."

    def chosen(self) -> tuple[Proposal, dict[str, tuple[HunkReport, ...]]]:
        """The proposal of what was accepted, and each of its files' rejected hunks.

        A file keeps its accepted hunks only (its ``after`` is the text the agent
        read with just those applied); a file operation goes whole or not at all;
        a file with nothing accepted is left out.
        """
        changes: list[ProposedChange] = []
        rejected: dict[str, tuple[HunkReport, ...]] = {}
        for index, change in enumerate(self.proposal.changes):
            items = [i for i in self.items if i.file == index]
            if not any(i.accepted for i in items):
                continue
            if operation_of(change) != "edit":
                changes.append(change)
                continue
            accepted = [i.hunk for i in items if i.accepted and i.hunk is not None]
            changes.append(subset(change, accepted))
            before = change.before or ""
            rejected[change.path] = tuple(
                HunkReport(i.hunk.label, line_of(before, i.hunk.start), HunkStatus.REJECTED)
                for i in items
                if not i.accepted and i.hunk is not None
            )
        return dataclasses.replace(self.proposal, changes=tuple(changes)), rejected


def subset(change: ProposedChange, accepted: Sequence[Hunk]) -> ProposedChange:
    """An edit with only the ``accepted`` of its hunks (at least one): the text the
    agent read with just those applied."""
    labels = tuple(dict.fromkeys(d for hunk in accepted for d in hunk.descriptions))
    after = apply(change.before or "", accepted)
    return dataclasses.replace(change, after=after, descriptions=labels, hunks=tuple(accepted))


def review_of(
    offered: Proposal,
    reports: list[FileReport],
    rejected_hunks: dict[str, tuple[HunkReport, ...]] | None = None,
) -> Review:
    """Every offered file's report, in the proposal's order: those of the files landed,
    with the hunks the person rejected added; a file with nothing accepted, rejected."""
    left = rejected_hunks or {}
    by_path = {r.path: _partly(r, left.get(r.path, ())) for r in reports}
    return Review.of([by_path.get(c.path) or rejected(c) for c in offered.changes], offered.summary)


def _partly(report: FileReport, rejected_hunks: tuple[HunkReport, ...]) -> FileReport:
    """A file's report with the hunks the person rejected added."""
    if not rejected_hunks:
        return report
    status = FileStatus.PARTLY if report.status == FileStatus.APPLIED else report.status
    return replace(report, status=status, hunks=report.hunks + rejected_hunks)
