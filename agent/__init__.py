"""The agent: a tool loop over an overlay of the workspace, verified in a shadow copy.

``Session(root, client, settings).run(task)`` returns a ``Proposal``; the
language server and the terminal front end are two callers of it.
"""

from .model import ModelClient, ModelError
from .openai_client import OpenAIClient
from .proposal import Ending, FileChange, Outcome, Proposal
from .scripted import ScriptedModel, ScriptTurn
from .session import Session
from .settings import Settings

__all__ = [
    "Ending",
    "FileChange",
    "ModelClient",
    "ModelError",
    "OpenAIClient",
    "Outcome",
    "Proposal",
    "ScriptTurn",
    "ScriptedModel",
    "Session",
    "Settings",
]
