"""What the client says it can do, read once from its capabilities: checked, not assumed.

Every field answers one question the review asks before it sends something:
may a ``window/showDocument`` go out, may a ``WorkspaceEdit`` hold
``CreateFile`` / ``RenameFile`` / ``DeleteFile``, versioned ``documentChanges``
or change annotations, may code actions be literals, does the client
review proposals itself (``experimental.surehand.review``), and does it take
surehand's own notifications (``experimental.surehand.notifications``)?
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsprotocol import types


@dataclass(frozen=True)
class ClientAbilities:
    reviews_itself: bool = False  # announces experimental.surehand.review
    # Takes surehand's own notifications (``surehand/step``, ``surehand/outcome``): announces
    # experimental.surehand.review or .notifications. Others would show them as unknown.
    notifications: bool = False
    show_document: bool = False
    resource_operations: frozenset[str] = frozenset()  # "create", "rename", "delete"
    document_changes: bool = False
    change_annotations: bool = False
    work_done_progress: bool = False
    code_action_literals: bool = False

    @classmethod
    def of(cls, capabilities: types.ClientCapabilities) -> ClientAbilities:
        workspace = capabilities.workspace
        edit = workspace.workspace_edit if workspace else None
        window = capabilities.window
        text = capabilities.text_document
        code_action = text.code_action if text else None
        operations = edit.resource_operations if edit and edit.resource_operations else []
        return cls(
            reviews_itself=reviews_itself(capabilities.experimental),
            notifications=wants_notifications(capabilities.experimental),
            show_document=bool(window and window.show_document and window.show_document.support),
            resource_operations=frozenset(str(op.value) for op in operations),
            # Resource operations exist only in documentChanges: a client announcing them
            # takes documentChanges (Neovim announces those alone).
            document_changes=bool(edit and (edit.document_changes or operations)),
            change_annotations=bool(edit and edit.change_annotation_support),
            work_done_progress=bool(window and window.work_done_progress),
            code_action_literals=bool(code_action and code_action.code_action_literal_support),
        )

    def can(self, operation: str) -> bool:
        """Whether a ``WorkspaceEdit`` may hold this resource operation."""
        return self.document_changes and operation in self.resource_operations


def reviews_itself(experimental: Any) -> bool:
    """``capabilities.experimental.surehand.review`` is set (see docs/review.md)."""
    return bool(_surehand(experimental).get("review"))


def wants_notifications(experimental: Any) -> bool:
    """``experimental.surehand.review`` or ``.notifications`` is set (docs/protocol.md)."""
    surehand = _surehand(experimental)
    return bool(surehand.get("review") or surehand.get("notifications"))


def _surehand(experimental: Any) -> dict[str, Any]:
    surehand = experimental.get("surehand") if isinstance(experimental, dict) else None
    return surehand if isinstance(surehand, dict) else {}
