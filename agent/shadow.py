"""A copy of the workspace in a temporary directory, for commands to run in.

Tests must see the agent's staged changes, and the user's tree must stay
untouched, so commands run in a copy that ``write`` keeps equal to the
overlay: the files on disk, then the staged texts and open buffers over them.

What is copied: in a git repository, what ``git ls-files --cached --others
--exclude-standard`` lists (tracked and unignored files); elsewhere, a walk
that skips what the root's ``.gitignore`` ignores. Symbolic links are copied
as links, with their target as it is.

What is linked instead: ignored directories, and directories with a name in
``LINKED_NAMES`` that hold no tracked file (a virtualenv or ``node_modules``
without a ``.gitignore``), so tests can import the virtualenv's packages
without copying them; nested repositories and submodules, too; and
``.git``, so ``git status`` and ``git diff`` in the copy show the staged
changes against the user's history. Build outputs (``PRIVATE_NAMES``) are
neither copied nor linked: commands make their own. Caches named in
``SKIPPED_NAMES`` are left out: tools rebuild them inside the copy.

How a linked directory is linked depends on who runs the commands. For a
sandbox (``mount_points=True``) the copy holds an empty directory there,
and the sandbox shows the real one over it, read-only. Without one, it is
a symbolic link to the real directory, and a command can change the
user's files through it: that is why, without a sandbox, every command is
put to the user first. ``write`` never writes through a link: a staged
path inside a linked directory is reported as refused.

The copy is the folder ``copy`` beside an ``owner`` file (``shadow_owner``):
``close`` removes both, and the copies of a process that died without
closing them are removed when the next copy is made.

Syncing is incremental. The copy remembers, for each path it holds, what it
wrote (the source file's size, mtime and mode, or a digest of a staged
text) and the size and mtime of the copy's file afterwards; a path is
written again only when one of them changes. So a file a command modified
in the copy is restored too.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from editing.disk.paths import why_refused

from . import shadow_owner
from .shadow_scan import scan, under_any


class _Want(NamedTuple):
    """What a path of the copy should hold: a source file as it was, or a staged text."""

    version: tuple[int, int] | bytes  # the source's size and mtime_ns, or the text's digest
    mode: int  # type and permission bits, as ``st_mode``


Stamp = tuple[int, int]  # the copy's file after writing it: size, mtime_ns


@dataclass(frozen=True)
class SyncReport:
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # staged paths that could not be applied


class ShadowCopy:
    """The copy: made and filled on construction, removed by ``close``.

    ``texts`` go over the disk as in ``write``; ``setup`` reports that first write.
    """

    def __init__(
        self,
        source: Path,
        texts: Mapping[str, str | None] | None = None,
        *,
        mount_points: bool = False,
    ) -> None:
        self.source = source.resolve()
        shadow_owner.sweep()  # copies a crashed process left behind
        self.folder = shadow_owner.make_folder()
        self.root = self.folder / "copy"
        self.root.mkdir()
        self.mount_points = mount_points
        self.links: set[str] = set()
        self._held: dict[str, tuple[_Want, Stamp | None]] = {}
        try:
            self.setup = self.write(texts or {})
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> ShadowCopy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        # rmtree removes links as links: it never follows them into the user's tree.
        shutil.rmtree(self.folder, ignore_errors=True)

    def write(self, texts: Mapping[str, str | None]) -> SyncReport:
        """Bring the copy up to date with the disk and ``texts`` (path to text, None: deleted)."""
        files, links = scan(self.source)
        wanted = {rel: _Want((st.st_size, st.st_mtime_ns), st.st_mode) for rel, st in files.items()}
        data: dict[str, bytes] = {}
        report = SyncReport()
        for rel, text in texts.items():
            if not _plain(rel) or rel in links or under_any(rel, links):
                report.refused.append(rel)
            elif text is None:
                wanted.pop(rel, None)
            else:
                data[rel] = text.encode("utf-8")
                digest = hashlib.blake2b(data[rel], digest_size=16).digest()
                wanted[rel] = _Want(digest, _text_mode(files.get(rel)))
        inside = _Inside(self.root)
        self._prune_and_link(wanted, links, inside, report)
        for rel, want in wanted.items():
            held = self._held.get(rel)
            if held is not None and held == (want, _stamp(f"{self.root}/{rel}")):
                continue
            if inside.make(rel):
                self._put(rel, want, data.get(rel))
                report.written.append(rel)
            else:
                self._held.pop(rel, None)
                if rel in data:
                    report.refused.append(rel)
        return report

    def _prune_and_link(
        self, wanted: dict[str, _Want], links: set[str], inside: _Inside, report: SyncReport
    ) -> None:
        """Remove what the copy should no longer hold, then link the new linked folders.

        In this order, so a file is never removed through a new link.
        """
        for link in sorted(self.links - links):
            if inside(link):
                _unlink(self.root / link)
        for rel in [rel for rel in self._held if rel not in wanted]:
            del self._held[rel]
            if inside(rel):
                _remove(self.root, rel)
                report.removed.append(rel)
        for link in sorted(links):
            path, real = self.root / link, self.source / link
            if self.mount_points:  # new, or a command removed it
                missing = link not in self.links or path.is_symlink() or not path.exists()
            else:
                missing = link not in self.links or not path.is_symlink()
            if missing and inside.make(link):
                _clear(path)
                if not self.mount_points:
                    path.symlink_to(real, target_is_directory=True)
                elif real.is_dir():
                    path.mkdir()
                else:  # a .git file (a worktree's or a submodule's)
                    path.touch()
        self.links = links

    def _put(self, rel: str, want: _Want, data: bytes | None) -> None:
        """Write one file of the copy, replacing (never following) what is there."""
        target, source = f"{self.root}/{rel}", f"{self.source}/{rel}"
        if stat.S_ISLNK(want.mode):
            _clear(Path(target))
            Path(target).symlink_to(Path(source).readlink())
            self._held[rel] = (want, _stamp(target))
            return
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:  # O_EXCL: creating is one call when nothing is there, as at set-up
            fd = os.open(target, flags, want.mode & 0o777)
        except FileExistsError:
            _clear(Path(target))
            fd = os.open(target, flags, want.mode & 0o777)
        with os.fdopen(fd, "wb") as out:
            if data is not None:
                out.write(data)
            else:
                with Path(source).open("rb") as original:
                    shutil.copyfileobj(original, out)
            out.flush()
            written = os.fstat(fd)
        self._held[rel] = (want, (written.st_size, written.st_mtime_ns))


class _Inside:
    """Whether a path's folder is in the copy (no link leads out of it).

    Commands can change the copy between syncs, so this is checked again at
    each sync, once per folder.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.prefix = str(root) + os.sep
        self.known: dict[str, bool] = {"": True}
        self.made: set[str] = {""}

    def __call__(self, rel: str) -> bool:
        folder = rel.rpartition("/")[0]
        if folder not in self.known:
            self.known[folder] = os.path.realpath(self.root / folder).startswith(self.prefix)
        return self.known[folder]

    def make(self, rel: str) -> bool:
        """Whether the folder is in the copy, created if it is."""
        if not self(rel):
            return False
        folder = rel.rpartition("/")[0]
        if folder not in self.made:
            (self.root / folder).mkdir(parents=True, exist_ok=True)
            self.made.add(folder)
        return True


def _text_mode(source: os.stat_result | None) -> int:
    """A staged text's mode: a regular file, executable when the source file is."""
    executable = source is not None and stat.S_ISREG(source.st_mode) and source.st_mode & 0o111
    return stat.S_IFREG | (0o755 if executable else 0o644)


def _stamp(path: str) -> Stamp | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _clear(path: Path) -> None:
    """Make room for a new file or link at ``path`` (a link is removed, never followed)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _unlink(path: Path) -> None:
    """Remove a link, or an empty mount point, that is no longer wanted."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        with contextlib.suppress(OSError):  # not empty: a command's files, left as they are
            path.rmdir()


def _remove(root: Path, rel: str) -> None:
    """Remove ``rel`` from the copy, and the folders it leaves empty."""
    path = root / rel
    _clear(path)
    for parent in path.parents:
        if parent == root:
            break
        try:
            parent.rmdir()
        except OSError:
            break


def _plain(rel: str) -> bool:
    """A path the copy may hold: relative, no ``..``, not in ``.git`` (the engine's rule)."""
    return why_refused(rel, to_change=True) is None
