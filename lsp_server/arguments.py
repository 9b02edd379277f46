"""The arguments of surehand's commands, checked before anything acts on them.

Every command's arguments are held to what docs/protocol.md says it takes;
anything else is a ``BadArguments`` (the server answers ``InvalidParams``
with its message). A URI an argument names must be a ``file:`` URI of a
file in the workspace (``documents.relative_of``: no other scheme or host,
``..`` and symlinks resolved): a command never acts on, nor reads, a place
outside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .ask import BadArguments
from .documents import relative_of

MAX_ID_CHARS = 200
MAX_LINE = 2**31 - 1  # LSP's uinteger
REVIEW_KEYS = {"id": str, "uri": str, "line": int, "always": bool}


def no_arguments(name: str, arguments: list[Any]) -> None:
    """A command that takes nothing: an empty object or null is let through."""
    if len(arguments) > 1 or any(a not in (None, {}) for a in arguments):
        raise BadArguments(f"{name} takes no arguments")


def in_workspace(name: str, uri: str, root: Path | None) -> str:
    """The workspace-relative path ``uri`` names, or ``BadArguments``."""
    relative = relative_of(root, uri) if root is not None else None
    if relative is None:
        shown = uri if len(uri) <= 200 else uri[:200] + "..."
        raise BadArguments(
            f"{name}'s 'uri' {shown!r} is not a file in the workspace"
            f" {root if root is not None else '(no workspace folder)'}"
        )
    return relative


def review_argument(name: str, arguments: list[Any], root: Path | None) -> dict[str, Any]:
    """The one object a ``surehand.review.*`` command takes (``{}`` for none)."""
    if len(arguments) > 1:
        raise BadArguments(f"{name} takes at most one argument, an object")
    argument = arguments[0] if arguments else None
    if argument is None:
        return {}
    if not isinstance(argument, dict):
        raise BadArguments(f"{name}'s argument must be an object {{id?, uri?, line?}}")
    for key, kind in REVIEW_KEYS.items():
        value = argument.get(key)
        if value is None:
            continue
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise BadArguments(f"{name}'s '{key}' must be a {kind.__name__}")
    item_id, line = argument.get("id"), argument.get("line")
    if isinstance(item_id, str) and not 0 < len(item_id) <= MAX_ID_CHARS:
        raise BadArguments(f"{name}'s 'id' must be a review item's id")
    if isinstance(line, int) and not 0 <= line <= MAX_LINE:
        raise BadArguments(f"{name}'s 'line' must be a line number from 0")
    if isinstance(argument.get("uri"), str):
        in_workspace(name, argument["uri"], root)
    return {k: v for k, v in argument.items() if v is not None}


def task_argument(name: str, arguments: list[Any]) -> str | None:
    """The task id ``surehand.undoTask`` may take: ``[]``, ``[{}]`` or ``[{"task": id}]``."""
    if len(arguments) > 1:
        raise BadArguments(f"{name} takes at most one argument, an object {{task?}}")
    argument = arguments[0] if arguments else None
    if argument is None:
        return None
    if not isinstance(argument, dict) or set(argument) - {"task"}:
        raise BadArguments(f"{name}'s argument must be an object {{task?}}")
    task = argument.get("task")
    if task is not None and (not isinstance(task, str) or not 0 < len(task) <= MAX_ID_CHARS):
        raise BadArguments(f"{name}'s 'task' must be a task's id (surehand.history)")
    return task
