"""surehand on a tree shaped like Linux: the shadow and the tools beside git, cp and rg.

Which tree: a git repository from ``linux_tree.generate``, a seeded generator
calibrated on the Debian package linux-source-6.1 (6.1.192: 78,624 files,
5,096 folders, 1.30 GB; its depths, folder fan-out, files per folder and
file sizes, see its docstring), not the real tree, at each of ``--sizes``
(786, 7,862 and 78,624 files are 1, 10 and 100 % of Linux; 786 and 7,862 by
default, as CI runs it); or, with ``--tree PATH``, an existing git checkout
as it is (a real Linux checkout, say), of which one file is changed for the
sync rows and put back.

Each row is timed beside its baseline in the same run, in rounds (one of
each per round, after a warm-up of each: ``--repeat`` rounds; the copy
set-up rows ``--copy-repeat`` rounds, 1 by default, without a warm-up: the
tree is in the page cache already), and printed as median ms and the ratio:

- copy set-up, first: ``ShadowCopy.open`` in a new process (its imports not
  timed), beside ``cp -a`` of the tree (``.git`` too) and beside
  ``git status --porcelain``;
- copy set-up, after the first: ``ShadowCopy.open`` in this process after
  the last copy was closed with ``keep=True``, as a session after a reset
  makes it (the last copy taken back), beside ``git status``;
- copy sync before a command, the last command ended a model's turn ago
  (``TURN_SECONDS``): with nothing changed, and after one file changed on
  disk and one staged text (the change written, then the sync), beside
  ``git status``;
- both again after commands that were not contained (no sandbox: a process
  of theirs may outlive them), so the copy looks at itself at the sync and
  at the set-up;
- overlay set-up (``ShadowOverlay`` with one staged text) and its two syncs,
  beside ``git status``, where this machine can mount one (else the table
  says why they are missing);
- ``list_files`` of the root, and of the folder at depth 3 or more holding
  most files, beside git's listing of the same files, ``git ls-files
  --cached --others --exclude-standard -- FOLDER`` (tracked and untracked:
  what ``list_files`` lists); and that listing beside ``git ls-files``
  alone (tracked only: what finding the untracked files costs git);
- ``grep`` for ``of_match_ptr`` (in one file in 76 of Linux), beside
  ``rg of_match_ptr`` run as a person runs it (``git grep`` without rg);
- one ``edit`` step (one unique line replaced, through the tool, in the
  biggest file under the size cap: about 1 MB), beside reading the file,
  ``str.find`` and splicing the string;
- ``view_file`` of a file of the median size, beside reading it.

A set-up's clean-up (the copy's removal) is not timed. Every result is
checked before it counts: the copy holds the files git lists, a sync writes
exactly what changed, ``list_files`` and ``grep`` find as many as git and
rg, the edit changes that line only; a wrong one fails the run. After the
table, the growth of each row's time per 10x files, and its baseline's.

The figures are printed, never asserted. Targets: copy set-up after the
first and sync within 1.2x ``git status`` on the full tree; ``list_files``
within 2x git's listing of the same files; ``grep`` within 1.5x ``rg``; an edit within 5x
read + find + splice.

Usage: python tests/bench/scale_bench.py [--sizes 786,7862,78624] [--tree PATH]
       [--repeat N] [--copy-repeat N]
"""

from __future__ import annotations

import asyncio
import gc
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import count, pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.config.settings import Settings
from agent.execution.sandbox import choose
from agent.execution.sandbox.overlay import OverlayMounter
from agent.execution.shadow import ShadowCopy, discard_kept
from agent.execution.shadow_overlay import OverlayUnavailable, ShadowOverlay
from agent.staging.workspace import Overlay
from agent.tools.context import ToolContext
from agent.tools.edit import TOOL as EDIT
from agent.tools.grep import TOOL as GREP
from agent.tools.grep import find_ripgrep
from agent.tools.list_files import TOOL as LIST
from agent.tools.view_file import TOOL as VIEW
from tests.bench.harness import expect, parser, positive, rounds_median_ns, run
from tests.bench.linux_tree import NEEDLE, generate

