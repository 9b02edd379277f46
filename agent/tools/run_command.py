"""``run_command``: run a test or read-only command in the shadow copy.

In a sandbox, a command on the allowlist runs at once (unless an option
makes a read-only command write: ``git diff --output``); any other is put
to the user (``ctx.approve``), who allows it once, always (that exact
argv, for the session) or declines. Without a sandbox every command is put
to the user, once at a time, and the question says it runs unsandboxed;
a read-only command whose arguments lead out of the workspace is refused.
The model gets the command as it ran, its output and how it ended; a
timeout never exceeds the configured one.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from agent.config.command_line import is_allowed, parse_command
from agent.execution.command_guard import paths_outside, writing_option
from agent.execution.command_layout import resource_limits
from agent.execution.command_result import CommandResult
from agent.execution.sandbox import Sandbox
from agent.staging.workspace import ToolError
from agent.tools import messages
from agent.tools.base import ToolResult, load_spec
from agent.tools.context import Approval, CommandRequest, ToolContext

SUMMARY_CHARS = 60


class CommandDeclined(ToolError):
    reason = "declined"


class CommandsUnavailable(ToolError):
    reason = "no_runner"


class OutsideWorkspace(ToolError):
    reason = "outside_workspace"


class RunCommand:
    spec = load_spec("run_command")
    limits_its_own_time = True  # the command timeout; asking the user has no limit

    def describe(self, args: dict[str, Any]) -> str:
        return f"Running {_clip(' '.join(str(args['command']).split()), 40)}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        argv = parse_command(args["command"])
        if ctx.runner is None:
            raise CommandsUnavailable(messages.NO_RUNNER)
        shown = shlex.join(argv)
        sandbox = ctx.runner.sandbox(ctx.settings)
        why = why_ask(argv, ctx, sandbox)
        if why is not None and tuple(argv) not in ctx.always_allowed:
            containment = sandbox.describe(
                ctx.settings.sandbox_network, resource_limits(ctx.settings)
            )
            request = CommandRequest(argv, why, sandbox.contained, containment)
            decision = await ctx.approve(request)
            if decision is Approval.DENY:
                raise CommandDeclined(messages.DECLINED.format(command=shown))
            if decision is Approval.ALWAYS and request.may_always:
                ctx.always_allowed.add(tuple(argv))
        limit = ctx.settings.command_timeout
        requested = args.get("timeout")
        timeout = float(min(requested, limit)) if requested and requested > 0 else limit
        result = await ctx.runner.run(argv, timeout, ctx.settings)
        ctx.on_command(ctx, argv, result)
        return ToolResult(
            _text(shown, result, timeout),
            summary=_summary(argv, result),
            succeeded=result.exit_code == 0,
        )


def why_ask(argv: list[str], ctx: ToolContext, sandbox: Sandbox) -> str | None:
    """Why the user must be asked before ``argv`` runs; None when it may run at once.

    Raises ``OutsideWorkspace`` for a read-only command that, unsandboxed,
    would read outside the workspace.
    """
    if not sandbox.contained:
        outside = paths_outside(argv, ctx.overlay.root, [])
        if outside:
            command = shlex.join(argv)
            raise OutsideWorkspace(messages.READS_OUTSIDE.format(command=command, path=outside[0]))
        return f"there is no sandbox: {sandbox.why}"
    if not is_allowed(argv, ctx.settings.command_allowlist):
        return "it is not on the allowlist"
    writes = writing_option(argv)
    if writes is not None:
        return f"{writes} makes it write a file"
    return None


def _text(shown: str, result: CommandResult, timeout: float) -> str:
    lines = [messages.COMMAND_LINE.format(command=shown)]
    if result.output.strip():
        lines.append(result.output.rstrip())
    if result.exit_code is None:
        lines.append(messages.COMMAND_TIMED_OUT.format(timeout=timeout))
    elif result.exit_code < 0:
        lines.append(messages.COMMAND_KILLED.format(signal=-result.exit_code))
    else:
        lines.append(messages.COMMAND_EXITED.format(code=result.exit_code))
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
