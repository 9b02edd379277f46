"""Why the engine refused a request, as a small typed hierarchy.

Every refusal carries a stable reason code, the path it concerns, the line of
that file it points at when there is one (a parse error: the line of the
patch), and a message written for the model that says
what went wrong and what to send next. A refusal never changes any text.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar


class Reason(StrEnum):
    NOT_FOUND = "not_found"
    AMBIGUOUS = "ambiguous"
    ALREADY_APPLIED = "already_applied"
    PLACEHOLDER = "placeholder"
    DISPROPORTIONATE = "disproportionate"
    NO_CHANGE = "no_change"
    INVALID_REQUEST = "invalid_request"
    DESTRUCTIVE_WRITE = "destructive_write"
    EXISTS = "exists"
    PARSE_ERROR = "parse_error"


class EditError(Exception):
    """A refused edit. Subclasses fix the reason code."""

    reason: ClassVar[Reason]

    def __init__(self, message: str, *, path: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def __str__(self) -> str:
        return self.message


class NotFound(EditError):
    reason = Reason.NOT_FOUND


class Ambiguous(EditError):
    reason = Reason.AMBIGUOUS


class AlreadyApplied(EditError):
    reason = Reason.ALREADY_APPLIED


class Placeholder(EditError):
    reason = Reason.PLACEHOLDER


class Disproportionate(EditError):
    reason = Reason.DISPROPORTIONATE


class NoChange(EditError):
    reason = Reason.NO_CHANGE


class InvalidRequest(EditError):
    reason = Reason.INVALID_REQUEST


class DestructiveWrite(EditError):
    reason = Reason.DESTRUCTIVE_WRITE


class Exists(EditError):
    reason = Reason.EXISTS


class PatchParseError(EditError):
    """A patch that is not well formed; ``line`` is its 1-based line in the patch text.

    A different type from every apply error: the patch was never applied.
    """

    reason = Reason.PARSE_ERROR
