"""What a sandboxed command may use of the machine: processes, memory, file sizes, tmpfs.

``ResourceLimits`` holds the figures; ``Bubblewrap.wrap`` enforces them:

- the private ``/tmp``, ``/var/tmp`` and ``HOME`` are tmpfs (RAM) of a fixed
  size (bwrap's ``--size``), not half of the machine's memory each;
- the command runs under ``prlimit``, inside the sandbox: ``RLIMIT_DATA``
  (memory a process may allocate; reservations of address space that
  V8, Go or the JVM make are not counted, unlike ``RLIMIT_AS``),
  ``RLIMIT_FSIZE`` (the largest file it may write) and ``RLIMIT_NPROC``
  (processes and threads). The process count is set inside the sandbox's
  user namespace, so it counts only the command's processes, not the
  user's others;
- as root, ``RLIMIT_NPROC`` does not hold (the kernel exempts uid 0), so
  the process limit is a ``pids`` cgroup made for this server, where the
  machine lets root make one (``pids_cgroup``);
- a watcher in the sandbox stops a command whose processes reach the
  limit (a fork bomb) at once rather than at its timeout, and after the
  command a note says which limit it met: the processes, a file's size,
  or a full ``/tmp`` or ``HOME``. A process that ran out of memory says so
  itself (Python's ``MemoryError``, "Cannot allocate memory").

Without a sandbox nothing is limited: every command is put to the user
first.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

GIB = 1 << 30
MIB = 1 << 20
CGROUP_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))  # v1, then v2
WATCHER_SPARE = 8  # processes of the sandbox itself (its init, the watcher) besides the command


@dataclass(frozen=True)
class ResourceLimits:
    """What one sandboxed command may use (bytes, or a count). The defaults are the
    settings' (``sandboxProcesses``, ``sandboxMemoryMb``, ...: ``command_layout``)."""

    processes: int = 4096  # processes and threads at once
    memory: int = 8 * GIB  # memory one process may allocate
    file_size: int = 4 * GIB  # the largest file a command may write
    tmp_size: int = 2 * GIB  # the private /tmp, and /var/tmp
    home_size: int = 1 * GIB  # the private HOME

    def describe(self) -> str:
        return (
            f"{self.processes} processes, {size(self.memory)} of memory a process, files up "
            f"to {size(self.file_size)}, {size(self.tmp_size)} in /tmp, "
            f"{size(self.home_size)} in HOME"
        )


