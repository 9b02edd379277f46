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

from editing import cli as editing_cli

from . import eval_tasks
from .accept import offer
from .flags import add_endpoint_flags, settings_from_flags
from .model import ModelError
from .openai_client import OpenAIClient
from .proposal import Ending, Proposal
from .scripted import ScriptedModel, ScriptTurn
from .session import Session
from .settings import Settings
from .terminal import Terminal


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="surehand", description="surehand command line")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_commands(commands)
    editing_cli.add_commands(commands)
    args = parser.parse_args(argv)
    return args.handler(args)


def add_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    run = commands.add_parser(
        "run",
        help="run a task with the configured model and apply it after review",
        description=(
            "Run a task in a workspace with the configured OpenAI-compatible endpoint "
            "(OPENAI_BASE_URL, OPENAI_API_KEY, SUREHAND_MODEL, or the flags). Prints each "
            "step, shows the proposal as a diff and writes it only after you say yes."
        ),
    )
    run.add_argument("task", help="what to do, in words")
    run.add_argument("--workspace", type=Path, default=Path(), help="project directory")
    run.add_argument("--yes", action="store_true", help="apply the proposal without asking")
    add_endpoint_flags(run)
    run.set_defaults(handler=_run)
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
    eval_tasks.add_command(commands)


def _run(args: argparse.Namespace) -> int:
    settings, problems = settings_from_flags(args)
    terminal = Terminal()
    for problem in problems:
        terminal.say(f"warning: {problem}")
    try:
        client = OpenAIClient(settings)
    except ModelError as error:
        terminal.say(error.message)
        return 2
    root = args.workspace.resolve()
    session = Session(root, client, settings, approve=terminal.approve)
    proposal = asyncio.run(_run_session(session, args.task, terminal))
    failed = proposal.outcome.ending == Ending.MODEL_ERROR
    if failed and not proposal.changes:
        return 2
    code = asyncio.run(offer(proposal, root, terminal, assume_yes=args.yes))
    return 2 if failed else code


async def _run_session(session: Session, task: str, terminal: Terminal) -> Proposal:
    try:
        return await session.run(task, on_event=terminal.event)
    finally:
        await session.close()
        await session.client.close()


def _demo(args: argparse.Namespace) -> int:
    terminal = Terminal()
    demo = resources.files(__package__).joinpath("demo")
    workspace = Path(tempfile.mkdtemp(prefix="surehand-demo-"))
    with resources.as_file(demo.joinpath("project")) as project:
        shutil.copytree(project, workspace, dirs_exist_ok=True)
    model = ScriptedModel.from_json(json.loads(demo.joinpath("script.json").read_text("utf-8")))

    def label(index: int, turn: ScriptTurn) -> None:
        if turn.label:
            terminal.heading(turn.label)

    model.on_turn = label
    traces = tempfile.mkdtemp(prefix="surehand-demo-traces-")
    settings = Settings(model="scripted demo", trace_dir=traces)
    terminal.say(
        f"surehand demo: a scripted session on a copy of an example project in {workspace}"
    )
    terminal.say("Task: fix the failing date test.\n")
    session = Session(workspace, model, settings)
    proposal = asyncio.run(_run_session(session, "Fix the failing date test.", terminal))
    terminal.say()
    terminal.proposal(proposal)
    terminal.say(
        f"\nThe project in {workspace} is unchanged: the proposal is for review. "
        f"The trace of the session is {proposal.trace}."
    )
    return 0 if proposal.outcome.ending == Ending.FINISHED else 1


if __name__ == "__main__":
    sys.exit(main())
