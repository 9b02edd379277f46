"""The shadow as an overlay of the workspace: set-up writes only the staged texts.

Where the sandbox can mount one (``agent.execution.sandbox.overlay``), a command's
tree is the kernel's overlay of the real workspace (the lower folder, never
written) and an upper folder in the shadow's temporary folder, mounted for
that command only, in its own mount namespace. Every write of the command
lands in the upper folder (a deletion as a whiteout: a character device
0/0), so the user's files cannot change, and making the shadow writes
only what is staged: its cost does not grow with the repository.

What a command sees is what ``ShadowCopy`` gives it: the workspace on disk
with the staged texts and open buffers over it (a staged deletion is a
whiteout). ``write`` keeps it so before each command, walking only the
upper folder:

- a staged text is written again when the upper file is not what was
  written (a command changed it), and removed once it is no longer staged;
- what a command changed or deleted of the workspace (a file of the lower
  folder, copied up or whited out, a folder made opaque) is dropped, so the
  workspace's version shows again (a copied-up file is known by the
  overlay's ``origin`` mark where the file system keeps it, so one the user
  deleted since is dropped too);
- what a command created (nothing beneath it in the workspace) is left, and
  so is everything in build outputs and caches (folders named in
  ``PRIVATE_NAMES`` or ``SKIPPED_NAMES``): the command's own, kept whole,
  over the workspace's (which the copy does not show at all).

``.git`` and the top folders named in ``LINKED_NAMES`` (a virtualenv,
``node_modules``) are the ``links``: the sandbox shows the real ones
read-only over the overlay, ``.git/hooks`` masked, as for the copy; so a
command writes neither the user's index nor refs, nor the upper folder
there. A staged path inside them, or below a symbolic link, is refused.
Other ignored files and folders, and nested repositories, are seen
through the overlay (the copy leaves ignored files out and shows ignored
folders and nested repositories read-only); what a command changes in them
is dropped as any change to the workspace.

The upper folder is the folder ``upper`` beside the overlay's ``work`` and
the mount point ``copy``, in a folder with an ``owner`` file
(``shadow_owner``), so ``close`` and the sweep after a crash remove it all;
nothing is mounted outside a command.

Its size (just over the project's 350 lines): one class, whose set-up and
reading back of the upper folder share the layers' state.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from agent.execution import shadow_owner
from agent.execution.sandbox.overlay import OverlayLayers, OverlayMounter, usable_path
from agent.execution.shadow import SyncReport
from agent.execution.shadow_scan import LINKED_NAMES, PRIVATE_NAMES, SKIPPED_NAMES, under_any
from editing.disk.paths import why_refused

# folders whose upper content is the command's own (a nested repository's ``.git`` is not:
# what a command changes there is undone, as in any file of the user's)
OWN_NAMES = (PRIVATE_NAMES | SKIPPED_NAMES) - {".git"}
Stamp = tuple[int, int, int, int]  # an upper file after writing it: size, mtime, ctime, inode
WHITEOUT = b""  # what is "written" for a staged deletion


class OverlayUnavailable(OSError):
    """This workspace cannot be the lower folder of an overlay here."""


class ShadowOverlay:
    """The overlay's folders, made and filled on construction, removed by ``close``."""

    kind = "overlay"
    mount_points = True  # for a sandbox only

    def __init__(
        self,
        source: Path,
        mounter: OverlayMounter,
        texts: Mapping[str, str | None] | None = None,
    ) -> None:
        self.source = source.resolve()
        self.mounter = mounter
        shadow_owner.sweep()
        self.folder = shadow_owner.make_folder(self.source)
        self.root = self.folder / "copy"  # the mount point: empty outside a command
        self.upper = self.folder / "upper"
        self.layers = OverlayLayers(self.source, self.upper, self.folder / "work")
        self.links: set[str] = set()
        # staged paths as written: their text's digest (WHITEOUT: deleted) and the file after
        self._written: dict[str, tuple[bytes, Stamp | None]] = {}
        try:
            for path in (self.root, self.upper, self.layers.work):
                path.mkdir()
            if not usable_path(self.source) or not usable_path(self.folder):
                raise OverlayUnavailable(f"{self.source} cannot be named in the mount options")
            why = mounter.check(self.layers, self.root)
            if why is not None:
                raise OverlayUnavailable(why)
            self.setup = self.write(texts or {})
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> ShadowOverlay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        shadow_owner.remove(self.folder)

    def command_ended(self, *, contained: bool, stopped: bool = False) -> None:
        """Nothing to do: the sync looks at what commands left in the upper folder."""

    def write(self, texts: Mapping[str, str | None]) -> SyncReport:
        """Make the upper folder hold the staged ``texts`` (None: deleted) and what commands
        created, and nothing else the workspace has."""
        report = SyncReport()
        self.links = self._links()
        staged: dict[str, bytes | None] = {}
        for rel, text in texts.items():
            if not self._stageable(rel):
                report.refused.append(rel)
            else:
                staged[rel] = None if text is None else text.encode("utf-8")
        for rel in sorted(self._written.keys() - staged.keys()):  # no longer staged
            digest, _ = self._written.pop(rel)
            if not _plain_in(self.upper, rel):
                continue  # a command replaced a folder on the way: what was written is gone
            if digest == WHITEOUT and not _is_whiteout(f"{self.upper}/{rel}"):
                continue  # a command made a file there: the restore below judges it
            if _clear(self.upper, rel):
                report.removed.append(rel)
            _prune(self.upper, rel)
        self._restore(set(staged), report)
        for rel, data in sorted(staged.items()):
            if not self._parents_plain(rel):  # a command put a link or file on the way
                report.refused.append(rel)
                self._written.pop(rel, None)
            elif data is None:
                self._delete(rel, report)
            else:
                self._put(rel, data, report)
        return report

    def find(self, rel: str) -> Path | None:
        """The host path holding what the command's tree has at ``rel`` (the overlay is
        mounted only while a command runs), None where it has nothing."""
        parts = rel.split("/")
        lower_shows = True
        for i in range(1, len(parts) + 1):
            prefix = "/".join(parts[:i])
            upper = _lstat(f"{self.upper}/{prefix}")
            if upper is None:
                continue
            if _is_whiteout(f"{self.upper}/{prefix}"):
                return None
            if i == len(parts):
                return self.upper / rel
            if not stat.S_ISDIR(upper.st_mode):
                return None
            if self._opaque(prefix):
                lower_shows = False
        lower = self.source / rel
        return lower if lower_shows and os.path.lexists(lower) else None

    def _links(self) -> set[str]:
        """What the sandbox shows from the workspace itself, read-only: ``.git`` and the top
        folders named in ``LINKED_NAMES``."""
        links = {".git"} if os.path.lexists(self.source / ".git") else set()
        for name in LINKED_NAMES:
            path = self.source / name
            if path.is_dir() and not path.is_symlink():
                links.add(name)
        return links

    def _stageable(self, rel: str) -> bool:
        if why_refused(rel, to_change=True) is not None:
            return False
        return rel not in self.links and not under_any(rel, self.links)

    def _parents_plain(self, rel: str) -> bool:
        """Whether each folder on the way to ``rel`` is a plain folder (or none yet) in the
        overlay: the upper folder's entry where it has one, else the workspace's. Writes
        are then never led anywhere by a link."""
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            folder = "/".join(parts[:i])
            upper = _lstat(f"{self.upper}/{folder}")
            if upper is not None:
                if not stat.S_ISDIR(upper.st_mode):
                    return False
                if self._opaque(folder):
                    continue  # the workspace's folder is hidden there
            lower = _lstat(f"{self.source}/{folder}")
            if lower is not None and not stat.S_ISDIR(lower.st_mode) and upper is None:
                return False
        return True

    def _restore(self, keep: set[str], report: SyncReport) -> None:
        """Drop from the upper folder what a command changed of the workspace (``keep``:
        the staged paths, written next)."""
        folders = [""]
        while folders:
            folder = folders.pop()
            try:
                entries = list(os.scandir(f"{self.upper}/{folder}" if folder else self.upper))
            except OSError:
                continue
            for entry in entries:
                rel = folder + entry.name
                if rel in keep:
                    continue
                lower = _lstat(f"{self.source}/{rel}")
                copied = self._has(entry.path, "origin")  # copied up from the workspace
                if entry.is_dir(follow_symlinks=False):
                    if entry.name in OWN_NAMES:
                        continue  # a build output or a cache: the command's own
                    if lower is None and not copied:
                        continue  # made by a command: left, with all it holds
                    if lower is not None and not stat.S_ISDIR(lower.st_mode):
                        _clear(self.upper, rel)  # a command put it over a file
                        report.removed.append(rel)
                        continue
                    if self._has(entry.path, "opaque"):  # a command replaced the folder
                        os.removexattr(entry.path, self.mounter.xattr + "opaque")
                        report.removed.append(rel + "/")
                    folders.append(rel + "/")
                elif lower is not None or copied or _is_whiteout(entry.path):
                    # a workspace file the command changed or deleted (the user may have
                    # deleted it since), or a stale whiteout
                    _clear(self.upper, rel)
                    report.removed.append(rel)

    def _opaque(self, folder: str) -> bool:
        return self._has(f"{self.upper}/{folder}", "opaque")

    def _has(self, path: str, name: str) -> bool:
        """Whether the overlay marked an upper entry (``opaque``: set to "y"), not following
        a link."""
        try:
            value = os.getxattr(path, self.mounter.xattr + name, follow_symlinks=False)
        except OSError:
            return False
        return value == b"y" if name == "opaque" else True

    def _folders_for(self, rel: str) -> None:
        """Make the upper folders on the way to ``rel``, as the workspace's are (mode)."""
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            folder = "/".join(parts[:i])
            path = self.upper / folder
            if path.is_dir():
                continue
            lower = _lstat(f"{self.source}/{folder}")
            path.mkdir()
            if lower is not None and stat.S_ISDIR(lower.st_mode):
                path.chmod(stat.S_IMODE(lower.st_mode))

    def _put(self, rel: str, data: bytes, report: SyncReport) -> None:
        digest = hashlib.blake2b(data, digest_size=16).digest()
        target = f"{self.upper}/{rel}"
        if self._written.get(rel) == (digest, _stamp(target)):
            return
        self._folders_for(rel)
        _clear(self.upper, rel)
        lower = _lstat(f"{self.source}/{rel}")
        executable = lower is not None and stat.S_ISREG(lower.st_mode) and lower.st_mode & 0o111
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(target, flags, 0o755 if executable else 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        self._written[rel] = (digest, _stamp(target))
        report.written.append(rel)

    def _delete(self, rel: str, report: SyncReport) -> None:
        """A staged deletion: a whiteout where the workspace has the file, else nothing."""
        target = f"{self.upper}/{rel}"
        stamp = _stamp(target)
        in_lower = os.path.lexists(f"{self.source}/{rel}")
        held = self._written.get(rel)
        if held is not None and held[0] == WHITEOUT:
            if stamp is None and not in_lower:
                return  # nothing to hide
            if stamp is not None and held[1] == stamp:
                return  # the whiteout written last time
            if stamp is not None and not _is_whiteout(target):
                return  # a command made a file there since: left, as the copy leaves it
        changed = _clear(self.upper, rel)
        if in_lower:
            self._folders_for(rel)
            os.mknod(target, stat.S_IFCHR, os.makedev(0, 0))  # no privilege needed (Linux 5.8)
            changed = True
        self._written[rel] = (WHITEOUT, _stamp(target))
        if changed:
            report.removed.append(rel)


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _stamp(path: str) -> Stamp | None:
    st = _lstat(path)
    return None if st is None else (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _plain_in(folder: Path, rel: str) -> bool:
    """Whether each folder on the way to ``rel`` in ``folder`` is a plain folder or none:
    a path there then never leads through a link."""
    parts = rel.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        st = _lstat(f"{folder}/{'/'.join(parts[:i])}")
        if st is None:
            return True
        if not stat.S_ISDIR(st.st_mode):
            return False
    return True


def _is_whiteout(path: str) -> bool:
    st = _lstat(path)
    return st is not None and stat.S_ISCHR(st.st_mode) and st.st_rdev == 0


def _clear(upper: Path, rel: str) -> bool:
    """Remove the upper folder's entry at ``rel`` (a link as a link); whether there was one."""
    path = upper / rel
    st = _lstat(str(path))
    if st is None:
        return False
    if stat.S_ISDIR(st.st_mode):
        shadow_owner.remove(path)
    else:
        path.unlink()
    return True


def _prune(upper: Path, rel: str) -> None:
    """Remove the upper folders ``rel`` leaves empty (the workspace's show through)."""
    for parent in (upper / rel).parents:
        if parent == upper:
            break
        try:
            parent.rmdir()
        except OSError:
            break
