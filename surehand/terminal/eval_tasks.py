"""``surehand eval-tasks``: how the agent does on small real repositories.

A task is a directory: ``repo/`` holds a tiny project and ``task.json``
holds ``{"task": what a user would type, "verify": a command line that exits
0 once the task is done, "solution": ScriptedModel turns that do it}``. The
tasks that come with surehand are package data (``agent/tasks/``), read
through ``importlib.resources``, so an installed wheel runs them too; ``DIR``
names others.

For each task, in name order, ``repo/`` is copied to a temporary directory
and a ``Session`` runs the task there with the configured OpenAI-compatible
endpoint (named on stderr first, with any warning about it), or with
``--scripted`` the task's own solution. Commands run in a shadow copy and
any off the allowlist are declined. The proposal is written to the copy and
the verify command run in it, without a shell. The task directories are
only read; every copy is removed.

Exit status: 0 every task passed, 1 some failed, 2 nothing could be scored
(no tasks, a task file that does not parse, or an endpoint that is not
configured, cannot be reached or refuses the key or the model).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from agent.config.endpoint import resolve_endpoint
from agent.config.flags import add_endpoint_flags, effective_from_flags
from agent.config.settings import Settings
from agent.conversation import Message, ModelTurn
from agent.events import Event, ToolFinished
from agent.loop.session import Session
from agent.models.model import (
    ModelAuthFailed,
    ModelClient,
    ModelError,
    ModelNotFound,
    ModelUnreachable,
    OnDelta,
    ToolSpec,
)
from agent.models.scripted import ScriptedModel
from editing.disk.cli import Commands
from editing.disk.workdir import Workdir
from surehand.terminal.task_report import Record, print_table, progress_line, write_json

VERIFY_TIMEOUT = 120.0  # seconds
OUTPUT_TAIL = 2_000  # characters of the verify command's output kept in a record
CONFIGURATION_ERRORS = (ModelAuthFailed, ModelNotFound, ModelUnreachable)
COPY_IGNORED = shutil.ignore_patterns("__pycache__", ".pytest_cache")


class TaskFileError(Exception):
    """A task directory that cannot be run: its ``task.json`` is missing or malformed."""


@dataclass(frozen=True)
class Task:
    name: str
    repo: Path
    task: str
    verify: str
    solution: list[dict[str, Any]]

    @classmethod
    def load(cls, directory: Path) -> Task:
        try:
            data = json.loads((directory / "task.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise TaskFileError(f"{directory / 'task.json'}: {error}") from None
        ok = (
            isinstance(data, dict)
            and all(isinstance(data.get(key), str) for key in ("task", "verify"))
            and isinstance(data.get("solution"), list)
        )
        if not ok or not (directory / "repo").is_dir():
            raise TaskFileError(
                f"{directory}: a task needs repo/ and a task.json with the strings 'task' "
                "and 'verify' and the list 'solution'"
            )
        return cls(
            directory.name, directory / "repo", data["task"], data["verify"], data["solution"]
        )


class WatchedClient:
    """A model client that remembers the last error it raised (the session keeps its text only)."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self.error: ModelError | None = None

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], on_delta: OnDelta | None
    ) -> ModelTurn:
        try:
            return await self.client.complete(messages, tools, on_delta)
        except ModelError as error:
            self.error = error
            raise

    async def close(self) -> None:
        await self.client.close()


def add_command(commands: Commands) -> None:
    parser = commands.add_parser(
        "eval-tasks",
        help="score the agent on small repositories with a failing task each",
        description=(
            "Run each task of DIR on a temporary copy of its repo/ with the configured "
            "endpoint (OPENAI_BASE_URL, OPENAI_API_KEY, SUREHAND_MODEL, or the flags), or "
            "with --scripted its own solution, then its verify command. Exit 0 when all "
            "passed, 1 otherwise, 2 when the endpoint is misconfigured."
        ),
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir",
        nargs="?",
        type=Path,
        metavar="DIR",
        help="a folder of task directories, or one task directory (default: the tasks that "
        "come with surehand)",
    )
    add_endpoint_flags(parser)
    parser.add_argument(
        "--scripted", action="store_true", help="replay each task's own solution instead"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the records here")
    parser.set_defaults(handler=evaluate)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="surehand eval-tasks")
    configure(parser)
    return evaluate(parser.parse_args(argv))


def evaluate(args: argparse.Namespace) -> int:
    """The command: run every task, print the results, return the exit status."""
    if args.dir is not None:
        return evaluate_in(args, args.dir)
    with resources.as_file(bundled_tasks()) as directory:
        return evaluate_in(args, directory)


