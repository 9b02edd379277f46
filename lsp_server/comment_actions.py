"""Code actions asking for a buffer's ``surehand:`` comment tasks (``agent.loop.comment_task``).

A comment line such as ``# surehand: make parse_dmy accept two-digit years``
is offered on its line as "Ask surehand: make parse_dmy accept …", and all
of a file's at once as a ``source.fixAll.surehand`` action. The command
carries the line range and ``fromComments``, not the text: the server reads
the comment again from the buffer when the ask runs. Titles show the
person's words through ``editing.visible``, cut to fit a menu line.
"""

from __future__ import annotations

from lsprotocol import types

from agent.loop import comment_task
from editing.visible import visible

ASK = "surehand.ask"
FIX_ALL_KIND = "source.fixAll.surehand"
TITLE_CHARS = 60


def comment_actions(text: str, uri: str, params: types.CodeActionParams) -> list[types.CodeAction]:
    """An ask for each comment task on the lines of ``params.range``, then one for all of
    the file's when it has more than one or the client asks for fix-all actions."""
    if comment_task.MARKER[:-1] not in text.lower():
        return []
    only = params.context.only
    wants_line = only is None or any(
        types.CodeActionKind.QuickFix.value.startswith(str(k)) for k in only
    )
    wants_all = only is None or any(FIX_ALL_KIND.startswith(str(k)) and str(k) != "" for k in only)
    first, last = params.range.start.line, params.range.end.line
    actions = []
    if wants_line:
        for task in comment_task.find(text, first, max(first, last)):
            actions.append(
                _action(
                    f"Ask surehand: {_short(task.task)}",
                    uri,
                    (task.line, task.line),
                    task.task,
                    types.CodeActionKind.QuickFix,
                )
            )
    if wants_all:
        tasks = comment_task.find(text)
        if len(tasks) > 1 or (tasks and only is not None):
            title = (
                f"Ask surehand: {_short(tasks[0].task)}"
                if len(tasks) == 1
                else f"Ask surehand: all {len(tasks)} requests in this file"
            )
            actions.append(
                _action(title, uri, (tasks[0].line, tasks[-1].line), tasks[0].task, FIX_ALL_KIND)
            )
    return actions


def _action(title: str, uri: str, lines: tuple[int, int], task: str, kind: str) -> types.CodeAction:
    first, last = lines
    argument = {
        "task": task,
        "uri": uri,
        "range": {
            "start": {"line": first, "character": 0},
            "end": {"line": last, "character": 0},
        },
        "fromComments": True,
    }
    return types.CodeAction(
        title=title,
        kind=kind,
        command=types.Command(title=title, command=ASK, arguments=[argument]),
    )


def _short(task: str) -> str:
    shown = visible(task)
    return shown if len(shown) <= TITLE_CHARS else shown[: TITLE_CHARS - 1].rstrip() + "…"
