"""One hunk's own unified diff, for a review that decides hunk by hunk.

A whole-file diff draws two nearby edits as one ``@@`` block, which cannot
be read as two decisions. ``hunk_diff`` draws one hunk alone: the lines it
replaces in the text the agent read against its new lines, with a few
lines of that text around them. Pure: text in, lines out; whoever prints
them escapes their hidden characters (``editing.visible``).
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.staging.hunks import Hunk
from agent.staging.line_cut import lines_back, lines_on, split_lines
from editing.line_diff import line_opcodes

CONTEXT = 3  # lines of the file shown around a hunk
NO_NEWLINE = "\\ No newline at end of file"


def hunk_diff(before: str, hunk: Hunk, context: int = CONTEXT) -> list[str]:
    """The unified diff of one hunk alone: ``before[hunk.start:hunk.end]`` against
    ``hunk.text``, with up to ``context`` lines of ``before`` around it, in one ``@@``
    block whatever hunk is near (the line numbers are as if it alone were applied).

    Lines end at ``"\\n"`` only (as the hunks do). A CRLF ending is a line break,
    unless the lines shown mix endings: then it shows as its ``\\r`` (escaped when
    printed). A last line without a newline is followed by git's
    ``\\ No newline at end of file``. The lines are the file's own text:
    whoever prints them escapes their hidden characters.
    """
    start, old_text, new_text = _whole_lines(before, hunk)
    end = start + len(old_text)  # a line start, or the end of the text
    first = before.count("\n", 0, start)
    old, new = split_lines(old_text), split_lines(new_text)
    head = split_lines(before[lines_back(before, start, context) : start])
    tail = split_lines(before[end : lines_on(before, end, context)])
    endings = {_ending(line) for line in [*head, *old, *new, *tail]} - {""}
    mixed = len(endings) > 1
    at = first - len(head) + 1
    size = len(head) + len(tail)
    out = [f"@@ -{_range(at, size + len(old))} +{_range(at, size + len(new))} @@"]
    out += _marked(" ", head, mixed)
    for tag, i1, i2, j1, j2 in line_opcodes(old, new):
        if tag == "equal":
            out += _marked(" ", old[i1:i2], mixed)
            continue
        out += _marked("-", old[i1:i2], mixed)
        out += _marked("+", new[j1:j2], mixed)
    out += _marked(" ", tail, mixed)
    return out


def _whole_lines(before: str, hunk: Hunk) -> tuple[int, str, str]:
    """The hunk's region widened to whole lines of ``before`` (hunks are already), with
    its old and new text."""
    start = before.rfind("\n", 0, hunk.start) + 1
    end = hunk.end
    if 0 < end < len(before) and before[end - 1] != "\n":
        end = _line_end(before, end)
    new = before[start : hunk.start] + hunk.text + before[hunk.end : end]
    if new and not new.endswith("\n") and end < len(before):
        following = _line_end(before, end)
        new += before[end:following]
        end = following
    return start, before[start:end], new


def _line_end(text: str, offset: int) -> int:
    newline = text.find("\n", offset)
    return len(text) if newline < 0 else newline + 1


def _ending(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    return "\n" if line.endswith("\n") else ""


def _marked(mark: str, lines: Sequence[str], mixed: bool) -> list[str]:
    out = []
    for line in lines:
        ending = _ending(line)
        body = line[: len(line) - len(ending)] if ending != "\r\n" or not mixed else line[:-1]
        out.append(mark + body)
        if not ending:
            out.append(NO_NEWLINE)
    return out


def _range(start: int, count: int) -> str:
    """A unified diff's ``start,count`` (an empty side names the line before it)."""
    return f"{start if count else start - 1},{count}"
