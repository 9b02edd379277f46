"""What changed in the shadow copy since a moment: the paths a sync must look at again.

A command may change any file of the copy, so before each command the copy
is checked against what it last wrote. Looking at every file (an ``lstat``
each, from Python) costs more than ``git status`` does on the workspace on
a big tree. ``find -cnewer`` does it in C, in a process of its own, beside
``git status``: it lists the paths whose status changed after a moment.
The status change time (ctime) is set by the kernel at every change of a
file's content, mode or links, and no program can set it back (``touch``
sets the modification time only), so nothing a command did is missed.

The moment is the end of the last sync, less a margin for the clock the
kernel stamps files with (it may lag the one ``time`` reads by a tick), or
two seconds on a file system that keeps whole seconds only.

A file a command deleted is seen through its folder, whose status changed
too: the copy's files in a listed folder are looked at, and those in its
subfolders that are gone.

When find runs (``CommandTrail``): when a command ends, if none of its
processes can outlive it (a sandbox with its own process namespace, whose
processes the kernel has killed by the time it exits), so that nothing
can change the copy after find looked; it runs while the model reads the
command's output, and the sync before the next command only collects its
answer, its own work then being git's view of the workspace. After a
command that may have left processes behind (no sandbox: a process can
leave its group), or one that was stopped (the sandbox's processes are
still being killed), find runs at the sync, as late as it can. The paths
found are also gathered since the copy was last clean, so a kept copy
taken back by the next session knows what commands made in it without
another look.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from agent.execution.git_process import StartedProcess

FIND_SECONDS = 60.0
FINE_MARGIN_NS = 100_000_000  # a few of the kernel clock's ticks
COARSE_MARGIN_NS = 2_000_000_000  # file systems that keep whole (or even) seconds


def margin_ns(root: Path) -> int:
    """The margin for the file system holding ``root``: whether it keeps nanoseconds."""
    probe = root.parent / "clock"
    probe.write_bytes(b"")
    fine = os.lstat(probe).st_mtime_ns % 1_000_000_000 != 0
    return FINE_MARGIN_NS if fine else COARSE_MARGIN_NS


class ChangedSince:
    """``find ROOT -cnewer MARKER``, started now: the paths changed after ``since_ns``.

    The marker is a file beside the copy (never in it) given ``since_ns`` as
    its modification time.
    """

    def __init__(self, root: Path, since_ns: int) -> None:
        self.root = root
        marker = root.parent / "since"
        marker.write_bytes(b"")
        os.utime(marker, ns=(since_ns, since_ns))
        argv = ["find", str(root), "-cnewer", str(marker), "-print0"]
        self.find = StartedProcess(argv, root.parent, seconds=FIND_SECONDS)

    def paths(self) -> set[str] | None:
        """The changed paths relative to the root ("" for the root itself), None when
        find could not run or could not look everywhere (a folder it cannot read)."""
        out = self.find.output()
        if out is None:
            return None
        prefix = os.fsencode(self.root)
        found: set[str] = set()
        for entry in out.split(b"\0"):
            if entry == prefix:
                found.add("")
            elif entry.startswith(prefix + b"/"):
                found.add(os.fsdecode(entry[len(prefix) + 1 :]))
        return found


class CommandTrail:
    """What commands changed in the copy at ``root``: asked of find when each command
    ends, or at the sync after it."""

    def __init__(self, root: Path, margin: int) -> None:
        self.root = root
        self.margin = margin
        self._after: ChangedSince | None = None  # started when the last command ended
        self._strays = False  # a command ran uncontained: a process of it may live on
        self._made: set[str] | None = set()  # every path changed since clean, if known

    def ended(self, synced_ns: int | None, *, contained: bool, stopped: bool) -> None:
        """A command that ran in the copy (synced at ``synced_ns``) ended. ``contained``:
        its processes ran where none can outlive it; ``stopped``: it was killed (at its
        time limit, or cancelled), so its processes may be dying still."""
        self._strays = self._strays or not contained
        self.stop()
        if not (self._strays or stopped) and synced_ns is not None:
            with contextlib.suppress(OSError):  # its marker not written: the sync looks then
                self._after = ChangedSince(self.root, synced_ns - self.margin)

    def since_sync(self, synced_ns: int, *, look: bool) -> set[str] | None:
        """The copy's paths changed since the sync at ``synced_ns``: what find saw when the
        last command ended, else (``look``) what it sees now; None when not told (every
        file of the copy is then to be looked at)."""
        after, self._after = self._after, None
        changed = after.paths() if after is not None else None
        if changed is None and look:
            changed = ChangedSince(self.root, synced_ns - self.margin).paths()
        if changed is None or self._made is None:
            self._made = None
        else:
            self._made |= changed
        return changed

    def since_clean(self, clean_ns: int) -> set[str] | None:
        """The copy's paths changed since it was clean at ``clean_ns`` (None when not
        told): those gathered, if the last command's were looked at as it ended (else a
        command may have changed the copy since the last sync); otherwise what find sees
        now."""
        after, self._after = self._after, None
        changed = after.paths() if after is not None else None
        if changed is not None and self._made is not None:
            return self._made | changed
        return ChangedSince(self.root, clean_ns - self.margin).paths()

    def cleaned(self) -> None:
        """The copy was made clean: nothing is gathered from before."""
        self._made = set()

    def stop(self) -> None:
        """Stop a find still running (the copy is closed, or a newer one is asked)."""
        if self._after is not None:
            self._after.find.stop()
            self._after = None


class Folders:
    """The copy's files by folder, and each folder's subfolders, for looking up the
    files a changed folder holds."""

    def __init__(self, files: Iterable[str]) -> None:
        self.files: dict[str, list[str]] = {}
        self.children: dict[str, set[str]] = {}
        for rel in files:
            folder = rel.rpartition("/")[0]
            self.files.setdefault(folder, []).append(rel)
            while folder and folder not in self.children:
                parent = folder.rpartition("/")[0]
                self.children.setdefault(folder, set())
                self.children.setdefault(parent, set()).add(folder)
                folder = parent
        self.children.setdefault("", set())

    def holds(self, folder: str) -> bool:
        """Whether ``folder`` holds a file of the copy, at any depth."""
        return folder in self.children

    def under(self, folder: str) -> Iterable[str]:
        """Every file of the copy in ``folder`` and its subfolders."""
        stack = [folder]
        while stack:
            each = stack.pop()
            yield from self.files.get(each, ())
            stack.extend(self.children.get(each, ()))


def to_look_at(
    changed: Iterable[str], held: Mapping[str, object], folders: Folders, root: Path
) -> set[str]:
    """The copy's files that ``changed`` paths may have changed: those listed, those
    in a listed folder, and those in a listed folder's subfolders that are gone."""
    paths: set[str] = set()
    for rel in changed:
        if rel in held:
            paths.add(rel)
        if not folders.holds(rel):
            continue
        paths.update(folders.files.get(rel, ()))
        for child in folders.children.get(rel, ()):
            if not _is_folder(root / child):
                paths.update(folders.under(child))
    return paths


def _is_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False
