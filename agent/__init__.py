"""The agent: a tool loop over an overlay of the workspace, verified in a shadow copy.

``Session(root, client, settings).run(task)`` returns a ``Proposal``; the
language server and the terminal front end are two callers of it.

The names below are imported when first used, not with the package: the
model client pulls in the ``openai`` package, which a language server that
has not been given a task yet does not need (it would slow its start).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .model import ModelClient, ModelError
    from .openai_client import OpenAIClient
    from .proposal import Ending, Proposal, ProposedChange, RunEnd
    from .scripted import ScriptedModel, ScriptTurn
    from .session import Session
    from .settings import Settings

__version__ = "0.1.0"

_WHERE = {
    "Ending": "proposal",
    "ProposedChange": "proposal",
    "ModelClient": "model",
    "ModelError": "model",
    "OpenAIClient": "openai_client",
    "RunEnd": "proposal",
    "Proposal": "proposal",
    "ScriptTurn": "scripted",
    "ScriptedModel": "scripted",
    "Session": "session",
    "Settings": "settings",
}

__all__ = [
    "Ending",
    "ModelClient",
    "ModelError",
    "OpenAIClient",
    "Proposal",
    "ProposedChange",
    "RunEnd",
    "ScriptTurn",
    "ScriptedModel",
    "Session",
    "Settings",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
