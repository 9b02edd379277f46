"""``surehand run``'s accept flow: the proposal onto the files as they are at the answer.

On a terminal the person decides hunk by hunk (``terminal_review``); with
``--yes``, or answers from a pipe, the proposal is shown whole and one
question (or none) decides it all. Either way what was accepted goes through
the same landing as the language server's (``landing``): current text vs the
text the agent read, a three-way rebase onto the user's changes, conflicts
reported and never guessed, file operations refused when their ground moved.
What is written is recorded for ``surehand undo`` (``history``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Literal

from agent.checks.verdicts import Verdict, broken_by_leaving_out, checkable
from agent.staging.history import FileChange, History
from agent.staging.landed import judge, unsent, with_landing
from agent.staging.landing import Ground, Landing, land
from agent.staging.proposal import Proposal, ProposedChange
from agent.staging.review import HunkReport, Review
from agent.staging.walk import review_of
from agent.trace import append_review
from editing.disk.workdir import Workdir
from surehand.terminal.review import walk
from surehand.terminal.screen import Terminal

ACCEPT_ROUNDS = 3  # times the files may change under the question before giving up

Confirm = Literal["always", "never", "when moved"]


class CheckAccepted:
    """Runs the proposal's tests on a part of it (``Session.check_accepted``), by a setting
    at once or when the person asks."""

    def __init__(
        self,
        check: Callable[..., Awaitable[tuple[Verdict, ...]]],
        *,
        ask_first: bool,
    ) -> None:
        self.check = check
        self.ask_first = ask_first

    async def __call__(
        self,
        proposal: Proposal,
        texts: Mapping[str, str | None],
        rejected: int,
        total: int,
        terminal: Terminal,
    ) -> bool:
        """Check what was accepted; whether to go on and write it (asked when tests fail
        there that the whole proposal passes)."""
        argvs = checkable(proposal.tests)
        if not argvs or not rejected:
            return True
        if self.ask_first:
            answer = await terminal.ask(
                f"You rejected {rejected} of {total} hunks. Run the tests on what you "
                "accepted first (sandboxed, nothing is written)? [y/N]"
            )
            if answer not in ("y", "yes"):
                return True
        verdicts = await self.check(
            argvs, texts, rejected=rejected, hunks=total, on_event=terminal.event
        )
        terminal.say("Tests on what you accepted:", style="bold")
        terminal.tests(verdicts)
        if not broken_by_leaving_out(proposal.tests, verdicts):
            return True
        answer = await terminal.ask(
            "Tests fail on what you accepted that pass on the whole proposal. Write it "
            "anyway? [y/N]"
        )
        return answer in ("y", "yes")


async def offer(
    proposal: Proposal,
    root: Path,
    terminal: Terminal,
    *,
    assume_yes: bool,
    task: str = "",
    check: CheckAccepted | None = None,
) -> int:
    """Show the proposal, and write what the person accepts onto the files as they are
    then (exit code 0), or nothing (1).

    On a terminal the person decides hunk by hunk; with ``--yes`` or piped
    answers, on the whole (files that change how tools run asked on their
    own). Every file is read again after the answers: what was accepted is
    landed (rebased) onto what is there, and where that is not what was
    shown, what will be written is shown and asked about; if a file changed
    while a question was open, it is asked again about the new text.
    Nothing is written over a change that was not shown. ``task`` is the
    task's words, for the record of what was written (``surehand undo``).
    The tests' verdict on the proposal is shown first; when the person left
    some hunks out, ``check`` runs them on what was accepted before the write.
    """
    if proposal.incomplete:
        terminal.say(f"The task stopped before the model finished ({proposal.incomplete}).")
        if proposal.changes:
            terminal.say("These are the changes staged so far, incomplete:")
    if proposal.changes and proposal.tests:
        terminal.say("Tests on the proposed change:", style="bold")
        terminal.tests(proposal.tests)
    if proposal.changes and not assume_yes and terminal.interactive:
        review = await walk(proposal, terminal)
        chosen, left = review.chosen()
        rejected = sum(1 for item in review.items if not item.accepted)
        if check is not None and chosen.changes:
            texts = chosen.writes()
            if not await check(proposal, texts, rejected, len(review.items), terminal):
                _report(terminal, review_of(proposal, []), proposal)
                terminal.say("Nothing was written.")
                return 1
        return await _land(
            proposal, chosen, root, terminal, task=task, confirm="when moved", rejected_hunks=left
        )
    terminal.proposal(proposal)
    if not proposal.changes:
        return 0
    chosen = await _governing_alone(proposal, terminal, assume_yes=assume_yes)
    confirm: Confirm = "never" if assume_yes else "always"
    return await _land(proposal, chosen, root, terminal, task=task, confirm=confirm)


async def _land(
    offered: Proposal,
    chosen: Proposal,
    root: Path,
    terminal: Terminal,
    *,
    task: str,
    confirm: Confirm,
    rejected_hunks: dict[str, tuple[HunkReport, ...]] | None = None,
) -> int:
    """Land what was ``chosen`` of the ``offered`` proposal, write it and report it.

    ``confirm`` says when the person is asked before the write: ``always``
    (the whole proposal was shown, the question is the decision), ``never``
    (``--yes``), or ``when moved``: the walk showed the texts the agent read,
    so only where what will be written differs from them (a file rebased on
    the person's change, or one that changed while a question was open).
    ``rejected_hunks`` are a file's hunks the walk left out, for its report.
    """
    left = rejected_hunks or {}
    if not chosen.changes:
        _report(terminal, review_of(offered, []), offered)
        terminal.say("Nothing was written.")
        return 1
    workdir = Workdir(root)
    moved: list[str] = []
    for _ in range(ACCEPT_ROUNDS):
        seen = _read_all(workdir, chosen)
        landed, landings = land(chosen, seen.get)
        _show_landing(terminal, landed, landings)
        if not landed.changes:
            reports = [unsent(c, g) for c, g in zip(chosen.changes, landings, strict=True)]
            _report(terminal, review_of(offered, reports, left), offered)
            terminal.say("Nothing was written.")
            return 1
        rebased = any(g.ground == Ground.REBASED for g in landings)
        if confirm == "always" or (confirm == "when moved" and (rebased or moved)):
            answer = await terminal.ask("Apply these changes to your files? [y/N]")
            if answer not in ("y", "yes"):
                _report(terminal, review_of(offered, []), offered)
                terminal.say("Nothing was written.")
                return 1
        moved = [p for p, text in _read_all(workdir, chosen).items() if text != seen[p]]
        if moved:
            terminal.say(
                f"{', '.join(moved)} changed while you were deciding; here is the proposal "
                "against the files as they are now."
            )
            continue
        workdir.write(landed.writes())
        _record(root, task, landed, terminal)
        written = {c.path: c for c in landed.changes}
        reports = [
            with_landing(judge(written[c.path], workdir.read), landing)
            if c.path in written
            else unsent(c, landing)
            for c, landing in zip(chosen.changes, landings, strict=True)
        ]
        _report(terminal, review_of(offered, reports, left), offered)
        terminal.say(f"Wrote {len(landed.changes)} file(s).")
        return 0
    terminal.say("The files kept changing; nothing was written.")
    return 1


def _record(root: Path, task: str, landed: Proposal, terminal: Terminal) -> None:
    """Keep what was just written (each landed change: the text it was landed onto, the
    text written), for ``surehand undo``."""
    files = [FileChange(c.path, c.before, c.after, c.source) for c in landed.changes]
    try:
        kept = History.of(root).record(task, files, front="terminal")
    except OSError as error:
        terminal.say(f"warning: not recorded for surehand undo: {error}", style="yellow")
        return
    if files and kept is None:
        terminal.say("This task is too large to keep for surehand undo.", style="yellow")


async def _governing_alone(proposal: Proposal, terminal: Terminal, *, assume_yes: bool) -> Proposal:
    """The proposal less the files that change how tools run (``agent.staging.governing``) the
    person did not accept one by one.

    Each is asked about on its own, before the rest, and only a typed "yes"
    takes it: they are never inside the one answer for all (nor in ``--yes``).
    """
    kept: list[ProposedChange] = []
    for change in proposal.changes:
        if change.governs is None:
            kept.append(change)
        elif assume_yes:
            terminal.say(
                f"{change.path} left out: it changes how tools run, and --yes does not accept "
                "such a file; run without --yes to accept it on its own."
            )
        else:
            terminal.governs(change.path, change.governs)
            answer = await terminal.ask(f"Accept the change to {change.path} on its own? [yes/N]")
            if answer == "yes":
                kept.append(change)
    return replace(proposal, changes=tuple(kept))


def _read_all(workdir: Workdir, proposal: Proposal) -> dict[str, str | None]:
    """The text now of every path the proposal touches (None: no such file)."""
    paths = [p for c in proposal.changes for p in (c.path, c.source) if p is not None]
    return {path: workdir.read(path) for path in paths}


def _show_landing(terminal: Terminal, landed: Proposal, landings: list[Landing]) -> None:
    """What moved under the proposal, and then what will be written where it did."""
    by_path = {c.path: c for c in landed.changes}
    for landing in landings:
        if landing.ground == Ground.REBASED and landing.path in by_path:
            terminal.say(
                f"{landing.path} changed since the agent read it; the changes are rebased "
                "onto it. What will be written:"
            )
            terminal.diff(by_path[landing.path].diff())
        for conflict in landing.conflicts:
            terminal.say(
                f"{landing.path}:{conflict.line}: left out, in conflict with your change "
                f"({conflict.label})."
            )
        if landing.why:
            terminal.say(f"{landing.path}: left alone, {landing.why}.")


def _report(terminal: Terminal, review: Review, proposal: Proposal) -> None:
    """The outcome in surehand's words, and in the trace."""
    review.incomplete = proposal.incomplete
    terminal.say(f"{review.headline()}. {review.summary()}")
    if proposal.trace is not None:
        append_review(proposal.trace, review.verdict.value, review.as_json())
