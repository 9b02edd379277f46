"""Markdown code fences around a request's old and new text.

A model that writes its answers in Markdown sometimes wraps ``old`` and
``new`` each in a fence (```` ```python ... ``` ````). The fences are no part
of the text when both carry the same ones and old is found only without
them; in a Markdown file whose fences are content, old with its fences
matches as it is and is used as it is.
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"^(`{3,}|~{3,})[\w.+#-]*[ \t]*$")


def _unwrap(text: str) -> tuple[str, str, str] | None:
    """The fence's opening and closing lines and the text between them, if
    ``text`` is fenced (one fence around all of it)."""
    lines = text.split("\n")
    final = lines[-1] == ""
    if final:
        lines.pop()
    if len(lines) < 2:
        return None
    opening = _OPEN.match(lines[0])
    if opening is None or lines[-1].rstrip() != opening.group(1):
        return None
    inner = lines[1:-1]
    body = "\n".join(inner) + ("\n" if final and inner else "")
    return lines[0].rstrip(), lines[-1].rstrip(), body


def strip_request(old: str, new: str) -> tuple[str, str] | None:
    """``old`` and ``new`` without the fences both are wrapped in, when they
    are wrapped alike (the same opening and closing lines) and old has text."""
    fenced_old, fenced_new = _unwrap(old), _unwrap(new)
    if fenced_old is None or fenced_new is None or fenced_old[:2] != fenced_new[:2]:
        return None
    if not fenced_old[2].strip():
        return None
    return fenced_old[2], fenced_new[2]
