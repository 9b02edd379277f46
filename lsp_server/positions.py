"""Offsets in a text and LSP positions, in the negotiated encoding.

LSP lines end at ``\\n``, ``\\r\\n`` or ``\\r`` and nothing else (not at a
form feed or U+2028, which ``str.splitlines`` would split at); a position's
character counts code units of the negotiated encoding: UTF-16 (VS Code),
UTF-8 (Neovim) or UTF-32. Everything inside the server works in string
offsets; positions exist only at this edge.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from lsprotocol import types

_BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """The offset where every line starts."""
    return [0, *(m.end() for m in _BREAK.finditer(text))]


def lines(text: str) -> list[str]:
    """The lines of ``text`` as an editor shows them (split at LSP's line ends only),
    without their line ends; no last empty line after a final line end."""
    parts = _BREAK.split(text)
    return parts[:-1] if parts and parts[-1] == "" else parts


def units(text: str, encoding: str) -> int:
    """The length of ``text`` in code units of ``encoding``."""
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def position(
    text: str, offset: int, encoding: str, starts: list[int] | None = None
) -> types.Position:
    """The position of ``offset`` in ``text``."""
    starts = starts if starts is not None else line_starts(text)
    line = bisect_right(starts, offset) - 1
    return types.Position(line=line, character=units(text[starts[line] : offset], encoding))


def offset(text: str, pos: types.Position, encoding: str, starts: list[int] | None = None) -> int:
    """The offset of ``pos`` in ``text``; past the end of a line is its end, as the spec says."""
    starts = starts if starts is not None else line_starts(text)
    if pos.line >= len(starts):
        return len(text)
    begin = starts[pos.line]
    end = starts[pos.line + 1] if pos.line + 1 < len(starts) else len(text)
    line = text[begin:end].rstrip("\r\n")  # a line holds no break but its last
    if encoding == types.PositionEncodingKind.Utf32:
        return begin + min(pos.character, len(line))
    counted = 0
    for index, char in enumerate(line):
        if counted >= pos.character:
            return begin + index
        counted += units(char, encoding)
    return begin + len(line)
