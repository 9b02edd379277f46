"""The proposal put to the person hunk by hunk, through ``session/request_permission``.

The items are the session's plan (one entry each, completed once
decided). Each item of the proposal (a hunk of an edited file, or a whole new,
deleted or moved file: ``surehand.terminal.review.Walk``) is one ``tool_call``
of kind ``edit`` whose ``diff`` content is the file before and after that
hunk alone, at the hunk's line, then one permission request: accept it,
reject it, or accept or reject the rest of its file. A file that changes
how tools run is offered only accept and reject, hunk by hunk. Nothing is
written here: the decisions are ``Walk.chosen``'s to land.

An answer that comes sooner than a person could read the question is
counted: when every answer did, the outcome says that the client may
answer by itself (an "always allow" setting) and what was accepted so.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from acp import plan_entry, start_tool_call, tool_diff_content, update_plan, update_tool_call
from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallLocation,
    ToolCallUpdate,
)

from agent.staging.hunks import apply, line_of
from agent.staging.landed import operation_of
from agent.staging.proposal import Proposal
from agent.staging.walk import Item, Walk
from editing.visible import visible

TOO_QUICK = 0.2  # seconds: an answer sooner than this was not a person's
# Each option's id is its kind: some clients (avante) read the id, not the kind.
ACCEPT, REJECT, ACCEPT_REST, REJECT_REST = (
    "allow_once",
    "reject_once",
    "allow_always",
    "reject_always",
)
KEYS = {ACCEPT: "y", REJECT: "n", ACCEPT_REST: "a", REJECT_REST: "d"}

Send = Callable[[Any], None]
Ask = Callable[[ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]]


class ReviewCancelled(Exception):
    """The client answered ``cancelled``: the prompt turn was cancelled."""


@dataclass
class Questions:
    """The questions of one proposal, and how quickly they were answered."""

    root: Path
    send: Send
    ask: Ask
    quick: list[Item] = field(default_factory=list)  # items answered sooner than TOO_QUICK
    asked: int = 0

    async def walk(self, proposal: Proposal) -> Walk:
        """Ask about every item still undecided, in order; the decisions."""
        walk = Walk.of(proposal)
        total = len(walk.items)
        self._plan(walk)
        for index, item in enumerate(walk.items):
            call_id = f"review-{index + 1}"
            start = self._tool_call(call_id, item, index, total)
            self.send(start)
            if item.accepted is not None:  # decided with the rest of its file
                self._settled(index, item)
                continue
            began = time.monotonic()
            # The request carries the call whole (kind, diff, place): some clients show only it.
            about = ToolCallUpdate(
                tool_call_id=call_id,
                title=start.title,
                kind="edit",
                status="pending",
                content=start.content,
                locations=start.locations,
            )
            answer = await self.ask(about, _options(item))
            self.asked += 1
            if time.monotonic() - began < TOO_QUICK:
                self.quick.append(item)
            chosen = answer.outcome
            if not isinstance(chosen, AllowedOutcome):
                raise ReviewCancelled
            key = KEYS.get(chosen.option_id, "n")
            walk.decide(index, key)
            self._settled(index, item)
            self._plan(walk)
        return walk

    def _plan(self, walk: Walk) -> None:
        """The review's agenda as the session's plan: one entry per item, done once decided."""
        state = {None: "Review", True: "Accepted", False: "Rejected"}
        entries = [
            plan_entry(
                f"{state[item.accepted]}: {visible(item.change.path)}: {visible(item.label)}",
                status="pending" if item.accepted is None else "completed",
            )
            for item in walk.items
        ]
        self.send(update_plan(entries))

    def _title(self, item: Item, index: int, total: int) -> str:
        change = item.change
        where = f"{index + 1} of {total}"
        operation = operation_of(change)
        if operation == "edit":
            what = f"{visible(change.path)}: {visible(item.label)}"
        elif operation == "rename":
            what = f"move {visible(change.source or '')} to {visible(change.path)}"
        else:
            what = f"{operation} {visible(change.path)}"
        title = f"surehand proposes ({where}): {what}"
        if item.governs:
            title += f" [changes how tools run: {visible(item.governs)}; accepted only on its own]"
        return title

    def _tool_call(self, call_id: str, item: Item, index: int, total: int) -> Any:
        change = item.change
        path = str(self.root / change.path)
        before = change.before or ""
        line = 0
        old: str | None
        if item.hunk is not None:
            old, new = before, apply(before, [item.hunk])
            line = line_of(before, item.hunk.start) - 1
        elif change.after is None:  # deleted: the diff shows its text going
            old, new = before, ""
        else:
            old, new = change.before, change.after or ""
        return start_tool_call(
            call_id,
            self._title(item, index, total),
            kind="edit",
            status="pending",
            content=[tool_diff_content(path, new, old)],
            locations=[ToolCallLocation(path=path, line=line)],
            raw_input={"path": visible(change.path), "label": visible(item.label)},
        )

    def _settled(self, index: int, item: Item) -> None:
        """The item's tool call, decided (not yet written: the landing says what was)."""
        status: Literal["completed", "failed"] = "completed" if item.accepted else "failed"
        title = f"{'accepted' if item.accepted else 'rejected'}: {visible(item.label)}"
        self.send(update_tool_call(f"review-{index + 1}", status=status, title=title))


def _options(item: Item) -> list[PermissionOption]:
    options = [
        PermissionOption(option_id=ACCEPT, name="Accept this change", kind="allow_once"),
        PermissionOption(option_id=REJECT, name="Reject this change", kind="reject_once"),
    ]
    if item.hunk is not None and not item.governs:
        options += [
            PermissionOption(
                option_id=ACCEPT_REST, name="Accept the rest of this file", kind="allow_always"
            ),
            PermissionOption(
                option_id=REJECT_REST, name="Reject the rest of this file", kind="reject_always"
            ),
        ]
    return options
