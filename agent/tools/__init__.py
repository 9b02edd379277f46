"""The agent's tools: one module each, with its spec in ``<name>.json`` beside it.

The tool modules are imported by ``default_tools``, not with the package:
``agent.tools.context`` (what a tool may use) is needed by the language
server from its start, the tools (and the edit engine behind them) only
on the first task.
"""

from __future__ import annotations

import importlib

from agent.tools.base import Tool, ToolResult

_MODULES = (
    "view_file",
    "grep",
    "list_files",
    "edit",
    "multi_edit",
    "apply_patch",
    "create_file",
    "delete_file",
    "run_command",
    "finish",
)


def default_tools() -> dict[str, Tool]:
    """Every tool by name, in the order the model sees them."""
    modules = [importlib.import_module(f".{name}", __name__) for name in _MODULES]
    return {module.TOOL.spec.name: module.TOOL for module in modules}


__all__ = ["Tool", "ToolResult", "default_tools"]
