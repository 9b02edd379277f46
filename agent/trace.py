"""A JSONL trace of every task, written after every step.

One line per event: the task, each step (the model's turn as it came, each
tool call with its arguments, outcome, result size and latency, the tokens
and model latency), and last how the task ended. Flushed as it goes, so a
crash still leaves the steps so far. A trace can be replayed as the model
(``ScriptedModel.from_trace``).

Bounded: a text field longer than ``MAX_FIELD_CHARS`` is stored in part,
its full size beside it (``arguments`` and ``arguments_chars``), and a
record is held to about ``MAX_RECORD_CHARS``. A new trace prunes its folder
to the newest ``MAX_TRACES`` traces within ``MAX_TRACE_DIR_BYTES`` in all;
the new one, and any written to in the last ``BUSY_SECONDS`` (another
task's, still running), are kept.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from agent.config.settings import MAX_ANSWER_CHARS
from agent.conversation import ModelTurn, Usage

MAX_FIELD_CHARS = MAX_ANSWER_CHARS  # of one text field: a whole model answer fits
MAX_RECORD_CHARS = 3 * MAX_ANSWER_CHARS  # of one line; past it fields are cut shorter
SHORT_FIELD_CHARS = 20_000
MAX_TRACES = 100  # traces kept in the folder, newest first
MAX_TRACE_DIR_BYTES = 200_000_000
BUSY_SECONDS = 3600.0  # a trace written to this recently may be a running task's
TRACE_GLOB = "task-*.jsonl"


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
        prune(Path(directory), keep=MAX_TRACES - 1, max_bytes=MAX_TRACE_DIR_BYTES)
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

    def tests(self, on: str, verdicts: list[dict[str, Any]]) -> None:
        """The tests' verdicts, each with the state (``run.state``) it ran on."""
        self._write({"type": "tests", "on": on, "verdicts": verdicts})

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
        self._file.write(record_line(entry))
        self._file.flush()


def append_review(path: Path, verdict: str, files: list[dict[str, Any]]) -> None:
    """Add what became of the task's proposal to its (closed) trace."""
    entry = {"type": "review", "outcome": verdict, "files": files}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(record_line(entry))


def append_tests(path: Path, on: str, verdicts: list[dict[str, Any]]) -> None:
    """Add the verdicts of a check made after the task's end (on what was accepted)."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(record_line({"type": "tests", "on": on, "verdicts": verdicts}))


def record_line(entry: dict[str, Any]) -> str:
    """``entry`` as one JSONL line of at most about ``MAX_RECORD_CHARS``."""
    line = json.dumps(_bounded(entry, MAX_FIELD_CHARS), ensure_ascii=False)
    if len(line) > MAX_RECORD_CHARS:
        line = json.dumps(_bounded(entry, SHORT_FIELD_CHARS), ensure_ascii=False)
    return line + "\n"


def _bounded(value: Any, limit: int) -> Any:
    """``value`` with every string longer than ``limit`` cut to it; in an object, the
    full size of a field cut is noted beside it (``<key>_chars``)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if isinstance(item, str) and len(item) > limit:
                out[key] = item[:limit]
                out[f"{key}_chars"] = len(item)
            else:
                out[key] = _bounded(item, limit)
        return out
    if isinstance(value, list | tuple):
        return [_bounded(item, limit) for item in value]
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]}[... {len(value) - limit} characters cut]"
    return value


def prune(directory: Path, *, keep: int, max_bytes: int) -> list[Path]:
    """Remove all but the newest ``keep`` traces in ``directory`` that fit in
    ``max_bytes`` together; a trace written to in the last ``BUSY_SECONDS`` stays.
    Returns the traces removed."""
    found: list[tuple[float, int, Path]] = []
    with contextlib.suppress(OSError):
        for path in directory.glob(TRACE_GLOB):
            with contextlib.suppress(OSError):
                stat = path.stat()
                found.append((stat.st_mtime, stat.st_size, path))
    found.sort(key=lambda item: item[0], reverse=True)
    busy_since = time.time() - BUSY_SECONDS
    removed: list[Path] = []
    count = total = 0
    full = False
    for mtime, size, path in found:
        count += 1
        total += size
        full = full or count > keep or total > max_bytes
        if not full or mtime >= busy_since:
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            removed.append(path)
    return removed


def read_trace(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
