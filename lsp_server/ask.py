"""The ``surehand.ask`` command's argument and the task text it becomes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from agent.staging.views import numbered

from . import positions
from .documents import BufferSource, relative_of
from .limits import MAX_TASK_CHARS

MAX_SELECTION_LINES = 200


class BadArguments(ValueError):
    """The command's arguments do not fit; the message says how."""


@dataclass(frozen=True)
class Ask:
    task: str
    uri: str | None = None
    range: types.Range | None = None
    # The task is the ``surehand:`` comment lines of the range (``agent.loop.comment_task``),
    # read from the buffer when the ask runs; ``task`` is then only their words as offered.
    from_comments: bool = False


def parse_ask(arguments: list[Any] | None) -> Ask:
    """``[{"task": str, "uri"?: str, "range"?: Range, "fromComments"?: bool}]`` (or
    ``["task"]``) as an ``Ask``."""
    if not arguments:
        raise BadArguments('surehand.ask needs an argument: {"task": "...", "uri"?, "range"?}')
    first = arguments[0]
    if isinstance(first, str):
        first = {"task": first}
    if not isinstance(first, dict):
        raise BadArguments("surehand.ask's argument must be an object with a 'task' string")
    task = first.get("task")
    if not isinstance(task, str) or not task.strip():
        raise BadArguments("surehand.ask's 'task' must be a non-empty string")
    if len(task) > MAX_TASK_CHARS:
        raise BadArguments(
            f"surehand.ask's 'task' is {len(task)} characters, over the limit of"
            f" {MAX_TASK_CHARS}: put long material in a file of the workspace and name it"
        )
    uri = first.get("uri")
    if uri is not None and not isinstance(uri, str):
        raise BadArguments("surehand.ask's 'uri' must be a string")
    raw_range = first.get("range")
    text_range = None
    if raw_range is not None:
        try:
            start, end = raw_range["start"], raw_range["end"]
            text_range = types.Range(
                start=types.Position(line=int(start["line"]), character=int(start["character"])),
                end=types.Position(line=int(end["line"]), character=int(end["character"])),
            )
        except (KeyError, TypeError, ValueError):
            raise BadArguments(
                "surehand.ask's 'range' must be {start: {line, character}, end: {line, character}}"
            ) from None
    from_comments = first.get("fromComments", False)
    if not isinstance(from_comments, bool):
        raise BadArguments("surehand.ask's 'fromComments' must be true or false")
    if from_comments and (uri is None or text_range is None):
        raise BadArguments("surehand.ask with 'fromComments' needs the 'uri' and 'range'")
    return Ask(task.strip(), uri, text_range, from_comments)


def task_text(ask: Ask, source: BufferSource) -> str:
    """The task with the context the editor gave: the file, and the selected lines."""
    relative = relative_of(source.root, ask.uri) if ask.uri is not None else None
    if relative is None:
        return ask.task
    parts = [ask.task, f"The user is in {relative}."]
    if ask.range is not None and (text := source.current(relative)) is not None:
        parts.append(_selection(text, ask.range, relative))
    return "\n\n".join(parts)


def _selection(text: str, selection: types.Range, relative: str) -> str:
    """The selected lines, whole and numbered as the model's file views number them."""
    starts = positions.line_starts(text)
    first = min(selection.start.line, len(starts) - 1)
    last = min(max(selection.end.line, first), len(starts) - 1)
    if selection.end.character == 0 and last > first:
        last -= 1  # a selection ending at a line start does not take that line
    last = min(last, first + MAX_SELECTION_LINES - 1)
    ends = [*starts[1:], len(text)]
    lines = [text[starts[i] : ends[i]].rstrip("\r\n") for i in range(first, last + 1)]
    heading = f"Lines {first + 1}-{last + 1} of {relative}, which the request is about:"
    return f"{heading}\n{numbered(lines, first + 1)}"
