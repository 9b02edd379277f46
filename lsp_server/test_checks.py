"""The tests' verdict in the editor: ``surehand/tests``, messages, a check of what was accepted.

The proposal's verdict (``agent.checks.verdicts``) goes to a client that takes
surehand's notifications as ``surehand/tests`` right before the proposal,
so its own review shows it; any other client gets it as one
``window/showMessage``. After a review in which the person left some hunks
out, the same commands run on what the editor holds now (the accepted
hunks, unsaved) in the shadow copy, and the verdict is told the same way
before anything is saved; with ``testsOnAccepted: "offer"`` the person
starts that check (``surehand.checkTests``). Wire shapes: docs/protocol.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from agent.checks.verdicts import Status, Verdict, checkable, for_model, headline, summary
from agent.staging.review import Review
from agent.staging.review import Verdict as Outcome
from editing.visible import visible_lines

from .capabilities import ClientAbilities

if TYPE_CHECKING:
    from agent.loop.session import Session
    from agent.staging.proposal import Proposal

TESTS = "surehand/tests"
CHECK_TESTS = "surehand.checkTests"
_BAD = (Status.FAILED, Status.ERROR)


class TestChecks:
    """Tells the verdicts, and checks what was accepted; one per server."""

    __test__ = False

    def __init__(self, server: LanguageServer, abilities: Callable[[], ClientAbilities]) -> None:
        self.server = server
        self.abilities = abilities
        # The last proposal's commands and what the review left out, for ``surehand.checkTests``.
        self._argvs: list[tuple[str, ...]] = []
        self._left_out = (0, 0)

    def proposed(self, task: str, proposal: Proposal) -> None:
        """Tell the proposal's verdict, before the proposal itself."""
        self._argvs = checkable(proposal.tests)
        self._left_out = (0, 0)
        if proposal.tests and proposal.changes:
            self._tell(task, "proposal", "done", proposal.tests)

    @staticmethod
    def wanted(proposal: Proposal, outcome: Review) -> bool:
        """Whether the review left some of a proposal with tests out (and kept some)."""
        return outcome.verdict is Outcome.PARTLY_APPLIED and bool(checkable(proposal.tests))

    async def accepted(
        self, session: Session, task: str, proposal: Proposal, outcome: Review, offer: bool
    ) -> tuple[Verdict, ...]:
        """After a review that left some hunks out: the tests on what was accepted (or the
        offer of it); the verdicts, () when none ran."""
        if not self.wanted(proposal, outcome):
            return ()
        rejected, hunks = outcome.left_out()
        self._left_out = (rejected, hunks)
        if offer:
            self._tell(task, "accepted", "offered", (), rejected=rejected, hunks=hunks)
            return ()
        return await self.check(session, task)

    async def check(self, session: Session, task: str) -> tuple[Verdict, ...]:
        """The last proposal's commands on what the editor holds now, told and returned."""
        rejected, hunks = self._left_out
        self._tell(task, "accepted", "running", (), rejected=rejected, hunks=hunks)
        verdicts = await session.check_accepted(self._argvs, None, rejected=rejected, hunks=hunks)
        self._tell(task, "accepted", "done", verdicts, rejected=rejected, hunks=hunks)
        if verdicts:
            session.tell(for_model((), verdicts))
        return verdicts

    async def command(self, session: Session | None, task: str, idle: bool) -> dict[str, Any]:
        """``surehand.checkTests``."""
        if not idle:
            return _answer((), "A task is running or under review: check the tests once it ends.")
        if session is None or not self._argvs:
            return _answer((), "There is no proposal whose tests to run.")
        verdicts = await self.check(session, task)
        return _answer(verdicts, summary(verdicts))

    def _tell(
        self,
        task: str,
        on: str,
        state: str,
        verdicts: Sequence[Verdict],
        *,
        rejected: int = 0,
        hunks: int = 0,
    ) -> None:
        params = {
            "task": task,
            "on": on,
            "state": state,
            "headline": headline(verdicts),
            "summary": summary(verdicts),
            "verdicts": [v.as_json() for v in verdicts],
            "rejected": rejected,
            "hunks": hunks,
        }
        if self.abilities().notifications:
            self.server.protocol.notify(TESTS, params)
            return
        if state == "running":
            return
        if state == "offered":
            message = (
                f"surehand: you left {rejected} of {hunks} hunks out; run {CHECK_TESTS} to "
                "run the tests on what you accepted (sandboxed, nothing is written)."
            )
        else:
            on_what = "the proposal" if on == "proposal" else "what you accepted"
            message = f"surehand: the tests on {on_what}: {summary(verdicts)}"
        bad = any(v.status in _BAD for v in verdicts)
        self.server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning if bad else types.MessageType.Info,
                message=visible_lines(message),
            )
        )


def as_json(verdicts: Sequence[Verdict]) -> list[dict[str, Any]]:
    return [v.as_json() for v in verdicts]


def _answer(verdicts: Sequence[Verdict], words: str) -> dict[str, Any]:
    return {"verdicts": as_json(verdicts), "headline": headline(verdicts), "summary": words}