def size(figure: int) -> str:
    if figure >= GIB and figure % (GIB // 4) == 0:
        return f"{figure / GIB:g} GiB"
    return f"{figure / MIB:.0f} MiB"


# Run inside the sandbox as ``sh -c SUPERVISE sh WATCH PROCESSES TMP HOME_SIZE FILE_SIZE
# LIMITS HOME PRLIMIT -- COMMAND...``: the watcher stops the command at WATCH processes
# (the limit less the sandbox's own). A program that is not there is reported as bwrap reports
# it (``Sandbox.not_started``). The watcher is not under the command's rlimits.
SUPERVISE = r"""
max=$1 processes=$2 tmp_note=$3 home_note=$4 file_note=$5 limits=$6 home=$7 limiter=$8
shift 8
[ "$1" = -- ] && shift
case $1 in
    */*) [ -e "$1" ] || { echo "bwrap: execvp $1: No such file or directory"; exit 1; }
         if [ -d "$1" ] || [ ! -x "$1" ]; then
             echo "bwrap: execvp $1: Permission denied"; exit 1
         fi ;;
    *) found= saved=$IFS; IFS=:
       for d in $PATH; do
           if [ -x "${d:-.}/$1" ] && [ ! -d "${d:-.}/$1" ]; then found=1; break; fi
       done
       IFS=$saved
       [ -n "$found" ] || { echo "bwrap: execvp $1: No such file or directory"; exit 1; } ;;
esac
note() { printf '\n[sandbox: %s]\n' "$*"; }
if [ -n "$limiter" ]; then $limiter -- "$@" & else "$@" & fi
child=$!
(
    while sleep 1 >/dev/null 2>&1; do
        n=0
        for p in /proc/[0-9]*; do n=$((n + 1)); done
        if [ "$n" -ge "$max" ]; then
            note "stopped: the command reached the limit of $processes processes (a fork bomb?)"
            kill -KILL -1
            exit 0
        fi
    done
) &
watcher=$!
wait "$child"; code=$?
kill "$watcher" 2>/dev/null
if [ "$code" -eq 153 ]; then
    note "a file reached the size limit of $file_note"
elif [ "$code" -gt 128 ]; then
    note "the command was killed by signal $((code - 128)); the limits: $limits"
fi
full() {
    df -P "$1" 2>/dev/null | {
        read -r _; read -r _ _ _ free _ _ && [ "${free:-1}" -lt 1024 ]
    }
}
if [ "$code" -ne 0 ]; then
    full /tmp && note "/tmp is full: it holds at most $tmp_note"
    full /var/tmp && note "/var/tmp is full: it holds at most $tmp_note"
    full "$home" && note "HOME is full: it holds at most $home_note"
fi
exit "$code"
"""


def supervised(
    argv: list[str], limits: ResourceLimits, home: Path, *, rlimit_processes: bool
) -> list[str]:
    """``argv`` under the limits, to run inside the sandbox."""
    limiter = ""
    prlimit = _prlimit()
    if prlimit is not None:
        options = [f"--data={limits.memory}", f"--fsize={limits.file_size}"]
        if rlimit_processes:
            options.append(f"--nproc={limits.processes}")
        limiter = shlex.join([prlimit, *options])
    watch = max(limits.processes - WATCHER_SPARE, 1)
    notes = [size(limits.tmp_size), size(limits.home_size), size(limits.file_size)]
    return [
        "/bin/sh",
        "-c",
        SUPERVISE,
        "sh",
        str(watch),
        str(limits.processes),
        *notes,
        limits.describe(),
        str(home),
        limiter,
        "--",
        *argv,
    ]


@functools.cache
def _prlimit() -> str | None:
    for folder in ("/usr/bin", "/bin", "/usr/sbin", "/sbin"):
        if os.access(f"{folder}/prlimit", os.X_OK):
            return f"{folder}/prlimit"
    return None


@functools.cache
def pids_cgroup(processes: int) -> Path | None:
    """A ``pids`` cgroup of this server holding at most ``processes``, where root can make one."""
    if os.geteuid() != 0:
        return None
    for root in CGROUP_ROOTS:
        if not (root / "cgroup.procs").is_file() or not _has_pids(root):
            continue
        _remove_stale(root)
        folder = root / f"surehand-{os.getpid()}-{processes}"
        try:
            folder.mkdir(exist_ok=True)
            (folder / "pids.max").write_text(f"{processes}\n")
        except OSError:
            with contextlib.suppress(OSError):
                folder.rmdir()
            continue
        atexit.register(_remove, folder)
        return folder
    return None


def _has_pids(root: Path) -> bool:
    if (root / "pids.max").exists() or root.name == "pids":
        return True
    try:
        return "pids" in (root / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False


def _remove_stale(root: Path) -> None:
    """Empty cgroups of servers that ended without removing theirs (killed, ``os._exit``)."""
    for folder in root.glob("surehand-*-*"):
        pid = folder.name.split("-")[1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(OSError):
                folder.rmdir()


def _remove(folder: Path) -> None:
    for _ in range(20):  # the last command's processes may take a moment to be gone
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)


# Outside the sandbox, before bwrap (or unshare): join the cgroup, run it, and say so when a
# failed command met the limit (the kernel counts each refused fork in ``pids.events``). A
# command the watcher stopped (killed, 137) has its note already.
JOIN = r"""
cg=$1 max=$2; shift 2
echo $$ > "$cg/cgroup.procs" || exit 1
read -r _ before < "$cg/pids.events"
"$@"; code=$?
read -r _ after < "$cg/pids.events"
if [ "$code" -ne 0 ] && [ "$code" -ne 137 ] && [ "${after:-0}" -gt "${before:-0}" ]; then
    printf '\n[sandbox: the command reached the limit of %s processes]\n' "$max"
fi
exit "$code"
"""


def in_cgroup(folder: Path, processes: int, argv: list[str]) -> list[str]:
    return ["/bin/sh", "-c", JOIN, "sh", str(folder), str(processes), *argv]


__all__ = ["ResourceLimits", "in_cgroup", "pids_cgroup", "supervised"]
