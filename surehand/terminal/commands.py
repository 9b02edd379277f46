"""The ``surehand`` command line: the agent's commands and the edit engine's."""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

from agent.config.config_view import show_config
from agent.config.endpoint import resolve_endpoint
from agent.config.flags import (
    add_endpoint_flags,
    effective_from_flags,
    name_flags,
    settings_from_flags,
)
from agent.config.project_root import why_not_a_project
from agent.config.settings import Settings
from agent.execution.command_layout import resource_limits
from agent.execution.sandbox import choose
from agent.execution.shadow_status import shadow_plan
from agent.loop.session import Session
from agent.models.model import ModelError
from agent.models.scripted import ScriptedModel, ScriptTurn
from agent.staging.proposal import Ending, Proposal, RunEnd
from agent.tools.context import Approval, CommandRequest
from editing.disk import cli as editing_cli
from editing.disk.cli import Commands, Handler
from surehand.terminal import eval_tasks, history_cli
from surehand.terminal.accept import CheckAccepted, offer
from surehand.terminal.screen import Terminal

EXIT_INTERRUPTED = 130  # as a shell reports a process ended by Ctrl-C


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="surehand", description="surehand command line")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_commands(commands)
    editing_cli.add_commands(commands)
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    return handler(args)


def add_commands(commands: Commands) -> None:
    run = commands.add_parser(
        "run",
        help="run a task with the configured model and apply it after review",
        description=(
            "Run a task in a workspace with the configured OpenAI-compatible endpoint "
            "(the config files, OPENAI_BASE_URL, OPENAI_API_KEY, SUREHAND_MODEL, or the "
            "flags). Prints each step, shows the proposal as a diff and writes it only "
            "after you say yes. Ctrl-C cancels (exit 130) and writes nothing."
        ),
    )
    run.add_argument("task", help="what to do, in words")
    run.add_argument("--workspace", type=Path, default=Path(), help="project directory")
    run.add_argument("--yes", action="store_true", help="apply the proposal without asking")
    add_endpoint_flags(run)
    run.set_defaults(handler=_run)
    config = commands.add_parser(
        "config",
        help="print the settings in force and where each came from",
        description=(
            "Print the endpoint a task would send to (the openai package's default when "
            "none is set), the model and where the key comes from, then the effective "
            "settings for a workspace (defaults, your config file, the project's "
            ".surehand.toml, the environment and the flags, in that order) and where each "
            "came from. The API key is never shown."
        ),
    )
    config.add_argument("--workspace", type=Path, default=Path(), help="project directory")
    add_endpoint_flags(config)
    config.set_defaults(handler=show_config)
    demo = commands.add_parser(
        "demo",
        help="a scripted session on a small example project",
        description=(
            "Copy a small example project with a failing test to a temporary directory and "
            "run a labelled scripted session on it through the real engine: a refused "
            "ambiguous edit, a drifted edit the engine absorbs, the tests run in the "
            "shadow copy, and the resulting proposal. Needs no model and writes nothing."
        ),
    )
    demo.set_defaults(handler=_demo)
    status = commands.add_parser(
        "status",
        help="say how commands would run here (the sandbox mode)",
        description="Say how the model's commands would run on this machine: in which sandbox "
        "and with what access, or that there is none and every command is asked first.",
    )
    status.add_argument("--workspace", type=Path, default=Path(), help="project directory")
    add_endpoint_flags(status)
    status.set_defaults(handler=_status)
    eval_tasks.add_command(commands)
    history_cli.add_commands(commands)


def _status(args: argparse.Namespace) -> int:
    settings, problems = settings_from_flags(args, args.workspace.resolve())
    for problem in problems:
        print(f"warning: {problem}")
    sandbox = choose(settings.sandbox)
    print(f"sandbox: {sandbox.name}")
    print(f"Commands run {_containment(settings)}.")
    if not sandbox.contained:
        print("Every command is asked first.")
    for line in shadow_plan(args.workspace.resolve(), sandbox).lines():
        print(line)
    return 0


