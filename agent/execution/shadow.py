"""A copy of the workspace in a temporary directory, for commands to run in.

Tests must see the agent's staged changes, and the user's tree must stay
untouched, so commands run in a copy that ``write`` keeps equal to the
overlay: the files on disk, then the staged texts and open buffers over them.
In a sandbox that can mount an overlay of the workspace,
``agent.execution.shadow_overlay`` gives the same without copying the files.

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

A copy closed with ``keep=True`` (a session that ended, as at a reset) is
kept for the next copy of the same workspace in this process: ``open``
takes it back, removes what commands made in it, and syncs it as before
a command, instead of copying the tree again. One copy is kept at a time,
and removed when the process exits.

Syncing is incremental. The copy remembers, for each path it holds, what it
wrote (the source file's size, mtime and mode, or a digest of a staged
text) and the size and mtime of the copy's file afterwards; a path is
written again only when one of them changes. So a file a command modified
(or deleted) in the copy is restored too; files a command created are left
(until the copy is taken back by the next session). Which of the copy's
files a command may have changed is asked of ``find`` (``shadow_changes``):
when the command ends, while its output is read, if none of its processes
can outlive it (``command_ended``); else at the sync, in a copy of
``FIND_FROM`` files or more (a smaller one is looked at file by file).

In a git repository a sync does not scan the workspace: it looks at the
paths ``texts`` gives or gave last time, those ``git status`` lists as
changed now or last time (a file in neither is as committed both times, so
unchanged), and the copy's own files (what the last command changed, looked
at while git runs). The scan is done again when the commit checked out or
the ignored folders change, or when a changed path may change what is
linked (a ``.gitignore``, a folder named in ``LINKED_NAMES``, a nested
repository). Outside git every sync scans.

Its size: one class whose sync, scan, kept copy and writes share the record
of what the copy holds; the listing (``shadow_scan``), what changed
(``shadow_changes``) and ownership (``shadow_owner``) are modules of their
own. The writing of files is the next part to move out.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import stat
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from agent.execution import shadow_owner
from agent.execution.sandbox.overlay import OverlayLayers
from agent.execution.shadow_changes import CommandTrail, Folders, margin_ns, to_look_at
from agent.execution.shadow_scan import (
    Status,
    StatusQuery,
    repository_prefix,
    rule,
    scan,
    under_any,
)
from editing.disk.paths import why_refused

COPY_THREADS = 2  # a scan's copy runs in threads
CHUNK = 1 << 30  # bytes asked of the kernel per copy call
# From this many files, find (a process, beside git status) looks at the copy sooner than
# an lstat of each file from Python (a Linux-sized tree: 315 against 442 ms); below, starting
# it costs more than it saves.
FIND_FROM = 2_000
RECENT_NS = 2_000_000_000  # files changed this soon before a scan are looked at again


class _Want(NamedTuple):
    """What a path of the copy should hold: a source file as it was, or a staged text."""

    version: tuple[int, int] | bytes  # the source's size and mtime_ns, or the text's digest
    mode: int  # type and permission bits, as ``st_mode``


# The copy's file after writing it: size, mtime_ns, mode and ctime_ns (which no command
# can set back: a file rewritten with its old size and mtime is still seen as changed)
Stamp = tuple[int, int, int, int]
SourceKey = tuple[int, int, int, int]  # a source path as last looked at


@dataclass(frozen=True)
class SyncReport:
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # staged paths that could not be applied


class ShadowCopy:
    """The copy: made and filled on construction, removed by ``close``.

    ``texts`` go over the disk as in ``write``; ``setup`` reports that first write.
    """

    kind = "copy"
    layers: OverlayLayers | None = None  # no overlay: the copy is the command's tree

    def __init__(
        self,
        source: Path,
        texts: Mapping[str, str | None] | None = None,
        *,
        mount_points: bool = False,
    ) -> None:
        self.source = source.resolve()
        shadow_owner.sweep()  # copies a crashed process left behind
        self.folder = shadow_owner.make_folder(self.source)
        self.root = self.folder / "copy"
        self.root.mkdir()
        self.mount_points = mount_points
        self.links: set[str] = set()
        self._held: dict[str, tuple[_Want, Stamp | None]] = {}
        self._wants: dict[str, _Want] = {}  # every path of the copy, as last synced
        self._texts: set[str] = set()  # the paths ``texts`` gave last time
        self._prefix = repository_prefix(self.source)
        self._status: Status | None = None  # git's, when the copy was last synced
        self._recheck: set[str] = set()  # paths to look at again next time
        # paths git listed as changed: their source's stamp when looked at, and what was wanted
        self._seen: dict[str, tuple[SourceKey | None, _Want | None]] = {}
        self._folders: Folders | None = None  # the held files by folder, made when needed
        self._trail = CommandTrail(self.root, margin_ns(self.root))
        self._synced_ns: int | None = None  # when the last sync ended
        try:
            self.setup = self.write(texts or {})
        except BaseException:
            self.close()
            raise
        self._clean_ns = time.time_ns()  # since when commands may have made files in it

    @classmethod
    def open(
        cls,
        source: Path,
        texts: Mapping[str, str | None] | None = None,
        *,
        mount_points: bool = False,
    ) -> ShadowCopy:
        """The copy kept from the last session of ``source`` made ready, else a new one."""
        kept = _take_kept(source.resolve(), mount_points)
        if kept is not None:
            query = kept._status_query()  # git looks at the workspace meanwhile
            try:
                changed = kept._clean()
                if changed is not None:
                    kept.setup = kept._sync(texts or {}, changed, query)
                    return kept
            except OSError:
                pass  # made anew below
            if query is not None:
                query.result()  # not left running
            kept.close()
        return cls(source, texts, mount_points=mount_points)

    def __enter__(self) -> ShadowCopy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self, *, keep: bool = False) -> None:
        """Remove the copy, or with ``keep`` hold it for ``open`` in this process."""
        if keep:
            _keep(self)
        else:
            self._trail.stop()
            shadow_owner.remove(self.folder)

    def command_ended(self, *, contained: bool, stopped: bool = False) -> None:
        """A command that ran in the copy ended: what it changed is looked for now, while
        its output is read, when ``contained`` (none of its processes can outlive it) and
        it was not ``stopped`` (killed at its time limit, or cancelled); else at the sync."""
        self._trail.ended(self._synced_ns, contained=contained, stopped=stopped)

    def _clean(self) -> set[str] | None:
        """Remove what commands made in the copy since it was clean; returns the paths
        changed since, None when they cannot be told (the copy is not to be used again)."""
        began = time.time_ns()
        changed = self._trail.since_clean(self._clean_ns)
        if changed is None:
            return None
        folders = self._held_folders()
        inside = _Inside(self.root)  # paths gathered earlier may lie past a link made since
        removed: set[str] = set()
        for rel in sorted(changed, key=len):  # a folder before what it holds
            if not rel or rel in self._held or folders.holds(rel) or rel in self.links:
                continue
            if under_any(rel, self.links) or under_any(rel, removed) or not inside(rel):
                continue
            _clear(self.root / rel)
            removed.add(rel)
        self._clean_ns = began
        self._trail.cleaned()
        return changed

    def find(self, rel: str) -> Path | None:
        """The path holding what the copy has at ``rel``, None where it has nothing."""
        path = self.root / rel
        return path if os.path.lexists(path) else None

    def write(self, texts: Mapping[str, str | None]) -> SyncReport:
        """Bring the copy up to date with the disk and ``texts`` (path to text, None: deleted)."""
        return self._sync(texts, None)

    def _status_query(self) -> StatusQuery | None:
        return StatusQuery(self.source, self._prefix) if self._prefix is not None else None

    def _sync(
        self,
        texts: Mapping[str, str | None],
        changed: set[str] | None,
        query: StatusQuery | None = None,
    ) -> SyncReport:
        """``write``, given the copy's paths changed since the last sync where known."""
        began = time.time_ns()
        query = query or self._status_query()
        on_ground = query is not None and self._status is not None
        if changed is None and self._synced_ns is not None:
            # What the last command changed, found when it ended; else looked for now,
            # while git looks at the workspace (a scan looks at every file anyway).
            look = on_ground and len(self._held) >= FIND_FROM
            changed = self._trail.since_sync(self._synced_ns, look=look)
        if query is None or self._status is None:
            return self._write_all(texts, query, began)
        touched = self._touched(changed)
        status = query.result()
        if status is None or not self._same_ground(status):
            return self._write_all(texts, None, began)
        paths = status.changed | self._status.changed | self._recheck | texts.keys() | self._texts
        disk = self._disk_wants(paths, status)
        if disk is None:  # a change to what is linked or ignored: the scan says
            return self._write_all(texts, None, began)
        report = SyncReport()
        wanted, data = self._with_texts(disk, texts, self.links, report)
        inside = _Inside(self.root)
        gone = [rel for rel, want in wanted.items() if want is None and rel in self._held]
        self._prune_and_link(gone, self.links, inside, report)
        for rel in sorted(wanted.keys() | touched):
            want = wanted[rel] if rel in wanted else self._wants[rel]
            if want is None:
                self._wants.pop(rel, None)
            else:
                self._wants[rel] = want
                self._sync_one(rel, want, data.get(rel), inside, report)
        self._status, self._texts = status, set(texts)
        self._recheck = _recent(disk, began)
        self._synced_ns = time.time_ns()
        return report

    def _touched(self, changed: set[str] | None) -> set[str]:
        """The copy's files that differ from what the last sync left there, looked for
        among the ``changed`` paths (every file when not told)."""
        paths: Iterable[str] = self._held
        if changed is not None:
            paths = to_look_at(changed, self._held, self._held_folders(), self.root)
        return {rel for rel in paths if _stamp(f"{self.root}/{rel}") != self._held[rel][1]}

    def _held_folders(self) -> Folders:
        if self._folders is None:
            self._folders = Folders(self._held)
        return self._folders

    def _write_all(
        self, texts: Mapping[str, str | None], query: StatusQuery | None, began: int
    ) -> SyncReport:
        """The sync from a scan of the workspace: at set-up, and when the ground moved."""
        query = query or self._status_query()
        files, links = scan(self.source)
        disk: dict[str, _Want | None] = {
            rel: _Want((st.st_size, st.st_mtime_ns), st.st_mode) for rel, st in files.items()
        }
        report = SyncReport()
        wanted, data = self._with_texts(disk, texts, links, report)
        inside = _Inside(self.root)
        gone = [rel for rel in self._held if wanted.get(rel) is None]
        self._prune_and_link(gone, links, inside, report)
        self._wants = {rel: want for rel, want in wanted.items() if want is not None}
        for rel, want in self._wants.items():
            self._sync_one(rel, want, data.get(rel), inside, report)
        self._texts = set(texts)
        status = query.result() if query is not None else None
        self._status = status if status is not None and not status.moved else None
        self._remember(self._status, files, disk)
        self._recheck = _recent(disk, began)
        self._synced_ns = time.time_ns()
        return report

    def _same_ground(self, status: Status) -> bool:
        """Whether the last status can be built on: the same commit, the same ignored folders."""
        assert self._status is not None
        return (
            not status.moved
            and status.head == self._status.head
            and status.ignored == self._status.ignored
        )

    def _disk_wants(self, paths: Iterable[str], status: Status) -> dict[str, _Want | None] | None:
        """What each of ``paths`` should hold from the disk (None: nothing), or None when a
        path that may change what is linked (a ``.gitignore``, a folder of interest, a
        nested repository) changed since it was last looked at: the scan decides then."""
        assert self._status is not None
        untracked = status.untracked | self._status.untracked
        wanted: dict[str, _Want | None] = {}
        seen: dict[str, tuple[SourceKey | None, _Want | None]] = {}
        for rel in paths:
            name = rel.rstrip("/")
            if name in self.links or under_any(name, self.links):
                wanted[rel] = None
                continue
            st = _lstat(f"{self.source}/{name}")
            key = _source_key(st)
            before = self._seen.get(rel)
            if before is not None and before[0] == key:  # as it was: as it was decided
                seen[rel] = before
                wanted[rel] = before[1]
                continue
            action = rule(name, rel in untracked)
            special = rel != name or name.rpartition("/")[2] == ".gitignore"
            if special or action == "scan" or (st is not None and stat.S_ISDIR(st.st_mode)):
                return None
            if st is None or action == "skip" or not _copied(st):
                wanted[rel] = None
            else:
                wanted[rel] = _Want((st.st_size, st.st_mtime_ns), st.st_mode)
            seen[rel] = (key, wanted[rel])
        self._seen = seen
        return wanted

    def _remember(
        self,
        status: Status | None,
        files: Mapping[str, os.stat_result],
        disk: Mapping[str, _Want | None],
    ) -> None:
        """After a scan: how the paths git lists as changed were decided, so that they
        need no scan again until they change. Only decisions the scan's own look at a
        file or the path alone made are kept (not those of a file that came after it)."""
        self._seen = {}
        if status is None:
            return
        for rel in status.changed:
            name = rel.rstrip("/")
            if name in files:
                self._seen[rel] = (_source_key(files[name]), disk[name])
            elif rel != name or rule(name, rel in status.untracked) != "copy":
                self._seen[rel] = (_source_key(_lstat(f"{self.source}/{name}")), None)

    def _with_texts(
        self,
        disk: dict[str, _Want | None],
        texts: Mapping[str, str | None],
        links: set[str],
        report: SyncReport,
    ) -> tuple[dict[str, _Want | None], dict[str, bytes]]:
        """``disk`` with ``texts`` over it, and their bytes. A path that cannot be staged
        (inside a link, outside the copy) is reported as refused."""
        wanted = dict(disk)
        data: dict[str, bytes] = {}
        for rel, text in texts.items():
            if not _plain(rel) or rel in links or under_any(rel, links):
                report.refused.append(rel)
            elif text is None:
                wanted[rel] = None
            else:
                data[rel] = text.encode("utf-8")
                digest = hashlib.blake2b(data[rel], digest_size=16).digest()
                wanted[rel] = _Want(digest, _text_mode(disk.get(rel) or self._wants.get(rel)))
        return wanted, data

    def _sync_one(
        self, rel: str, want: _Want, data: bytes | None, inside: _Inside, report: SyncReport
    ) -> None:
        """Write ``rel`` unless the copy holds it as wanted already."""
        held = self._held.get(rel)
        if held is not None and held == (want, _stamp(f"{self.root}/{rel}")):
            return
        if inside.make(rel):
            self._put(rel, want, data)
            report.written.append(rel)
        else:
            if self._held.pop(rel, None) is not None:
                self._folders = None
            if data is not None:
                report.refused.append(rel)

    def _prune_and_link(
        self, gone: Iterable[str], links: set[str], inside: _Inside, report: SyncReport
    ) -> None:
        """Remove what the copy should no longer hold, then link the new linked folders.

        In this order, so a file is never removed through a new link.
        """
        for link in sorted(self.links - links):
            if inside(link):
                _unlink(self.root / link)
        for rel in sorted(gone):
            del self._held[rel]
            self._folders = None
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
        if rel not in self._held:
            self._folders = None
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
        try:
            if data is not None:
                _write_bytes(fd, data)
            else:
                _copy_file(source, fd)
            written = os.fstat(fd)
        finally:
            os.close(fd)
        self._held[rel] = (want, _stamp_of(written))


