"""The patch format (``*** Begin Patch`` ... ``*** End Patch``): parse, render, apply."""

from .apply import FileChange, PatchResult, apply_patch
from .detect import looks_like_patch
from .model import AddFile, Chunk, DeleteFile, FileOp, Patch, UpdateFile
from .parser import PatchStream, parse_patch
from .render import render_patch

__all__ = [
    "AddFile",
    "Chunk",
    "DeleteFile",
    "FileChange",
    "FileOp",
    "Patch",
    "PatchResult",
    "PatchStream",
    "UpdateFile",
    "apply_patch",
    "looks_like_patch",
    "parse_patch",
    "render_patch",
]