def _run(args: argparse.Namespace) -> int:
    terminal = Terminal()
    if not args.workspace.is_dir():
        terminal.error(f"no such directory: {args.workspace} (--workspace)")
        return 2
    root = args.workspace.resolve()
    if (why := why_not_a_project(root)) is not None:
        terminal.error(why)
        return 2
    effective = effective_from_flags(args, root)
    for problem in effective.problems:
        terminal.say(f"warning: {problem}", style="yellow")
    settings = effective.settings
    terminal.say(f"Commands run {_containment(settings)}.")
    endpoint = resolve_endpoint(effective)  # named before anything is sent
    terminal.say(endpoint.line())
    for note in endpoint.notes():
        terminal.say(note, style="yellow")
    try:
        from agent.models.openai_client import OpenAIClient  # noqa: PLC0415 - openai is slow to import

        client = OpenAIClient(settings)
    except ModelError as error:
        terminal.error(name_flags(error.message))
        return 2
    session = Session(root, client, settings, approve=terminal.approve)
    ran: list[Proposal] = []
    try:
        return asyncio.run(_run_and_offer(session, args, root, terminal, ran))
    except KeyboardInterrupt:
        trace = None if ran else session.proposal(RunEnd(Ending.CANCELLED, "")).trace
        terminal.cancelled(trace)
        return EXIT_INTERRUPTED
    finally:
        terminal.stop_live()  # the cursor comes back whatever happened


async def _run_and_offer(
    session: Session, args: argparse.Namespace, root: Path, terminal: Terminal, ran: list[Proposal]
) -> int:
    """Run the task, then offer its proposal; the session lives until the offer ends (the
    tests on what the person accepts run in its shadow copy)."""
    try:
        proposal = await session.run(args.task, on_event=terminal.event)
        terminal.stop_live()
        ran.append(proposal)
        terminal.totals(proposal.usage, proposal.steps, proposal.trace)
        failed = proposal.end.ending == Ending.MODEL_ERROR
        if failed and not proposal.changes:
            return 2
        ask_first = session.settings.tests_on_accepted == "offer"
        check = CheckAccepted(session.check_accepted, ask_first=ask_first)
        code = await offer(
            proposal, root, terminal, assume_yes=args.yes, task=args.task, check=check
        )
        return 2 if failed else code
    finally:
        await session.close()


async def _run_session(session: Session, task: str, terminal: Terminal) -> Proposal:
    try:
        return await session.run(task, on_event=terminal.event)
    finally:
        await session.close()


def _demo(args: argparse.Namespace) -> int:
    """A scripted session on a temporary copy of the example project; the copy and the
    trace go with it."""
    with (
        tempfile.TemporaryDirectory(prefix="surehand-demo-") as workspace,
        tempfile.TemporaryDirectory(prefix="surehand-demo-traces-") as traces,
    ):
        return _demo_in(Path(workspace), traces)


def _demo_in(workspace: Path, traces: str) -> int:
    terminal = Terminal()
    demo = resources.files("agent").joinpath("demo")
    with resources.as_file(demo.joinpath("project")) as project:
        shutil.copytree(project, workspace, dirs_exist_ok=True)
    model = ScriptedModel.from_json(json.loads(demo.joinpath("script.json").read_text("utf-8")))

    def label(index: int, turn: ScriptTurn) -> None:
        if turn.label:
            terminal.heading(turn.label)

    model.on_turn = label
    settings = Settings(model="scripted demo", trace_dir=traces)
    terminal.say("surehand demo: a scripted session on a temporary copy of an example project")
    terminal.say("Task: fix the failing date test.\n")
    terminal.say(f"Commands run {_containment(settings)}.")

    async def approve(request: CommandRequest) -> Approval:
        # The demo's commands are its own script's, not a model's: they need no question.
        terminal.say(f"(demo: `{request.command}` is the script's own; it runs without asking)")
        return Approval.ONCE

    session = Session(workspace, model, settings, approve=approve)
    proposal = asyncio.run(_run_session(session, "Fix the failing date test.", terminal))
    terminal.say()
    terminal.proposal(proposal)
    terminal.say(
        "\nThe project was not changed: the proposal is for review. Its temporary copy "
        "and the session's trace are removed now."
    )
    return 0 if proposal.end.ending == Ending.FINISHED else 1


def _containment(settings: Settings) -> str:
    """How commands run: the sandbox's own words, with the limits the settings give."""
    return choose(settings.sandbox).describe(settings.sandbox_network, resource_limits(settings))


if __name__ == "__main__":
    sys.exit(main())