def bundled_tasks() -> Traversable:
    """The tasks that come with surehand (package data)."""
    return resources.files("agent").joinpath("tasks")


def evaluate_in(args: argparse.Namespace, folder: Path) -> int:
    try:
        tasks = [Task.load(directory) for directory in find_tasks(folder)]
    except TaskFileError as error:
        print(f"eval-tasks: {error}", file=sys.stderr)
        return 2
    if not tasks:
        print(f"eval-tasks: no task directories (with task.json) in {folder}", file=sys.stderr)
        return 2
    settings = task_settings(args)
    try:
        from agent.models.openai_client import OpenAIClient  # noqa: PLC0415 - openai is slow to import

        # The first client is made here, so a settings error is told before any task runs.
        made = [] if args.scripted else [OpenAIClient(settings)]
    except ModelError as error:
        print(f"eval-tasks: {error.message}", file=sys.stderr)
        return 2

    def make_client() -> ModelClient:
        return made.pop() if made else OpenAIClient(settings)

    records, stopped = asyncio.run(run_all(tasks, settings, None if args.scripted else make_client))
    print_table(records, len(tasks))
    if args.json:
        write_json(args.json, records, len(tasks), settings, scripted=args.scripted)
    if stopped:
        print(f"eval-tasks: stopped, the model endpoint failed: {stopped}", file=sys.stderr)
        return 2
    return 0 if all(r.passed for r in records) and len(records) == len(tasks) else 1


def find_tasks(root: Path) -> list[Path]:
    """``root`` if it is a task directory, else its task directories by name."""
    if (root / "task.json").is_file():
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / "task.json").is_file())


def task_settings(args: argparse.Namespace) -> Settings:
    """The settings from the flags; problems, and the endpoint unless scripted, on stderr."""
    effective = effective_from_flags(args, None)
    for problem in effective.problems:
        print(f"eval-tasks: warning: {problem}", file=sys.stderr)
    if args.scripted:
        return effective.settings.replace(model="scripted")
    endpoint = resolve_endpoint(effective)
    for line in (endpoint.line(), *endpoint.notes()):
        print(f"eval-tasks: {line}", file=sys.stderr)
    return effective.settings


async def run_all(
    tasks: list[Task], settings: Settings, make_client: Callable[[], ModelClient] | None
) -> tuple[list[Record], str]:
    """The records of the tasks run, and why the run stopped early ("" if it did not).

    With ``make_client`` None each task replays its solution; otherwise each
    task gets a client of its own (its session closes it), and an error that
    no task can get past ends the run.
    """
    records: list[Record] = []
    for task in tasks:
        watched = WatchedClient(make_client()) if make_client else None
        record = await run_task(task, watched or ScriptedModel.from_json(task.solution), settings)
        records.append(record)
        print(progress_line(record), flush=True)
        if watched is not None and isinstance(watched.error, CONFIGURATION_ERRORS):
            return records, watched.error.message
    return records, ""


async def run_task(task: Task, client: ModelClient, settings: Settings) -> Record:
    """Run ``task`` on a temporary copy of its repository and verify the result there."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"surehand-task-{task.name}-") as temporary:
        work = Path(temporary) / "repo"
        shutil.copytree(task.repo, work, symlinks=True, ignore=COPY_IGNORED)
        calls: list[bool] = []  # whether each tool call succeeded

        def on_event(event: Event) -> None:
            if isinstance(event, ToolFinished):
                calls.append(event.ok)

        session = Session(work, client, settings)
        try:
            proposal = await session.run(task.task, on_event=on_event)
        finally:
            await session.close()
        Workdir(work).write(proposal.writes())
        exit_code, output = await asyncio.to_thread(verify, task.verify, work)
    usage = proposal.usage
    return Record(
        task=task.name,
        passed=exit_code == 0,
        steps=proposal.steps,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        tokens=usage.total,
        seconds=round(time.perf_counter() - started, 2),
        ending=str(proposal.end.ending),
        message=proposal.end.message,
        changed=[change.path for change in proposal.changes],
        calls=len(calls),
        failed_calls=calls.count(False),
        verify_exit=exit_code,
        verify_output=output[-OUTPUT_TAIL:],
        trace=str(proposal.trace) if proposal.trace else None,
    )


def verify(command: str, cwd: Path, timeout: float = VERIFY_TIMEOUT) -> tuple[int | None, str]:
    """Run ``command`` in ``cwd`` without a shell: its exit code (None at the timeout), output."""
    try:
        done = subprocess.run(
            shlex.split(command),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, f"verify command stopped after {timeout:g} s"
    except OSError as error:
        return 127, f"verify command cannot run: {error}"
    return done.returncode, done.stdout
