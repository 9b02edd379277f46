"""What a tool may use while it runs."""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from agent.config.settings import Settings
from agent.execution.command_result import CommandResult
from agent.execution.sandbox import Sandbox
from agent.staging.views import Views
from agent.staging.workspace import Overlay
from editing.visible import visible


class Approval(Enum):
    ONCE = "once"
    ALWAYS = "always"
    DENY = "deny"


@dataclass(frozen=True)
class CommandRequest:
    """A command put to the user: what would run, why it is asked, and how contained."""

    argv: list[str]
    why: str  # "it is not on the allowlist", "there is no sandbox: ..."
    sandboxed: bool
    containment: str  # the sandbox's own words: what the command could do

    @property
    def command(self) -> str:
        return shlex.join(self.argv)

    @property
    def shown(self) -> str:
        """The command as a person reads it: every hidden character escaped
        (``editing.visible``), a line break too, so it reads as the one command it is."""
        return visible(self.command)

    @property
    def may_always(self) -> bool:
        """Whether "always allow" is offered: only inside a sandbox (the staged code changes)."""
        return self.sandboxed

    def question(self) -> str:
        return (
            f"surehand wants to run `{self.shown}` ({self.why}). It would run in a copy "
            f"of the workspace, {self.containment}."
        )


Approve = Callable[[CommandRequest], Awaitable[Approval]]
"""Asks the user whether a command may run."""


class CommandRunner(Protocol):
    def sandbox(self, settings: Settings) -> Sandbox:
        """The sandbox the next command runs in."""
        ...

    async def run(
        self,
        argv: list[str],
        timeout: float,
        settings: Settings,
        texts: Mapping[str, str | None] | None = None,
    ) -> CommandResult:
        """Run ``argv`` in the shadow copy with the staged changes in it (or, given
        ``texts``, with those over the disk's files instead: a part of the proposal).

        ``settings`` are the session's current ones (output cap, the key's
        variable to keep out of the environment): they may change between
        commands."""
        ...

    def close(self) -> None:
        """Remove the shadow copy."""
        ...


async def deny_all(request: CommandRequest) -> Approval:
    return Approval.DENY


def unheard(ctx: ToolContext, argv: list[str], result: CommandResult) -> None:
    """A command's end, told to no one."""


@dataclass
class ToolContext:
    overlay: Overlay
    settings: Settings
    views: Views = field(default_factory=Views)
    runner: CommandRunner | None = None
    approve: Approve = deny_all
    always_allowed: set[tuple[str, ...]] = field(default_factory=set)
    # Told of every command that ran, with its result (the session keeps the tests' runs),
    # and of the context: a callback that kept it would tie the session in a cycle.
    on_command: Callable[[ToolContext, list[str], CommandResult], None] = unheard
