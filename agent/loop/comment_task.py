"""A task written in the code: a comment on a line of its own that starts with ``surehand:``.

``# surehand: make parse_dmy accept two-digit years`` (or ``// surehand: …``,
``-- surehand: …``, ``/* surehand: … */``, ``<!-- surehand: … -->`` and the
other leaders below) is a request in the person's own words, written where
it applies, in a saved buffer or not. Only a whole line counts: text after
code on the same line, or inside a string, is never a task. The comment is
the task's context, and taking it out is part of the change proposed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MARKER = "surehand:"
MAX_TASK_CHARS = 2_000

_LEADER = r"<!--|/\*+|\(\*|\{-|//+|--+|#+|;+|%+|\"|'|\*+|REM\b"
_CLOSER = r"-->|\*+/|\*\)|-\}"
_BREAK = re.compile(r"\r\n|\r|\n")  # LSP's line breaks only: a form feed is not one
_LINE = re.compile(
    rf"^[ \t]*(?:{_LEADER})[ \t]*surehand:[ \t]*(?P<task>.*?)[ \t]*(?:{_CLOSER})?[ \t]*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class CommentTask:
    line: int  # 0-based
    task: str  # the request, without the comment's leader, marker and closer
    text: str  # the whole line as written, without its line break


def task_of(line: str) -> str | None:
    """The request a line holds, None when it is not a ``surehand:`` comment line."""
    found = _LINE.match(line)
    if found is None:
        return None
    task = found.group("task").strip()
    return task[:MAX_TASK_CHARS] if task else None


def find(text: str, first: int = 0, last: int | None = None) -> list[CommentTask]:
    """The comment tasks on lines ``first``..``last`` (0-based, inclusive) of ``text``."""
    lines = [text[a:b] for a, b in _spans(text)]
    end = len(lines) - 1 if last is None else min(last, len(lines) - 1)
    out = []
    for number in range(max(first, 0), end + 1):
        if MARKER[:-1] not in lines[number].lower():
            continue
        if (task := task_of(lines[number])) is not None:
            out.append(CommentTask(number, task, lines[number]))
    return out


def without(text: str, tasks: list[CommentTask]) -> str:
    """``text`` with the lines of ``tasks`` taken out, each with its own line break and
    every other byte left as it is; a line is found again by its text when the text moved
    since (the nearest first), and one no longer in the text is left alone."""
    spans = _spans(text, with_breaks=True)
    lines = [text[a:b] for a, b in spans]
    drop: set[int] = set()
    for task in tasks:
        candidates = [
            i for i, line in enumerate(lines) if i not in drop and _BREAK.sub("", line) == task.text
        ]
        if candidates:
            drop.add(min(candidates, key=lambda i: abs(i - task.line)))
    if not drop:
        return text
    return "".join(line for i, line in enumerate(lines) if i not in drop)


def described(tasks: list[CommentTask], relative: str) -> str:
    """The task for the model: the requests, where they were written, and that the
    comment lines are taken out for it."""
    if len(tasks) == 1:
        task = tasks[0]
        return (
            f"{task.task}\n\nThe user wrote this request in {relative} as the comment on "
            f"line {task.line + 1}: `{task.text.strip()}`. That comment line is removed "
            "from the file with your change: leave it as it is."
        )
    listed = "\n".join(f"- line {t.line + 1}: {t.task}" for t in tasks)
    return (
        f"Do what these requests, written as comments in {relative}, ask:\n{listed}\n\n"
        "Those comment lines are removed from the file with your change: leave them as "
        "they are."
    )


def _spans(text: str, *, with_breaks: bool = False) -> list[tuple[int, int]]:
    """Each line's (start, end) in ``text``, with or without its line break."""
    spans, start = [], 0
    for found in _BREAK.finditer(text):
        spans.append((start, found.end() if with_breaks else found.start()))
        start = found.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans
