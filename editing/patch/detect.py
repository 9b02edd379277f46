"""Recognise a patch that arrived as plain model output instead of a tool call."""

from __future__ import annotations

import re

_BEGIN = re.compile(r"^\s*\*\*\* Begin Patch\s*$", re.MULTILINE)
_OPERATION = re.compile(r"^\s*\*\*\* (?:Add|Update|Delete) File: \S", re.MULTILINE)


def looks_like_patch(text: str) -> bool:
    """Whether ``text`` clearly holds a patch (a begin line and a file operation after it).

    For a caller that wants to tell the model to send such a patch through
    the apply_patch tool rather than as its answer.
    """
    begin = _BEGIN.search(text)
    return bool(begin and _OPERATION.search(text, begin.end()))
