"""The language server: editor requests in, reviewed WorkspaceEdits out."""
