"""What a command that ran left: its exit code and its output, as the model reads them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CommandResult:
    argv: list[str]
    exit_code: int | None  # None when it was stopped at the timeout
    output: str  # stdout and stderr interleaved, already truncated
    seconds: float