Row = tuple[str, float, float]  # "surehand's / baseline", the median ns of each
Table = dict[str, dict[str, tuple[float, float]]]  # row, column: ms of each
FIRST_SETUP = """\
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tests.bench.scale_bench import ShadowCopy, held
began = time.perf_counter_ns()
copy = ShadowCopy.open(Path(sys.argv[2]))
print(time.perf_counter_ns() - began, held(copy))
copy.close()
"""


@dataclass(frozen=True)
class Facts:
    """What the rows work on and check against, from git's listing of the tree."""

    listed: int  # what the copy holds: the tracked and unignored files, links too
    files: dict[str, int]  # the regular files git lists, by path, with their size
    deep: str  # the folder at depth 3 or more holding most files
    big: str  # the biggest text file under the size cap: edited
    typical: str  # a .c file of about the median size: viewed
    edited: str  # changed on disk by the sync rows
    staged: str  # staged by the sync rows

    def describe(self) -> str:
        deep = sum(p.startswith(f"{self.deep}/") for p in self.files)
        return (
            f"  {self.listed:,} files listed by git, {sum(self.files.values()) / 1e6:,.0f} MB; "
            f"deep folder {self.deep} ({deep:,} files), "
            f"edited {self.big} ({self.files[self.big]:,} B)"
        )


def git(root: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, check=True).stdout


def facts(root: Path, cap: int) -> Facts:
    entries = os.fsdecode(git(root, "ls-files", "-z", "-s")).split("\0")
    tracked = [entry.split("\t", 1) for entry in entries if entry]
    others = [
        p
        for p in os.fsdecode(git(root, "ls-files", "-z", "-o", "--exclude-standard")).split("\0")
        if p
    ]
    regular = [p for mode, p in tracked if mode.startswith(("100644", "100755"))] + others
    files = {p: (root / p).lstat().st_size for p in dict.fromkeys(regular) if (root / p).is_file()}
    median = statistics.median(files.values())
    sources = sorted((abs(size - median), p) for p, size in files.items() if p.endswith(".c"))
    by_size = sorted(((size, p) for p, size in files.items()), reverse=True)
    return Facts(
        listed=sum(os.path.lexists(root / p) for p in {p for _, p in tracked} | set(others)),
        files=files,
        deep=Counter(p.rpartition("/")[0] for p in files if p.count("/") >= 3).most_common(1)[0][0],
        big=next(p for size, p in by_size if size <= cap and _text(root / p)),
        typical=sources[0][1],
        edited=sources[1][1],
        staged=sources[2][1],
    )


def _text(path: Path) -> bool:
    data = path.read_bytes()
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return b"\0" not in data


def held(copy: ShadowCopy) -> int:
    """The files (and links to files or folders) the copy holds, less the folders it links."""
    found = 0
    for folder, dirs, files in os.walk(copy.root):
        found += len(files) + sum(Path(folder, d).is_symlink() for d in dirs)
    return found - len(copy.links)


def self_timed(calls: Sequence[Callable[[], int]], repeat: int) -> list[float]:
    """The median of what each call says it took (ns: its clean-up left out), the calls
    taken in turn ``repeat`` times, gc off; no warm-up (a copy of the tree is slow, and
    the tree is in the page cache already)."""
    times: list[list[int]] = [[] for _ in calls]
    gc.disable()
    try:
        for _ in range(repeat):
            for call, taken in zip(calls, times, strict=True):
                taken.append(call())
    finally:
        gc.enable()
    return [statistics.median(t) for t in times]


def timed(call: Callable[[], object]) -> int:
    began = time.perf_counter_ns()
    call()
    return time.perf_counter_ns() - began


