"""Commands waiting for the user's yes in the non-modal review, shown like a hunk.

Each is a future the task awaits; the ``surehand.review.accept`` /
``.reject`` commands (the diagnostic's code actions) answer it. Cancelling
the task while it waits cancels the wait; ending the review denies them.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.tools.context import Approval as Verdict
from agent.tools.context import CommandRequest
from editing.visible import visible

from .code_actions import Approval

_ids = itertools.count(1)


@dataclass
class Waiting:
    approval: Approval
    path: str  # the file it is shown on
    answer: asyncio.Future[Verdict]
    line: int = 0  # the line (0-based) it is shown at: the task's cursor or range
    question: str = ""  # the question, made visible (``editing.visible``)


@dataclass
class Approvals:
    waiting: dict[str, Waiting] = field(default_factory=dict)

    async def wait(
        self,
        request: CommandRequest,
        path: str,
        shown: Callable[[], None],
        line: int = 0,
        told: Callable[[Waiting], None] | None = None,
    ) -> Verdict:
        """The user's answer to ``request``; ``shown`` republishes as it comes and goes,
        ``told`` says once that it waits (``window/showMessage``)."""
        approval = Approval(f"a{next(_ids)}", request.command, request.may_always)
        waiting = Waiting(
            approval,
            path,
            asyncio.get_running_loop().create_future(),
            line,
            visible(request.question()),
        )
        self.waiting[approval.id] = waiting
        shown()
        if told is not None:
            told(waiting)
        try:
            return await waiting.answer
        finally:
            self.waiting.pop(approval.id, None)
            shown()

    def find(self, argument: dict[str, Any], *, only_these: bool) -> Waiting | None:
        """The approval ``argument`` names by ``id`` (or the only one, when nothing
        else is open)."""
        item_id = argument.get("id")
        if item_id is None:
            return (
                next(iter(self.waiting.values())) if only_these and len(self.waiting) == 1 else None
            )
        return self.waiting.get(str(item_id))

    def answer(self, waiting: Waiting, verdict: Verdict) -> dict[str, Any]:
        if not waiting.answer.done():
            waiting.answer.set_result(verdict)
        return {"id": waiting.approval.id, "answer": verdict.value}

    def deny_all(self) -> None:
        for waiting in list(self.waiting.values()):
            if not waiting.answer.done():
                waiting.answer.set_result(Verdict.DENY)

    def __iter__(self):
        return iter(list(self.waiting.values()))
