"""One level of backslash escaping, as models produce when they escape twice.

A tool argument that was JSON-encoded once too often arrives with ``\\"``
for ``"`` and, when whole, a literal ``\\n`` for a newline. Two variants are
tried, lightest first: ``QUOTES`` removes the escaping of quotes and
backslashes only (the text still has real newlines); ``FULL`` also turns
``\\n``, ``\\t`` and ``\\r`` into the characters. Whichever variant made the
old text match is the one applied to the new text, so a ``\\n`` the model
meant literally is not turned into a line break. Scanning is left to right:
``\\\\n`` becomes ``\\n`` (a backslash and an n), never a newline.
"""

from __future__ import annotations

from enum import Enum

_QUOTES = {"\\": "\\", '"': '"', "'": "'", "`": "`"}
_FULL = {**_QUOTES, "/": "/", "n": "\n", "t": "\t", "r": "\r"}


class Variant(Enum):
    QUOTES = "quotes"
    FULL = "full"


def unescape(text: str, variant: Variant = Variant.FULL) -> str:
    """``text`` with one level of backslash escapes removed.

    Unknown escapes (``\\d`` in a regex) are kept as they are.
    """
    if "\\" not in text:
        return text
    table = _FULL if variant is Variant.FULL else _QUOTES
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] in table:
            out.append(table[text[i + 1]])
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out).replace("\r\n", "\n")
