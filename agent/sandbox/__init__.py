"""Containment for the model's commands (see ``base`` for the interface)."""

from .base import Layout, Mount, Sandbox, Unsandboxed
from .choice import choose

__all__ = ["Layout", "Mount", "Sandbox", "Unsandboxed", "choose"]
