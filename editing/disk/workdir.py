"""Files inside one directory, for the command line.

Every path a request names is relative to the directory and must stay in
it (the rule is ``paths``): absolute paths, ``..``, ``.git/`` and symlinks
that lead out are refused. Only UTF-8 text up to ``MAX_BYTES`` is read
(bytes as they are: a CRLF file stays CRLF, a BOM stays). Writes go to a temporary file in the
same folder that is then renamed over the target, so a file is never left
half written; all files are staged before the first rename.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ..errors import InvalidRequest
from .paths import OutsideRoot, resolve_inside

MAX_BYTES = 8 * 1024 * 1024


class NotText(ValueError):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def read_text(path: Path, max_bytes: int) -> str:
    """A file's UTF-8 text as it is (line endings, BOM), or ``NotText`` saying why not."""
    if not path.is_file():
        raise NotText("is not a regular file")
    size = path.stat().st_size
    if size > max_bytes:
        raise NotText(f"is too large ({size:,} bytes; the limit is {max_bytes:,})")
    data = path.read_bytes()
    if b"\0" in data:
        raise NotText("is a binary file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotText("is not UTF-8 text") from None


class Workdir:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def resolve(self, relative: str) -> Path:
        """The absolute path for ``relative``, or a refusal when it leaves the directory."""
        try:
            return resolve_inside(self.root, relative, to_change=True)
        except OutsideRoot as error:
            raise _refuse(relative, error.why) from None

    def read(self, relative: str) -> str | None:
        """The text of a file, None when there is none; refuses what is not text."""
        path = self.resolve(relative)
        if not path.exists():
            return None
        try:
            return read_text(path, MAX_BYTES)
        except NotText as error:
            raise _refuse(relative, error.why) from None

    def write(self, files: dict[str, str | None]) -> None:
        """Write every file (None deletes it), each replaced atomically."""
        staged: list[tuple[Path, Path]] = []
        try:
            for relative, text in files.items():
                if text is not None:
                    target = self.resolve(relative)
                    staged.append((self._stage(target, text), target))
            for temporary, target in staged:
                temporary.replace(target)
            staged = []
            for relative, text in files.items():
                if text is None:
                    self.resolve(relative).unlink(missing_ok=True)
        finally:
            for temporary, _ in staged:
                with contextlib.suppress(FileNotFoundError):
                    temporary.unlink()

    @staticmethod
    def _stage(target: Path, text: str) -> Path:
        target.parent.mkdir(parents=True, exist_ok=True)
        descriptor, name = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(text.encode("utf-8"))
        staged = Path(name)
        if target.exists():
            staged.chmod(target.stat().st_mode & 0o7777)
        return staged


def _refuse(relative: str, why: str) -> InvalidRequest:
    return InvalidRequest(f"Refused: {relative!r} {why}. Nothing was changed.", path=relative)
