"""``run_command``: run a test or read-only command in the shadow copy.

A command on the allowlist runs at once; any other is put to the user
(``ctx.approve``), who allows it once, always (that exact argv, for the
session) or declines. The model gets the command as it ran, its output and
how it ended; a timeout never exceeds the configured one.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from ..commands import is_allowed, parse_command
from ..workspace import ToolError
from .base import ToolResult, load_spec
from .context import Approval, CommandResult, ToolContext

SUMMARY_CHARS = 60


class CommandDeclined(ToolError):
    reason = "declined"


class CommandsUnavailable(ToolError):
    reason = "no_runner"


class RunCommand:
    spec = load_spec("run_command")

    def describe(self, args: dict[str, Any]) -> str:
        return f"Running {_clip(' '.join(str(args['command']).split()), 40)}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        argv = parse_command(args["command"])
        if ctx.runner is None:
            raise CommandsUnavailable(
                "Commands cannot run here (there is no workspace copy to run them in); "
                "continue without running it."
            )
        shown = shlex.join(argv)
        allowed = is_allowed(argv, ctx.settings.command_allowlist)
        if not allowed and tuple(argv) not in ctx.always_allowed:
            decision = await ctx.approve(argv)
            if decision is Approval.DENY:
                raise CommandDeclined(
                    f"The user declined to run `{shown}`. Continue without it, or ask the "
                    "user to run it and tell you the result."
                )
            if decision is Approval.ALWAYS:
                ctx.always_allowed.add(tuple(argv))
        limit = ctx.settings.command_timeout
        requested = args.get("timeout")
        timeout = float(min(requested, limit)) if requested and requested > 0 else limit
        result = await ctx.runner.run(argv, timeout, ctx.settings)
        return ToolResult(
            _text(shown, result, timeout),
            summary=_summary(argv, result),
            succeeded=result.exit_code == 0,
        )


def _text(shown: str, result: CommandResult, timeout: float) -> str:
    lines = [f"$ {shown}"]
    if result.output.strip():
        lines.append(result.output.rstrip())
    if result.exit_code is None:
        lines.append(f"[stopped after {timeout:g} s: timeout]")
    elif result.exit_code < 0:
        lines.append(f"[killed by signal {-result.exit_code}]")
    else:
        lines.append(f"[exit code {result.exit_code}]")
    return "\n".join(lines)


def _summary(argv: list[str], result: CommandResult) -> str:
    """The program's name and its last line of output ("pytest: 12 passed in 0.2s")."""
    name = Path(argv[0]).name
    if result.exit_code is None:
        return f"{name}: timed out"
    lines = (line.strip(" \t=") for line in reversed(result.output.splitlines()))
    last = next((line for line in lines if line), "")
    return (
        f"{name}: {_clip(last, SUMMARY_CHARS)}" if last else f"{name}: exit code {result.exit_code}"
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


TOOL = RunCommand()
