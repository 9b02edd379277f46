"""What a tool may use while it runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from ..settings import Settings
from ..views import Views
from ..workspace import Overlay


class Approval(Enum):
    ONCE = "once"
    ALWAYS = "always"
    DENY = "deny"


Approve = Callable[[list[str]], Awaitable[Approval]]
"""Asks the user whether a command outside the allowlist may run."""


@dataclass(frozen=True)
class CommandResult:
    argv: list[str]
    exit_code: int | None  # None when it was stopped at the timeout
    output: str  # stdout and stderr interleaved, already truncated
    seconds: float


class CommandRunner(Protocol):
    async def run(self, argv: list[str], timeout: float, settings: Settings) -> CommandResult:
        """Run ``argv`` in the shadow copy with the staged changes in it.

        ``settings`` are the session's current ones (output cap, the key's
        variable to keep out of the environment): they may change between
        commands."""
        ...

    def close(self) -> None:
        """Remove the shadow copy."""
        ...


async def deny_all(argv: list[str]) -> Approval:
    return Approval.DENY


@dataclass
class ToolContext:
    overlay: Overlay
    settings: Settings
    views: Views = field(default_factory=Views)
    runner: CommandRunner | None = None
    approve: Approve = deny_all
    always_allowed: set[tuple[str, ...]] = field(default_factory=set)
