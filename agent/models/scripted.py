"""A model that replays a script: for tests, the demo, and recorded traces.

It implements the same ``ModelClient`` interface as the real adapter and
streams its text in small pieces, so callers see what they would see from a
real endpoint. A script is a list of turns; as JSON::

    [{"label": "look first", "say": "Let me read it.",
      "call": [{"tool": "view_file", "args": {"path": "a.py", ...}}]},
     {"call": [{"tool": "finish", "args": {"summary": "..."}}]}]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.conversation import Message, ModelTurn, ToolCall, Usage
from agent.models.model import Delta, OnDelta, ScriptExhausted, ToolSpec
from agent.trace import read_trace

PIECE = 12  # characters per streamed text piece


@dataclass(frozen=True)
class ScriptTurn:
    content: str = ""
    calls: tuple[tuple[str, dict[str, Any] | str], ...] = ()
    label: str = ""


@dataclass
class ScriptedModel:
    turns: list[ScriptTurn]
    on_turn: Callable[[int, ScriptTurn], None] | None = None
    requests: list[list[Message]] = field(default_factory=list)
    _next: int = 0

    @classmethod
    def from_json(cls, data: list[dict[str, Any]] | str | Path) -> ScriptedModel:
        entries: list[dict[str, Any]] = (
            json.loads(Path(data).read_text(encoding="utf-8"))
            if isinstance(data, str | Path)
            else data
        )
        turns = [
            ScriptTurn(
                entry.get("say", ""),
                tuple((c["tool"], c.get("args", {})) for c in entry.get("call", [])),
                entry.get("label", ""),
            )
            for entry in entries
        ]
        return cls(turns)

    @classmethod
    def from_trace(cls, path: Path) -> ScriptedModel:
        """The model's turns of a recorded trace, replayed in order."""
        turns = [
            ScriptTurn(
                entry["model"]["content"],
                tuple((c["name"], c["arguments"]) for c in entry["model"]["tool_calls"]),
            )
            for entry in read_trace(path)
            if entry["type"] == "step"
        ]
        return cls(turns)

    async def close(self) -> None:
        """Nothing to release."""

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], on_delta: OnDelta | None
    ) -> ModelTurn:
        self.requests.append(list(messages))
        if self._next >= len(self.turns):
            raise ScriptExhausted(
                f"The script has no turn {self._next + 1}: it ends after {len(self.turns)}."
            )
        turn = self.turns[self._next]
        self._next += 1
        if self.on_turn:
            self.on_turn(self._next, turn)
        if on_delta:
            for start in range(0, len(turn.content), PIECE):
                on_delta(Delta(text=turn.content[start : start + PIECE]))
        calls = tuple(
            ToolCall(
                f"call_{self._next}_{index}",
                name,
                arguments if isinstance(arguments, str) else json.dumps(arguments),
            )
            for index, (name, arguments) in enumerate(turn.calls)
        )
        return ModelTurn(turn.content, calls, Usage())
