"""The language server: editor requests in, reviewed WorkspaceEdits out."""

__version__ = "0.1.0"