def setup_rows(root: Path, known: Facts, scratch: Path, repeat: int) -> list[Row]:
    copies = count()

    def first() -> int:  # in a new process: nothing of an earlier copy to start from
        argv = [sys.executable, "-c", FIRST_SETUP, str(Path(__file__).parents[2]), str(root)]
        child = subprocess.run(argv, capture_output=True, text=True, check=False)
        expect(child.returncode == 0, f"the first copy failed: {child.stderr}")
        took, holds = map(int, child.stdout.split())
        expect(holds == known.listed, f"the first copy holds {holds} of {known.listed} files")
        return took

    def again(contained: bool) -> Callable[[], int]:
        def reopen() -> int:  # as a session after a reset makes it: the last one's, taken back
            began = time.perf_counter_ns()
            copy = ShadowCopy.open(root)
            took = time.perf_counter_ns() - began
            expect(held(copy) == known.listed, f"a copy holds {held(copy)} of {known.listed}")
            last_command(copy, contained)
            copy.close(keep=True)
            return took

        return reopen

    def cp() -> int:
        target = scratch / f"cp{next(copies)}"
        took = timed(lambda: subprocess.run(["cp", "-a", str(root), str(target)], check=True))
        shutil.rmtree(target)
        return took

    warm = ShadowCopy.open(root)  # this process's first
    last_command(warm, True)
    warm.close(keep=True)
    status = lambda: timed(lambda: git(root, "status", "--porcelain"))  # noqa: E731
    status()  # git's index refreshed
    ours, after, base_cp, base_status = self_timed([first, again(True), cp, status], repeat)
    # last: a command not contained leaves its copy looked at by every later sync
    loose, loose_status = self_timed([again(False), status], repeat)
    discard_kept()
    return [
        ("copy set-up, first / cp -a", ours, base_cp),
        ("copy set-up, first / git status", ours, base_status),
        ("copy set-up, after the first / git status", after, base_status),
        ("  the same, commands not contained", loose, loose_status),
    ]


# What the model takes to read a command's output and answer: the find a contained
# command's end starts has ended by then (on Linux's 78,000 files it takes a fifth of it).
TURN_SECONDS = 1.0


def last_command(shadow: ShadowCopy | ShadowOverlay, contained: bool) -> None:
    """A command ended in ``shadow`` (nothing changed), and the model's turn passed."""
    shadow.command_ended(contained=contained)
    if shadow.kind == "copy":
        time.sleep(TURN_SECONDS)


class Changes:
    """One file changed on disk and one staged text, anew at each ``next``; ``texts`` is
    what was staged last."""

    def __init__(self, root: Path, known: Facts) -> None:
        self.edited, self.staged = root / known.edited, known.staged
        self.original = self.edited.read_bytes()
        self.texts: dict[str, str | None] = {}
        self.versions = count()

    def next(self) -> dict[str, str | None]:
        n = next(self.versions)
        self.edited.write_bytes(self.original + f"/* edit {n} */\n".encode())
        self.texts[self.staged] = f"/* staged {n} */\n"
        return self.texts

    def undo(self) -> None:
        self.edited.write_bytes(self.original)


def sync_rows(
    root: Path, known: Facts, repeat: int, shadow: ShadowCopy | ShadowOverlay
) -> list[Row]:
    """The sync before a command, after the last one ended and the model's turn passed:
    with nothing changed, and after ``Changes.next``, beside ``git status``; and, last,
    after commands that were not contained (a copy then looks at itself at the sync)."""
    changes = Changes(root, known)
    # the overlay shows the change on disk through: only the staged text is written
    changed = (
        [changes.staged] if shadow.kind == "overlay" else sorted([known.edited, changes.staged])
    )

    def same(contained: bool) -> Callable[[], int]:
        def sync() -> int:
            last_command(shadow, contained)
            began = time.perf_counter_ns()
            report = shadow.write(changes.texts)
            took = time.perf_counter_ns() - began
            expect(report.written == report.removed == [], f"a sync, nothing changed: {report}")
            return took

        return sync

    def two() -> int:
        texts = changes.next()
        last_command(shadow, True)
        began = time.perf_counter_ns()
        written = shadow.write(texts).written
        took = time.perf_counter_ns() - began
        expect(written == changed, f"the sync wrote {written}, not {changed}")
        return took

    status = lambda: timed(lambda: git(root, "status", "--porcelain"))  # noqa: E731
    try:
        same(True)()  # a warm-up
        status()
        a, b, sa = self_timed([same(True), two, status], repeat)
        rows = [
            (f"{shadow.kind} sync, no change / git status", a, sa),
            (f"{shadow.kind} sync, 2 changed / git status", b, sa),
        ]
        if shadow.kind == "copy":  # last: a command not contained leaves the copy so
            loose, loose_status = self_timed([same(False), status], repeat)
            rows.append(("  no change, commands not contained", loose, loose_status))
    finally:
        changes.undo()
    return rows


