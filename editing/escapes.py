"""One level of backslash escaping, as models produce when they escape twice.

A tool argument that was JSON-encoded once too often arrives with ``\\"``
for ``"`` and a literal ``\\n`` for a newline. ``unescape`` removes exactly
one level, scanning left to right, so ``\\\\n`` becomes ``\\n`` (a
backslash and an n), never a newline.
"""

from __future__ import annotations

_SIMPLE = {"\\": "\\", '"': '"', "'": "'", "`": "`", "/": "/", "n": "\n", "t": "\t", "r": "\r"}


def unescape(text: str) -> str:
    """``text`` with one level of backslash escapes removed.

    Unknown escapes (``\\d`` in a regex) are kept as they are.
    """
    if "\\" not in text:
        return text
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] in _SIMPLE:
            out.append(_SIMPLE[text[i + 1]])
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out).replace("\r\n", "\n")
