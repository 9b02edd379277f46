"""The agent's tools: one module each, with its spec in ``<name>.json`` beside it."""

from __future__ import annotations

from . import (
    apply_patch,
    create_file,
    delete_file,
    edit,
    finish,
    grep,
    list_files,
    multi_edit,
    run_command,
    view_file,
)
from .base import Tool, ToolResult

_MODULES = (
    view_file,
    grep,
    list_files,
    edit,
    multi_edit,
    apply_patch,
    create_file,
    delete_file,
    run_command,
    finish,
)


def default_tools() -> dict[str, Tool]:
    """Every tool by name, in the order the model sees them."""
    return {module.TOOL.spec.name: module.TOOL for module in _MODULES}


__all__ = ["Tool", "ToolResult", "default_tools"]
