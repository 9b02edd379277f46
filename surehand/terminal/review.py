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

A file that changes how tools run (``agent.staging.governing``) is accepted only by
a typed "yes", hunk by hunk: never by ``a`` or ``A`` (nor by ``--yes``).

The walk only decides (``agent.staging.walk``); it writes nothing:
``accept`` lands what was accepted on the files as they are then and writes
it like any proposal.
"""

from __future__ import annotations

from agent.staging.hunk_diff import hunk_diff
from agent.staging.hunks import Hunk
from agent.staging.landed import operation_of
from agent.staging.proposal import Proposal
from agent.staging.walk import Item, Walk
from surehand.terminal.screen import Terminal

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
