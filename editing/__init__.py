"""The hand: pure text in, new text or a typed refusal out.

No file system, no LSP, no model: callers pass a file's text and a request;
``apply_edit`` / ``apply_edits`` return an ``EditResult`` or raise an
``EditError`` (see ``errors``), and ``check_write`` guards whole-file writes.
"""

from .edit import Edit, EditResult, apply_edit, apply_edits
from .errors import EditError, Reason
from .matcher import Level
from .report import LineRange
from .write import WriteResult, check_write

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