# The copy a session left, for the next session of the same workspace: one at a time.
_kept: dict[tuple[Path, bool], ShadowCopy] = {}
_kept_lock = threading.Lock()


def _keep(copy: ShadowCopy) -> None:
    with _kept_lock:
        before = list(_kept.values())
        _kept.clear()
        _kept[copy.source, copy.mount_points] = copy
    for old in before:
        if old is not copy:
            old.close()


def _take_kept(source: Path, mount_points: bool) -> ShadowCopy | None:
    with _kept_lock:
        return _kept.pop((source, mount_points), None)


@atexit.register
def discard_kept() -> None:
    """Remove the kept copy (at exit, and wherever no later session will want it)."""
    with _kept_lock:
        kept = list(_kept.values())
        _kept.clear()
    for copy in kept:
        copy.close()


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


def _text_mode(source: _Want | None) -> int:
    """A staged text's mode: a regular file, executable when the source file is."""
    executable = source is not None and stat.S_ISREG(source.mode) and source.mode & 0o111
    return stat.S_IFREG | (0o755 if executable else 0o644)


def _recent(disk: Mapping[str, _Want | None], began: int) -> set[str]:
    """The files changed about when the sync began: git may have looked at them before
    they changed, and the copy after, so they are looked at again next time."""
    since = began - RECENT_NS
    return {
        rel
        for rel, want in disk.items()
        if want is not None and isinstance(want.version, tuple) and want.version[1] >= since
    }


def _write_bytes(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _copy_file(source: str, fd: int) -> None:
    """Copy the file at ``source`` (not following a link) into ``fd``, in the kernel.

    ``copy_file_range`` first: a file system that can share the blocks (Btrfs,
    XFS with reflinks) then clones the file instead of copying it. Where the
    kernel cannot (another file system, an old kernel) ``sendfile`` copies,
    from where the first left off.
    """
    original = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        with contextlib.suppress(OSError):
            while os.copy_file_range(original, fd, CHUNK):
                pass
        while os.sendfile(fd, original, None, CHUNK):
            pass
    finally:
        os.close(original)


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _source_key(st: os.stat_result | None) -> SourceKey | None:
    """What tells a source path changed: size, mode, mtime and ctime (a folder's: its entries')."""
    return None if st is None else (st.st_size, st.st_mode, st.st_mtime_ns, st.st_ctime_ns)


def _copied(st: os.stat_result) -> bool:
    """Whether the copy holds a file of this kind: regular files and symbolic links."""
    return stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)


def _stamp(path: str) -> Stamp | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return _stamp_of(st)


def _stamp_of(st: os.stat_result) -> Stamp:
    return st.st_size, st.st_mtime_ns, st.st_mode, st.st_ctime_ns


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