def overlay_rows(root: Path, known: Facts, repeat: int, mounter: OverlayMounter) -> list[Row]:
    def setup() -> int:
        began = time.perf_counter_ns()
        shadow = ShadowOverlay(root, mounter, {known.staged: "/* staged */\n"})
        took = time.perf_counter_ns() - began
        expect(shadow.setup.written == [known.staged], f"set-up wrote {shadow.setup.written}")
        shadow.close()
        return took

    status = lambda: timed(lambda: git(root, "status", "--porcelain"))  # noqa: E731
    try:
        setup()  # a warm-up: the first mount
        ours, base = self_timed([setup, status], repeat)
    except OverlayUnavailable as error:
        print(f"  (no overlay rows: {error})")
        return []
    with ShadowOverlay(root, mounter) as shadow:
        return [
            ("overlay set-up / git status", ours, base),
            *sync_rows(root, known, repeat, shadow),
        ]


def tool_rows(root: Path, known: Facts, repeat: int) -> list[Row]:
    settings = Settings()
    overlay = lambda: Overlay(root, max_bytes=settings.max_file_bytes)  # noqa: E731
    ctx = ToolContext(overlay(), settings)
    loop = asyncio.new_event_loop()  # one for every call, as the server's
    call = lambda tool, args, on=ctx: loop.run_until_complete(tool.run(args, on))  # noqa: E731

    def listing(folder: str | None) -> tuple[Callable[[], None], Callable[[], bytes]]:
        inside = sum(folder is None or p.startswith(f"{folder}/") for p in known.files)

        def ours() -> None:
            summary = call(LIST, {"path": folder, "glob": None}).summary
            expect(summary == f"{inside} files", f"list_files {folder}: {summary}, git: {inside}")

        return ours, lambda: git(root, *SAME_LISTING, *(["--", folder] if folder else []))

    rg = find_ripgrep()
    plain = [rg, NEEDLE] if rg else ["git", "grep", NEEDLE]
    search = lambda: subprocess.run(plain, cwd=root, capture_output=True, check=True).stdout  # noqa: E731
    hits = search().count(b"\n")

    def grep() -> None:
        args = {"pattern": NEEDLE, "path": None, "glob": None, "ignore_case": None, "context": None}
        summary = call(GREP, args).summary
        expect(summary.startswith(f"{hits} match"), f"grep: {summary}, {plain[0]}: {hits} lines")

    old = unique_line((root / known.big).read_text())
    new = f"{old} /* edited */"

    def splice() -> str:
        text = (root / known.big).read_text()
        at = text.find(old)
        return text[:at] + new + text[at + len(old) :]

    after = splice()

    def edit() -> None:
        fresh = ToolContext(overlay(), settings)
        args = {"path": known.big, "old": old, "new": new, "replace_all": None, "description": "x"}
        call(EDIT, args, fresh)
        expect(fresh.overlay.staged == {known.big: after}, "the edit changed more than its line")

    viewed = root / known.typical
    first_line = viewed.read_text().split("\n", 1)[0]

    def view() -> None:
        shown = call(VIEW, {"path": known.typical, "start_line": None, "end_line": None}).text
        expect(first_line in shown, f"view_file {known.typical}: {shown[:200]}")

    rows = {
        "list_files . / git ls-files -co": listing(None),
        "list_files, deep folder / git ls-files -co": listing(known.deep),
        "git ls-files -co / git ls-files (tracked only)": (
            lambda: git(root, *SAME_LISTING),
            lambda: git(root, "ls-files"),
        ),
        f"grep / {'rg' if rg else 'git grep'}": (grep, search),
        "edit, ~1 MB file / read + find + splice": (edit, splice),
        "view_file / read the file": (view, viewed.read_text),
    }
    try:
        times = rounds_median_ns(list(rows.values()), [repeat] * len(rows))
    finally:
        loop.close()
    return [(label, a, b) for label, (a, b) in zip(rows, times, strict=True)]


# git's listing of the files ``list_files`` lists: tracked and untracked, less the ignored
SAME_LISTING = ("ls-files", "--cached", "--others", "--exclude-standard")


