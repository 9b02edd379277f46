"""The language server: editor requests in, reviewed WorkspaceEdits out."""

from agent import __version__

__all__ = ["__version__"]
