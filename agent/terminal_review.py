"""``surehand run``'s review on a terminal: one decision at a time, as ``git add -p`` stages.

Each item is one thing to decide: a hunk of an edited file (one of the
model's edits, a region of the text the agent read, shown alone with a few
lines around it and the model's label for it), or a whole file operation (a
new file with its content, a deletion, a move with its changes). The keys:

    y  accept this hunk               n  reject it
    a  accept it and the rest of its file
    d  reject it and the rest of its file
    A  accept it and every hunk still undecided, in every file
    D  reject it and every hunk still undecided
    k  go back to the previous hunk   q  quit: reject what is undecided
    ?  help

A file that changes how tools run (``agent.governing``) is accepted only by
a typed "yes", hunk by hunk: never by ``a`` or ``A`` (nor by ``--yes``).

The walk only decides; it writes nothing. ``Walk.chosen`` turns the
decisions into the proposal of the accepted hunks (each file's text the
agent read with just those applied, ``hunks.apply``), which ``accept``
lands on the files as they are then and writes like any proposal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from .hunk_diff import hunk_diff
from .hunks import Hunk, apply, line_of
from .landed import operation_of
from .proposal import Proposal, ProposedChange
from .review import HunkReport, HunkStatus
from .terminal import Terminal

KEYS = "y,n,a,d,A,D,k,q,?"
HELP = """\
y - accept this hunk
n - reject this hunk
a - accept this hunk and every later one of this file
d - reject this hunk and every later one of this file
A - accept this hunk and every one still undecided, in every file
    (not a file that changes how tools run: type yes for each of those)
D - reject this hunk and every one still undecided
k - go back to the previous hunk
q - quit: reject every hunk still undecided, then write what you accepted
? - this help
Nothing is written before the last decision; Ctrl-C writes nothing."""


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


async def walk(proposal: Proposal, terminal: Terminal) -> Walk:
    """Ask about every item of ``proposal`` in turn; the decisions, nothing written."""
    review = Walk.of(proposal)
    _overview(terminal, review)
    index = review.next_open(0)
    while index is not None:
        _show(terminal, review, index)
        key = await _key(terminal, review.items[index], first=index == 0)
        if key == "k":
            index -= 1
            continue
        review.decide(index, key)
        if key == "A" and any(i.accepted is None for i in review.items):
            terminal.say(
                "Every hunk still undecided is accepted, but for files that change how tools "
                "run: each of those is asked about on its own."
            )
        if key == "q":
            break
        index = review.next_open(index + 1)
    terminal.say(review.summary(), style="bold")
    return review


def _overview(terminal: Terminal, review: Walk) -> None:
    files = len(review.proposal.changes)
    hunks = len(review.items)
    terminal.say(
        f"Proposed changes: {hunks} hunk{'s' if hunks != 1 else ''} in {files} "
        f"file{'s' if files != 1 else ''}. Decide on each (? for help); nothing is written "
        "before the last.",
        style="bold",
    )


def _show(terminal: Terminal, review: Walk, index: int) -> None:
    item = review.items[index]
    change = item.change
    files = len(review.proposal.changes)
    where = f"hunk {index + 1} of {len(review.items)}, file {item.file + 1} of {files}"
    terminal.say()
    terminal.heading(f"{change.path} · {where} · {item.label}")
    if item.governs:
        terminal.governs(change.path, item.governs)
    if item.accepted is not None:
        terminal.say(f"(you {'accepted' if item.accepted else 'rejected'} it; decide again)")
    operation = operation_of(change)
    if item.hunk is not None:
        terminal.diff_lines(hunk_diff(change.before or "", item.hunk))
    elif operation == "create":
        terminal.say(f"New file {change.path}:")
        terminal.diff_lines(hunk_diff("", Hunk(0, 0, change.after or "", ())))
    elif operation == "delete":
        terminal.say(f"Delete {change.path}, which holds:")
        before = change.before or ""
        terminal.diff_lines(hunk_diff(before, Hunk(0, len(before), "", ())))
    else:
        terminal.say(f"Move {change.source} to {change.path}" + (":" if change.hunks else "."))
        if change.hunks:
            terminal.diff(change.diff())


def _question(item: Item) -> str:
    change = item.change
    operation = operation_of(change)
    what = {
        "edit": "this hunk",
        "create": f"the new file {change.path}",
        "delete": f"deleting {change.path}",
        "rename": f"moving {change.source} to {change.path}",
    }[operation]
    if item.governs:
        what = f"this hunk of {change.path}" if operation == "edit" else what
        return f"Accept {what} on its own? Type yes, or [n,d,D,k,q,?]"
    return f"Accept {what}? [{KEYS}]"


async def _key(terminal: Terminal, item: Item, *, first: bool) -> str:
    """A decision key for ``item`` (``y n a d A D k q``): help, unknown keys and what a
    file that changes how tools run does not allow are answered and asked again."""
    while True:
        answer = await terminal.ask(_question(item), keep_case=True)
        lower = answer.lower()
        if answer == "" and terminal.input_ended:
            return "q"  # the end of input (Ctrl-D): as git add -p, quit
        if lower == "yes":
            return "y"
        if item.governs and answer in ("y", "Y", "a", "A"):
            terminal.say(
                f"{item.change.path} changes how tools run: type yes to accept it, on its own.",
                style="yellow",
            )
            continue
        key = answer if answer in ("A", "D") else lower
        if key in ("y", "n", "a", "d", "A", "D", "q"):
            return key
        if key == "k" and first:
            terminal.say("This is the first hunk; there is none before it.")
            continue
        if key == "k":
            return key
        if key == "":
            terminal.say("Type a key, then Enter (? for the keys).")
            continue
        if key != "?":
            terminal.say(f"Not a key here: {answer!r}.", style="yellow")
        terminal.say(HELP)
