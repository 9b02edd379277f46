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
    from agent.config.settings import Settings
    from agent.loop.session import Session
    from agent.models.model import ModelClient, ModelError
    from agent.models.openai_client import OpenAIClient
    from agent.models.scripted import ScriptedModel, ScriptTurn
    from agent.staging.proposal import Ending, Proposal, ProposedChange, RunEnd

__version__ = "0.1.0"

_WHERE = {
    "Ending": "staging.proposal",
    "ProposedChange": "staging.proposal",
    "ModelClient": "models.model",
    "ModelError": "models.model",
    "OpenAIClient": "models.openai_client",
    "RunEnd": "staging.proposal",
    "Proposal": "staging.proposal",
    "ScriptTurn": "models.scripted",
    "ScriptedModel": "models.scripted",
    "Session": "loop.session",
    "Settings": "config.settings",
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
