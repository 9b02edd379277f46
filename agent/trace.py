"""A JSONL trace of every task, written after every step.

One line per event: the task, each step (the model's turn as it came, each
tool call with its arguments, outcome, result size and latency, the tokens
and model latency), and last how the task ended. Flushed as it goes, so a
crash still leaves the steps so far. A trace can be replayed as the model
(``ScriptedModel.from_trace``).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from .conversation import ModelTurn, Usage


@dataclass(frozen=True)
class ToolRecord:
    name: str
    arguments: str
    ok: bool
    result_chars: int
    tool_ms: float
    summary: str
    reason: str | None = None  # a failed call's reason code


class Trace:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._file: TextIO | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("a", encoding="utf-8")

    @classmethod
    def new(cls, directory: str | Path | None) -> Trace:
        if not directory:
            return cls(None)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        return cls(Path(directory) / f"task-{stamp}-{time.time_ns() % 1_000_000:06d}.jsonl")

    def task(self, task: str, model: str, root: str) -> None:
        self._write(
            {"type": "task", "task": task, "model": model, "root": root, "time": time.time()}
        )

    def step(self, step: int, turn: ModelTurn, model_ms: float, tools: list[ToolRecord]) -> None:
        self._write(
            {
                "type": "step",
                "step": step,
                "model": {
                    "content": turn.content,
                    "tool_calls": [
                        {"id": c.id, "name": c.name, "arguments": c.arguments}
                        for c in turn.tool_calls
                    ],
                },
                "tokens": asdict(turn.usage),
                "model_ms": round(model_ms, 1),
                "tools": [asdict(t) for t in tools],
            }
        )

    def end(
        self,
        ending: str,
        message: str,
        usage: Usage,
        steps: int,
        refusals: list[dict[str, Any]] | None = None,
    ) -> None:
        self._write(
            {
                "type": "end",
                "ending": ending,
                "message": message,
                "steps": steps,
                "tokens": asdict(usage),
                "refusals": refusals or [],
            }
        )

    def review(self, verdict: str, files: list[dict[str, Any]]) -> None:
        """What became of the proposal, per file and per hunk (after the task's end)."""
        if self.path is not None:
            append_review(self.path, verdict, files)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _write(self, entry: dict[str, Any]) -> None:
        if self._file is None:
            return
        self._file.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._file.flush()


def append_review(path: Path, verdict: str, files: list[dict[str, Any]]) -> None:
    """Add what became of the task's proposal to its (closed) trace."""
    entry = {"type": "review", "outcome": verdict, "files": files}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, ensure_ascii=False) + "\n")


def read_trace(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
