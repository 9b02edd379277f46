"""Containment for the model's commands (see ``base`` for the interface)."""

from agent.execution.sandbox.base import Layout, Mount, Sandbox, Unsandboxed
from agent.execution.sandbox.choice import choose

__all__ = ["Layout", "Mount", "Sandbox", "Unsandboxed", "choose"]
