"""A proposal under review, one item at a time, following the user's typing. Pure.

Each item is one thing the user decides: a hunk of an edited file (a region
of the file's text *now*), a new file, a deleted file, or a moved file with
its changes. ``update`` takes a file's new text (the client's didChange, or
the text after an accepted hunk landed) and works out what it means for the
file's undecided hunks:

- the new text is the old one with some of them applied (the client applied
  an accepted hunk, or the user typed exactly that): those are accepted, the
  rest move past them;
- otherwise the user typed: each hunk is rebased onto the new text
  (``agent.staging.rebase``); one the typing overlaps goes *stale* (it can only be
  rejected, and is reported as a conflict), the rest move with the text.

What landed is read from the texts only; the client's ``applied`` answer
only ever turns a hunk down. ``report`` gives the outcome as ``agent.staging.review``
facts once nothing is left to decide.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from agent.staging.hunks import Hunk, apply, line_of, line_regions
from agent.staging.landed import decided, operation_of
from agent.staging.landing import Landing
from agent.staging.proposal import Proposal, ProposedChange
from agent.staging.rebase import rebase
from agent.staging.review import FileReport, FileStatus, HunkReport, HunkStatus, Review


class State(StrEnum):
    PENDING = "pending"
    STALE = "stale"  # the user changed the same lines: only rejectable
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    CONFLICT = "conflict"  # a stale hunk, rejected; or left out before the review began

    @property
    def open(self) -> bool:
        return self in (State.PENDING, State.STALE)


class Kind(StrEnum):
    HUNK = "hunk"
    CREATE = "create"
    DELETE = "delete"
    RENAME = "rename"


_ids = itertools.count(1)


@dataclass
class Item:
    """One decision: a hunk of ``path``'s current text, or a whole file operation."""

    id: str
    kind: Kind
    path: str  # the file the change is to (a move's new path)
    label: str
    change: ProposedChange
    hunk: Hunk | None = None  # a HUNK's region of the file's current text
    state: State = State.PENDING
    line: int = 1  # 1-based line of the text where it stands (or stood when decided)
    old: str | None = None  # a stale hunk: what it replaced (its region is a point now)

    @property
    def shown_on(self) -> str:
        """The existing file the item is shown on (a move's old path; a new file's own)."""
        return self.change.source or self.path

    def old_text(self, text: str) -> str:
        """What the hunk replaces in ``text`` (the file's current text)."""
        if self.old is not None:
            return self.old
        return text[self.hunk.start : self.hunk.end] if self.hunk else (self.change.before or "")

    @property
    def governs(self) -> str | None:
        """What the item's file governs when it changes how tools run (accepted only on
        its own, never by accept-all), else None."""
        return self.change.governs

    @property
    def new_text(self) -> str:
        return self.hunk.text if self.hunk else (self.change.after or "")


