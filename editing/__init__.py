"""The hand: pure text in, new text or a typed refusal out.

No file system, no LSP, no model: callers pass a file's text and a request;
``apply_edit`` / ``apply_edits`` return an ``EditResult`` or raise an
``EditError`` (see ``errors``), and ``check_write`` guards whole-file writes.

The names below are imported when first used: a caller that needs one
module (``editing.report``, ``editing.disk.workdir``) does not load the whole
engine with it, which keeps the language server's start short.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .edit import EditResult, apply_edit, apply_edits
    from .edit_request import Edit
    from .errors import EditError, Reason
    from .matches import Level
    from .report import LineRange
    from .write import WriteResult, check_write

_WHERE = {
    "Edit": "edit_request",
    "EditError": "errors",
    "EditResult": "edit",
    "Level": "matches",
    "LineRange": "report",
    "Reason": "errors",
    "WriteResult": "write",
    "apply_edit": "edit",
    "apply_edits": "edit",
    "check_write": "write",
}

__all__ = [
    "Edit",
    "EditError",
    "EditResult",
    "Level",
    "LineRange",
    "Reason",
    "WriteResult",
    "apply_edit",
    "apply_edits",
    "check_write",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
