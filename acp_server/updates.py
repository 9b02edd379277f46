"""A running task's events (``agent.events``) as ACP ``session/update`` notifications.

The model's words stream as ``agent_message_chunk``, its reasoning as
``agent_thought_chunk`` (control and bidi characters shown as escapes, as
everything the model chose: a client may print them to a terminal); each
tool call is a ``tool_call`` with its kind (``read``, ``search``, ``edit``,
``execute``, ``think``) and the file it is on as a location (inside the
workspace only), so the editor can follow along, then a
``tool_call_update`` with how it ended. surehand's own test runs are
``execute`` tool calls too. Staged edits are ``edit`` calls whose result
is "staged": nothing is written before the review.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
)
from acp.schema import ToolCallLocation

from agent.events import (
    CheckFinished,
    CheckStarted,
    Event,
    ModelText,
    ModelThinking,
    ToolFinished,
    ToolStarted,
)
from editing.visible import visible, visible_lines

KINDS = {
    "view_file": "read",
    "list_files": "search",
    "grep": "search",
    "edit": "edit",
    "multi_edit": "edit",
    "apply_patch": "edit",
    "create_file": "edit",
    "delete_file": "delete",
    "run_command": "execute",
    "finish": "think",
}

Send = Callable[[Any], None]


class Updates:
    """Turns one task's events into updates and hands them to ``send``."""

    def __init__(self, root: Path, send: Send) -> None:
        self.root = root
        self.send = send
        self._calls = 0
        self._open: dict[str, str] = {}  # a tool call's id by the model's call id

    def __call__(self, event: Event) -> None:
        if isinstance(event, ModelText):  # hidden characters escaped: a client may be a terminal
            self.send(update_agent_message_text(visible_lines(event.text)))
        elif isinstance(event, ModelThinking):
            self.send(update_agent_thought_text(visible_lines(event.text)))
        elif isinstance(event, ToolStarted):
            self._started(event)
        elif isinstance(event, ToolFinished):
            call_id = self._open.pop(event.call.id, None)
            if call_id is not None:
                status = _status(event.ok and event.succeeded)
                text = visible(event.summary)
                content = [tool_content(text_block(text))]
                self.send(update_tool_call(call_id, status=status, content=content))
        elif isinstance(event, CheckStarted):
            self._calls += 1
            self._open[f"check-{event.command}"] = call_id = f"check-{self._calls}"
            on = "the proposed change" if event.on == "proposal" else "what you accepted"
            title = f"Run the tests on {on}: {visible(event.command)} (sandboxed)"
            self.send(start_tool_call(call_id, title, kind="execute", status="in_progress"))
        elif isinstance(event, CheckFinished):
            call_id = self._open.pop(f"check-{event.command}", None)
            if call_id is not None:
                status = _status(event.status == "passed")
                content = [tool_content(text_block(visible(event.result)))]
                self.send(update_tool_call(call_id, status=status, content=content))

    def _started(self, event: ToolStarted) -> None:
        self._calls += 1
        call_id = f"call-{self._calls}"
        self._open[event.call.id] = call_id
        kind = KINDS.get(event.call.name, "other")
        locations = None
        path = _path_of(event.call.arguments)
        target = (self.root / path).resolve() if path is not None else None
        if target is not None and target.is_relative_to(self.root):  # never a path outside
            locations = [ToolCallLocation(path=str(target))]
        title = visible(event.summary)
        if kind == "edit":
            title += " (staged, not written)"
        self.send(
            start_tool_call(
                call_id,
                title,
                kind=kind,  # type: ignore[arg-type]
                status="in_progress",
                locations=locations,
            )
        )


def _status(ok: bool) -> Literal["completed", "failed"]:
    return "completed" if ok else "failed"


def _arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return {"unparsed": text}


def _path_of(arguments: str) -> str | None:
    value = _arguments(arguments)
    path = value.get("path") if isinstance(value, dict) else None
    return path if isinstance(path, str) and path and "\x00" not in path else None
