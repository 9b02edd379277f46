"""The ``surehand.ask`` command's argument and the task text it becomes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from . import positions
from .documents import Documents, relative_of
from .review import read_disk

MAX_SELECTION_LINES = 200


class BadArguments(ValueError):
    """The command's arguments do not fit; the message says how."""


@dataclass(frozen=True)
class Ask:
    task: str
    uri: str | None = None
    range: types.Range | None = None


def parse_ask(arguments: list[Any] | None) -> Ask:
    """``[{"task": str, "uri"?: str, "range"?: Range}]`` (or ``["task"]``) as an ``Ask``."""
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
    return Ask(task.strip(), uri, text_range)


def task_text(ask: Ask, documents: Documents, root: Path) -> str:
    """The task with the context the editor gave: the file, and the selected lines."""
    if ask.uri is None:
        return ask.task
    relative = relative_of(root, ask.uri)
    if relative is None:
        return ask.task
    parts = [ask.task, f"The user is in {relative}."]
    if ask.range is not None:
        document = documents.get(ask.uri)
        text = document.text if document else read_disk(root, relative)
        if text is not None:
            parts.append(_selection(text, ask.range, documents.encoding, relative))
    return "\n\n".join(parts)


def _selection(text: str, selection: types.Range, encoding: str, relative: str) -> str:
    starts = positions.line_starts(text)
    first = min(selection.start.line, len(starts) - 1)
    last = min(max(selection.end.line, first), len(starts) - 1)
    if selection.end.character == 0 and last > first:
        last -= 1  # a selection ending at a line start does not take that line
    last = min(last, first + MAX_SELECTION_LINES - 1)
    start = starts[first]
    end = starts[last + 1] if last + 1 < len(starts) else len(text)
    lines = text[start:end].splitlines()
    numbered = "\n".join(f"{first + 1 + i}→{line}" for i, line in enumerate(lines))
    return f"Lines {first + 1}-{last + 1} of {relative}, which the request is about:\n{numbered}"
