"""``surehand history`` and ``surehand undo``: the accepted tasks of a workspace, and
taking the newest back (``agent.staging.history``)."""

from __future__ import annotations

import argparse
import asyncio
from datetime import datetime
from pathlib import Path

from agent.staging.history import History, TaskRecord, UndoPlan, plan_undo
from editing.disk.cli import Commands
from editing.disk.workdir import Workdir
from editing.errors import InvalidRequest
from surehand.terminal.screen import Terminal

UNDO_ROUNDS = 3  # times the files may change under the question before giving up


def add_commands(commands: Commands) -> None:
    shown = commands.add_parser(
        "history",
        help="list the tasks accepted in a workspace, newest first",
        description=(
            "List the tasks whose changes were accepted in this workspace (from the terminal "
            "or an editor), newest first, with the files each changed and whether it was "
            "undone. Records are kept in $XDG_STATE_HOME/surehand/history."
        ),
    )
    shown.add_argument("--workspace", type=Path, default=Path(), help="project directory")
    shown.set_defaults(handler=_history)
    undo = commands.add_parser(
        "undo",
        help="take back the newest accepted task",
        description=(
            "Take back the newest accepted task not yet undone: every file it changed, "
            "created, deleted or moved goes back. A change you made since is kept; where it "
            "touches the task's own lines, or a file the task made or deleted was changed "
            "since, nothing is undone and each such file is named. Shows what will change "
            "and asks first. Run again to undo the task before it."
        ),
    )
    undo.add_argument("--workspace", type=Path, default=Path(), help="project directory")
    undo.add_argument("--task", help="the id of the task to undo (it must be the newest)")
    undo.add_argument("--yes", action="store_true", help="undo without asking")
    undo.set_defaults(handler=_undo)


def _history(args: argparse.Namespace) -> int:
    terminal = Terminal()
    if not args.workspace.is_dir():
        terminal.error(f"no such directory: {args.workspace} (--workspace)")
        return 2
    records = History.of(args.workspace).tasks()
    if not records:
        terminal.say("No accepted tasks are recorded for this workspace.")
        return 0
    for record in records:
        state = " (undone)" if record.undone else ""
        when = datetime.fromtimestamp(record.when).strftime("%Y-%m-%d %H:%M")
        terminal.say(f"{record.id}  {when}  {record.front}{state}", style="bold")
        terminal.say(f"  {record.title()}")
        terminal.say(f"  {_files(record)}", style="dim")
    return 0


def _undo(args: argparse.Namespace) -> int:
    terminal = Terminal()
    if not args.workspace.is_dir():
        terminal.error(f"no such directory: {args.workspace} (--workspace)")
        return 2
    root = args.workspace.resolve()
    kept = History.of(root)
    record = kept.last()
    if record is None:
        terminal.say("No accepted task is left to undo in this workspace.")
        return 1
    if args.task and args.task != record.id:
        terminal.error(
            f"tasks are undone newest first: {record.id} ({record.title()}) comes before "
            f"{args.task}"
        )
        return 2
    try:
        return asyncio.run(_take_back(kept, record, Workdir(root), terminal, args.yes))
    except KeyboardInterrupt:
        terminal.say("Cancelled. Nothing was undone.", style="yellow")
        return 130


async def _take_back(
    kept: History, record: TaskRecord, workdir: Workdir, terminal: Terminal, assume_yes: bool
) -> int:
    terminal.say(f"Undo {record.title()}", style="bold")
    terminal.say(f"  {_files(record)}", style="dim")
    for _ in range(UNDO_ROUNDS):
        try:
            seen = {path: workdir.read(path) for path in record.paths}
        except InvalidRequest as error:
            terminal.error(str(error))
            return 2
        plan = plan_undo(record, seen.get)
        if plan.refused:
            _say_refused(terminal, plan)
            return 1
        if not plan.changes:
            kept.mark_undone(record)
            terminal.say("The files already are as they were before the task.")
            return 0
        for change in plan.changes:
            terminal.diff(change.diff())
        if not assume_yes:
            answer = await terminal.ask("Undo these changes? [y/N]")
            if answer not in ("y", "yes"):
                terminal.say("Nothing was undone.")
                return 1
        if any(workdir.read(path) != text for path, text in seen.items()):
            terminal.say("A file changed while you were deciding; here is the undo against it.")
            continue
        workdir.write(plan.proposal().writes())
        kept.mark_undone(record)
        terminal.say(f"Undone: {record.title()}. {_done(plan)}")
        return 0
    terminal.say("The files kept changing; nothing was undone.")
    return 1


def _say_refused(terminal: Terminal, plan: UndoPlan) -> None:
    terminal.say("Nothing was undone: files changed since the task.", style="yellow")
    for refusal in plan.refused:
        terminal.say(f"  {refusal.path}: {refusal.why}.")
    terminal.say("Put those back by hand, or undo them in your editor, and run again.")


def _files(record: TaskRecord) -> str:
    words = {"create": "created", "delete": "deleted", "edit": "changed"}
    parts = []
    for change in record.files:
        if change.source is not None:
            parts.append(f"{change.source} moved to {change.path}")
        else:
            parts.append(f"{change.path} {words[change.operation]}")
    return "; ".join(parts)


def _done(plan: UndoPlan) -> str:
    restored = []
    for change in plan.changes:
        if change.source is not None:
            restored.append(f"{change.source} moved back to {change.path}")
        elif change.after is None:
            restored.append(f"{change.path} deleted")
        elif change.before is None:
            restored.append(f"{change.path} made again")
        else:
            restored.append(f"{change.path} restored")
    return "; ".join(restored) + "."