@dataclass
class HunkReview:
    """The items of one proposal and the texts they are regions of."""

    id: str
    proposal: Proposal
    items: list[Item] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # path -> the text the hunks are on
    early: list[FileReport] = field(default_factory=list)  # decided before the review began
    conflicted: dict[str, list[HunkReport]] = field(default_factory=dict)
    sent: dict[str, list[Item]] = field(default_factory=dict)  # hunks on their way, by path

    @classmethod
    def of(cls, proposal: Proposal, landings: Iterable[Landing]) -> HunkReview:
        """The items of the proposal as landed on the texts now (``agent.staging.landing.land``)."""
        from agent.staging.landed import unsent  # noqa: PLC0415

        review = cls(f"review-{next(_ids)}", proposal)
        for original, landing in zip(proposal.changes, landings, strict=True):
            if landing.change is None:
                review.early.append(unsent(original, landing))
                continue
            change = landing.change
            review.conflicted[change.path] = [
                HunkReport(c.label, c.line, HunkStatus.CONFLICT, True) for c in landing.conflicts
            ]
            kind = Kind(operation_of(change)) if operation_of(change) != "edit" else Kind.HUNK
            if kind is not Kind.HUNK:
                review.items.append(_item(kind, change, None, 1))
                continue
            text = change.before or ""
            review.texts[change.path] = text
            for hunk in change.hunks:
                review.items.append(_item(kind, change, hunk, line_of(text, hunk.start)))
        return review

    # -- asking ----------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return not any(item.state.open for item in self.items)

    def get(self, item_id: str) -> Item | None:
        return next((i for i in self.items if i.id == item_id), None)

    def open_items(self, path: str | None = None) -> list[Item]:
        return [i for i in self.items if i.state.open and (path is None or i.shown_on == path)]

    def pending_hunks(self, path: str) -> list[Item]:
        """The undecided hunks of ``path``, in text order."""
        found = [i for i in self.items if i.kind is Kind.HUNK and i.path == path]
        return sorted((i for i in found if i.state.open), key=lambda i: i.hunk.start)  # type: ignore[union-attr]

    # -- deciding --------------------------------------------------------------------

    def decide(self, item: Item, state: State) -> None:
        """Record the user's decision (a stale hunk rejected is a conflict)."""
        if not item.state.open:
            return
        if state is State.REJECTED and item.state is State.STALE:
            state = State.CONFLICT
        item.state = state
        if item.hunk is not None and item.path in self.texts:
            item.hunk = _point(item.hunk, item.hunk.start)
            item.line = line_of(self.texts[item.path], item.hunk.start)

    def expect(self, items: list[Item]) -> None:
        """These hunks (of one file) were sent to be applied: a text that is the file's
        with exactly them applied is read as them, even where another reading fits."""
        self.sent[items[0].path] = list(items)

    def update(self, path: str, now: str | None) -> bool:
        """``path`` holds ``now``: accept what landed, move or stale the rest; whether
        anything changed.

        A hunk no longer pending (decided, or stale) is a point of the text from
        then on, followed through the changes so its line is right in the end."""
        old = self.texts.get(path)
        if old is None or now is None or now == old:
            return False
        self.texts[path] = now
        hunks = [i for i in self.items if i.kind is Kind.HUNK and i.path == path and i.hunk]
        for item in hunks:
            if item.state is not State.PENDING:
                self._place(item, now, _mapped(old, now, item.hunk.start))  # type: ignore[union-attr]
        live = sorted(
            (i for i in hunks if i.state is State.PENDING),
            key=lambda i: i.hunk.start,  # type: ignore[union-attr]
        )
        sent = [i for i in self.sent.pop(path, []) if i in live]
        choice = decided(old, [i.hunk for i in live], now)  # type: ignore[misc]
        if sent and now == self.edit_for(sent, old):
            choice = [i in sent for i in live]
        if choice is not None:  # some of them landed (or nothing the hunks touch changed)
            shift = 0
            for item, accepted in zip(live, choice, strict=True):
                assert item.hunk is not None
                start = item.hunk.start + shift
                if accepted:
                    shift += len(item.hunk.text) - (item.hunk.end - item.hunk.start)
                    item.state = State.ACCEPTED
                    self._place(item, now, start)
                else:
                    item.hunk = _moved(item.hunk, shift)
                    item.line = line_of(now, start)
            return True
        for item in live:  # the user typed
            assert item.hunk is not None
            rebased = rebase(old, (item.hunk,), now)
            if rebased.hunks:
                item.hunk = rebased.hunks[0]
                item.line = line_of(now, item.hunk.start)
                continue
            if rebased.applied:
                item.state = State.ACCEPTED  # the user typed exactly this
            else:
                item.state = State.STALE
                item.old = old[item.hunk.start : item.hunk.end]
            self._place(item, now, _mapped(old, now, item.hunk.start))
        return True

    @staticmethod
    def _place(item: Item, text: str, at: int) -> None:
        assert item.hunk is not None
        item.hunk = _point(item.hunk, at)
        item.line = line_of(text, at)

    def edit_for(self, items: list[Item], text: str | None = None) -> str:
        """The text of the items' file (or ``text``) with exactly ``items`` (hunks of
        one file) applied."""
        hunks = sorted((i.hunk for i in items if i.hunk), key=lambda h: h.start)
        return apply(self.texts[items[0].path] if text is None else text, hunks)

    # -- the outcome -----------------------------------------------------------------

    def report(self) -> Review:
        """What became of every item, per file, as the facts the model and the user get."""
        files: list[FileReport] = []
        for change in self.proposal.changes:
            early = next((r for r in self.early if r.path == change.path), None)
            if early is not None:
                files.append(early)
                continue
            items = [i for i in self.items if i.path == change.path]
            files.append(self._file_report(change, items))
        review = Review.of(files, self.proposal.summary)
        review.incomplete = self.proposal.incomplete
        return review

    def _file_report(self, change: ProposedChange, items: list[Item]) -> FileReport:
        status_of = {
            State.ACCEPTED: HunkStatus.ACCEPTED,
            State.CONFLICT: HunkStatus.CONFLICT,
            State.STALE: HunkStatus.CONFLICT,
        }
        operation = operation_of(change)
        hunks: list[HunkReport] = []
        operation_accepted = None
        for item in items:
            decision = status_of.get(item.state, HunkStatus.REJECTED)
            if item.kind is Kind.HUNK:
                hunks.append(HunkReport(item.label, item.line, decision))
            else:
                operation_accepted = item.state is State.ACCEPTED
                hunks += [
                    HunkReport(h.label, line_of(change.before or "", h.start), decision)
                    for h in change.hunks
                ]
        conflicts = self.conflicted.get(change.path, [])
        hunks += conflicts
        statuses = {h.status for h in hunks}
        if operation_accepted is not None:
            statuses.add(HunkStatus.ACCEPTED if operation_accepted else HunkStatus.REJECTED)
        if statuses == {HunkStatus.ACCEPTED}:
            status = FileStatus.APPLIED
        elif HunkStatus.ACCEPTED in statuses:
            status = FileStatus.PARTLY
        elif HunkStatus.CONFLICT in statuses and HunkStatus.REJECTED not in statuses:
            status = FileStatus.CONFLICT
        else:
            status = FileStatus.UNCHANGED
        return FileReport(
            change.path,
            operation,
            status,
            tuple(hunks),
            change.source,
            operation_accepted,
            bool(conflicts),
        )


def _item(kind: Kind, change: ProposedChange, hunk: Hunk | None, line: int) -> Item:
    label = hunk.label if hunk else ("; ".join(change.descriptions) or kind.value)
    return Item(f"h{next(_ids)}", kind, change.path, label, change, hunk, line=line)


def _moved(hunk: Hunk, shift: int) -> Hunk:
    return Hunk(hunk.start + shift, hunk.end + shift, hunk.text, hunk.descriptions)


def _point(hunk: Hunk, at: int) -> Hunk:
    """``hunk`` as a point of the text (its text and descriptions kept)."""
    return Hunk(at, at, hunk.text, hunk.descriptions)


def _mapped(old: str, now: str, offset: int) -> int:
    """Where ``offset`` of ``old`` is in ``now`` (the start of a change that took it)."""
    shift = 0
    for start, end, new in line_regions(old, now):
        if start > offset or start == end == offset:
            break
        if end <= offset:
            shift += len(new) - (end - start)
            continue
        return start + shift  # inside a change: at its start
    return offset + shift
