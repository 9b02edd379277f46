"""Write a ``Patch`` back as text in the canonical form ``parse_patch`` reads."""

from __future__ import annotations

from .model import AddFile, DeleteFile, Patch, UpdateFile
from .parser import BEGIN, END, END_OF_FILE


def render_patch(patch: Patch) -> str:
    out = [BEGIN]
    for op in patch.ops:
        if isinstance(op, AddFile):
            out.append(f"*** Add File: {op.path}")
            out.extend(
                "+" + line for line in op.content.removesuffix("\n").split("\n") if op.content
            )
        elif isinstance(op, DeleteFile):
            out.append(f"*** Delete File: {op.path}")
        elif isinstance(op, UpdateFile):
            out.append(f"*** Update File: {op.path}")
            if op.move_to:
                out.append(f"*** Move to: {op.move_to}")
            for chunk in op.chunks:
                out.extend(f"@@ {anchor}" for anchor in chunk.anchors)
                if not chunk.anchors:
                    out.append("@@")
                out.extend(marker + text for marker, text in chunk.lines)
                if chunk.end_of_file:
                    out.append(END_OF_FILE)
    out.append(END)
    return "\n".join(out) + "\n"
