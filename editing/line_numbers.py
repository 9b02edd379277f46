"""Line-number prefixes copied from a numbered view of a file.

A model that read ``    98→    for x in y:`` sometimes quotes the prefix as
part of its text. The prefix is stripped, never matched: the number is only
the position the file had when it was viewed. A style counts only when every
line of ``old`` carries it (blank lines may lack it) with consecutive
numbers, so a file whose own lines start with ``12: `` (hour keys in YAML)
is never mistaken for a view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Style:
    name: str
    pattern: re.Pattern[str]
    # Whether a line in ``new`` may be stripped when other lines of ``new``
    # carry no prefix (only for styles no real code line looks like).
    unmistakable: bool


STYLES = (
    Style("arrow", re.compile(r"^ *(\d+)(?:→|->\t?)(.*)$"), unmistakable=True),
    Style("tab", re.compile(r"^ *(\d+)\t(.*)$"), unmistakable=False),
    Style("colon", re.compile(r"^ *(\d+):(?: (.*))?$"), unmistakable=False),
    Style("pipe", re.compile(r"^ *(\d+) ?\|(?: (.*))?$"), unmistakable=False),
)


def _parse(lines: list[str], style: Style) -> list[tuple[int, str] | None] | None:
    """Number and text of each line, None for a blank line without a prefix."""
    parsed: list[tuple[int, str] | None] = []
    for line in lines:
        match = style.pattern.match(line)
        if match:
            parsed.append((int(match.group(1)), match.group(2) or ""))
        elif line.strip():
            return None
        else:
            parsed.append(None)
    return parsed


def detect(old: str) -> Style | None:
    """The numbered-view style every line of ``old`` carries, if any."""
    lines = old.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return None
    for style in STYLES:
        parsed = _parse(lines, style)
        if parsed is None:
            continue
        numbered = [(index, entry[0]) for index, entry in enumerate(parsed) if entry]
        if not numbered:
            continue
        first_index, first_number = numbered[0]
        if all(number - first_number == index - first_index for index, number in numbered):
            return style
    return None


def strip(text: str, style: Style, *, every_line: bool) -> str | None:
    """``text`` without ``style``'s prefixes.

    With ``every_line`` each non-blank line must carry the prefix; otherwise
    lines without one are kept as they are, which is only allowed for an
    unmistakable style. Returns None when ``text`` does not fit.
    """
    lines = text.split("\n")
    out = []
    for line in lines:
        match = style.pattern.match(line)
        if match:
            out.append(match.group(2) or "")
        elif every_line and line.strip():
            return None
        else:
            out.append(line)
    return "\n".join(out)


def strip_request(old: str, new: str) -> tuple[str, str, Style] | None:
    """``old`` and ``new`` without the view prefixes ``old`` carries, if it does."""
    style = detect(old)
    if style is None:
        return None
    stripped_old = strip(old, style, every_line=True)
    if stripped_old is None or not stripped_old.strip():
        return None
    stripped_new = strip(new, style, every_line=True)
    if stripped_new is None:
        carries_any = any(style.pattern.match(line) for line in new.split("\n"))
        if carries_any and not style.unmistakable:
            return None
        stripped_new = strip(new, style, every_line=False) if carries_any else new
        assert stripped_new is not None  # without every_line, strip keeps what it cannot strip
    return stripped_old, stripped_new, style
