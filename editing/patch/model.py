"""A parsed patch: frozen file operations and the chunks of an update."""

from __future__ import annotations

from dataclasses import dataclass, field

CONTEXT, REMOVED, ADDED = " ", "-", "+"


@dataclass(frozen=True)
class Chunk:
    """One ``@@`` section of an update.

    ``anchors`` are the texts of its ``@@`` lines (outermost first, e.g. a
    class then a method); ``lines`` are ``(marker, text)`` pairs with marker
    ``" "``, ``"-"`` or ``"+"``; ``end_of_file`` marks a chunk that must
    match the file's last lines.
    """

    anchors: tuple[str, ...]
    lines: tuple[tuple[str, str], ...]
    end_of_file: bool = False
    line: int = field(default=0, compare=False)  # its first line in the patch text

    @property
    def old_lines(self) -> list[str]:
        return [text for marker, text in self.lines if marker != ADDED]

    @property
    def new_lines(self) -> list[str]:
        return [text for marker, text in self.lines if marker != REMOVED]


@dataclass(frozen=True)
class AddFile:
    path: str
    content: str
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class DeleteFile:
    path: str
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class UpdateFile:
    path: str
    chunks: tuple[Chunk, ...]
    move_to: str | None = None
    line: int = field(default=0, compare=False)


FileOp = AddFile | DeleteFile | UpdateFile


@dataclass(frozen=True)
class Patch:
    ops: tuple[FileOp, ...]

    @property
    def paths(self) -> list[str]:
        """Every path the operations name (``Move to`` destinations included), in order."""
        paths = []
        for op in self.ops:
            paths.append(op.path)
            if isinstance(op, UpdateFile) and op.move_to:
                paths.append(op.move_to)
        return paths
