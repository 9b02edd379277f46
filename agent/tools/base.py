"""The shape every tool has: a spec from its JSON file, and ``run``.

A tool's description and parameter schema live in ``<name>.json`` beside
its module (model-facing text is a file). ``run`` gets arguments already
checked against the schema and returns a ``ToolResult``; an expected
failure is a ``ToolError`` (its message goes to the model), never another
exception.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

from agent.models.model import ToolSpec
from agent.tools.context import ToolContext


@dataclass(frozen=True)
class ToolResult:
    text: str
    summary: str = ""  # a few words for progress ("pytest: 12 passed")
    ends_task: bool = False
    succeeded: bool = True  # False: the tool ran, but what it ran failed (a command's exit code)


class Tool(Protocol):
    spec: ToolSpec

    def describe(self, args: dict[str, Any]) -> str:
        """What the call is about to do, in a few words ("Reading a.py")."""
        ...

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


def load_spec(name: str) -> ToolSpec:
    """The spec in ``agent/tools/<name>.json``: ``{"description", "parameters"}``."""
    data = json.loads(resources.files(__package__).joinpath(f"{name}.json").read_text("utf-8"))
    return ToolSpec(name, data["description"], data["parameters"])
