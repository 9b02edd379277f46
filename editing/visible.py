"""The one rule for showing text a model chose (a command, a path, a label, code) to a person.

A terminal or an editor interprets some characters instead of showing them:
an escape sequence erases a line or moves the cursor, a carriage return
goes back to column 1, a bidirectional override reorders what follows, a
zero-width or format character hides in an identifier. Text a model chose
is shown with every such character as a visible escape (``\\x1b``,
``\\u202e``), so what a person reads is what the bytes are.

``HIDDEN`` is every code point of the Unicode categories Cc (C0 and C1
controls, DEL), Cf (format: bidi marks, overrides and isolates, zero-width
characters, the BOM, tags), Zl and Zp (line and paragraph separators), as
explicit ranges: the VS Code extension (``client-vscode/src/visible.ts``)
and the Neovim plugin (``client-nvim/lua/surehand/visible.lua``) hold the
same table, and the tests hold all three to it and to ``unicodedata``.

Pure text in, text out: the engine, the agent, the server and the clients
all show model text through this rule (or its copies).
"""

from __future__ import annotations

import re

HIDDEN: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F),
    (0x007F, 0x009F),
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)
"""Inclusive ranges of the code points never shown as themselves."""


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    parts = [
        re.escape(chr(low)) + (f"-{re.escape(chr(high))}" if high > low else "")
        for low, high in ranges
    ]
    return "[" + "".join(parts) + "]"


_HIDDEN = re.compile(_class(HIDDEN))


def escape(char: str) -> str:
    """The visible escape of one hidden character: ``\\x1b``, ``\\u202e``, ``\\U000e0041``."""
    point = ord(char)
    if point <= 0xFF:
        return f"\\x{point:02x}"
    if point <= 0xFFFF:
        return f"\\u{point:04x}"
    return f"\\U{point:08x}"


def is_hidden(char: str) -> bool:
    return _HIDDEN.fullmatch(char) is not None


def hidden_in(text: str) -> str | None:
    """The first hidden character of ``text``, None when it has none."""
    found = _HIDDEN.search(text)
    return found.group() if found else None


def visible(text: str, *, keep: str = "") -> str:
    """``text`` with every hidden character, except those in ``keep``, as a visible escape.

    ``keep`` is for the few a view lays out itself: a tab in a line of code
    (``keep="\\t"``), line breaks in a block shown as lines. Text without
    hidden characters comes back unchanged (the same object).
    """
    if _HIDDEN.search(text) is None:
        return text

    def shown(found: re.Match[str]) -> str:
        char = found.group()
        return char if char in keep else escape(char)

    return _HIDDEN.sub(shown, text)


def visible_lines(text: str) -> str:
    """A block of lines (code, a model's message): its line breaks and tabs laid out, every
    other hidden character escaped (a lone carriage return too, so it cannot go back to
    column 1; a CRLF ending is a line break)."""
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(visible(line, keep="\t") for line in lines)