def unique_line(text: str) -> str:
    """A line of 20 characters or more found once in ``text``, from its middle outwards."""
    lines = text.split("\n")
    for i in sorted(range(len(lines)), key=lambda i: abs(i - len(lines) // 2)):
        if len(lines[i].strip()) >= 20 and text.count(lines[i]) == 1:
            return lines[i]
    raise ValueError("no line is found only once")


def measure(root: Path, scratch: Path, repeat: int, copy_repeat: int) -> list[Row]:
    known = facts(root, Settings().max_file_bytes)
    print(known.describe())
    rows = setup_rows(root, known, scratch, copy_repeat)
    with ShadowCopy.open(root) as copy:  # the copy kept by the set-up rows, removed after
        rows += sync_rows(root, known, repeat, copy)
    mounter = choose("bubblewrap").overlay
    if mounter is not None:
        rows += overlay_rows(root, known, repeat, mounter)
    return rows + tool_rows(root, known, repeat)


def body(repeat: int, copy_repeat: int, sizes: list[int], tree: Path | None) -> None:
    table: Table = {}
    columns: list[str] = []
    with tempfile.TemporaryDirectory(prefix="surehand-bench-scale-") as folder:
        for files in sizes if tree is None else [0]:
            if tree is not None:
                root, column = tree.resolve(), tree.name
                print(f"\n{root}, as it is")
            else:
                root, column = Path(folder) / f"linux{files}", f"{files:,} files"
                began = time.perf_counter()
                made = generate(root, files)
                committed = time.perf_counter() - began - made.seconds
                print(
                    f"\ngenerated {files:,} files in {made.folders:,} folders, "
                    f"{made.bytes / 1e6:,.1f} MB ({made.needles} with {NEEDLE}; "
                    f"{made.ignored:,} ignored build outputs beside them): "
                    f"written in {made.seconds:.1f} s, committed in {committed:.1f} s"
                )
            columns.append(column)
            for label, ours, base in measure(root, Path(folder), repeat, copy_repeat):
                table.setdefault(label, {})[column] = (ours / 1e6, base / 1e6)
            if tree is None:
                shutil.rmtree(root)
    sandbox = choose("bubblewrap")
    if sandbox.overlay is None:
        print(f"\n(no overlay rows: {sandbox.why or getattr(sandbox, 'shadow', '')})")
    print(f"\nmedian ms, surehand vs baseline (ratio); {repeat} rounds, copies {copy_repeat}")
    print(f"{'':<44}" + "".join(f"{c:>28}" for c in columns))
    for label, cells in table.items():
        shown = [_cell(*cells[c]) if c in cells else "" for c in columns]
        print(f"{label:<44}" + "".join(f"{s:>28}" for s in shown))
    if tree is None and len(sizes) > 1:
        growth(table, columns, sizes)


def _cell(ours: float, base: float) -> str:
    return f"{ours:.1f} vs {base:.1f} ({ours / base:.2f}x)"


def growth(table: Table, columns: list[str], sizes: list[int]) -> None:
    """Each row's time, and its baseline's, multiplied per 10x files between two sizes."""
    print("\ngrowth per 10x files, surehand / baseline")
    print(f"{'':<44}" + "".join(f"{f'{a:,} to {b:,}':>28}" for a, b in pairwise(sizes)))
    steps = list(pairwise(zip(columns, sizes, strict=True)))
    for label, cells in table.items():
        shown = []
        for (c1, s1), (c2, s2) in steps:
            if c1 not in cells or c2 not in cells:
                shown.append("")
                continue
            ours, base = (
                (cells[c2][i] / cells[c1][i]) ** (1 / math.log10(s2 / s1)) for i in (0, 1)
            )
            shown.append(f"x{ours:.1f} / x{base:.1f}")
        print(f"{label:<44}" + "".join(f"{s:>28}" for s in shown))


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, 3, "rounds per row")
    cli.add_argument(
        "--sizes",
        default="786,7862",
        help="tree sizes in files (default: 786,7862; Linux's: 78624)",
    )
    cli.add_argument(
        "--tree", type=Path, help="an existing git checkout instead of generated trees"
    )
    cli.add_argument(
        "--copy-repeat",
        type=positive,
        default=1,
        help="rounds of the copy set-up rows (default: 1)",
    )
    args = cli.parse_args(argv)
    sizes = [int(n) for n in args.sizes.split(",")]
    return run(lambda: body(args.repeat, args.copy_repeat, sizes, args.tree))


if __name__ == "__main__":
    sys.exit(main())
