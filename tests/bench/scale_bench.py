"""surehand on big repositories: the tools and the shadow copy at three sizes, beside git.

Generates git repositories of 10,000 and 50,000 code-like files (with a
``.gitignore`` and an ignored ``node_modules``-like tree of a tenth as many
files) and prints, for each size, the median time of:

- shadow copy set-up, beside ``cp -a`` of the same tree (``--copy-repeat``
  runs each, interleaved: a copy of 50,000 files is slow on a slow disk);
- the overlay's set-up (``ShadowOverlay``: one staged text written, one
  mount tried, ``--repeat`` runs), beside the same ``cp -a``, where this machine can mount
  one (else its rows say why they are missing);
- shadow sync with nothing changed, and with one staged file and one file
  the user changed, beside ``git status``, for the copy and the overlay;
- one sandboxed ``true`` in the overlay (its mount included), beside the
  same in the copy;
- ``list_files`` of the whole workspace, beside ``git ls-files``;
- ``grep`` for a word in one file in a hundred, beside ``rg`` (``grep -r``
  where ripgrep is not installed);
- ``view_file`` of one file, beside reading it.

Figures only; a wrong result (a missing file, a wrong match count) fails.
Usage: python tests/bench/scale_bench.py [--repeat N] [--copy-repeat N] [--sizes 10000,50000]
"""

from __future__ import annotations

import asyncio
import gc
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.command_layout import command_layout
from agent.commands import run_process
from agent.sandbox import choose
from agent.sandbox.overlay import OverlayMounter
from agent.settings import Settings
from agent.shadow import ShadowCopy
from agent.shadow_overlay import ShadowOverlay
from agent.tools.context import ToolContext
from agent.tools.grep import TOOL as GREP
from agent.tools.grep import find_ripgrep
from agent.tools.list_files import TOOL as LIST
from agent.tools.view_file import TOOL as VIEW
from agent.workspace import Overlay
from tests.bench.harness import expect, median_ns, parser, positive, run

PER_FOLDER = 50
NEEDLE = "needle_word"


def generate(root: Path, files: int) -> None:
    for i in range(files):
        folder = root / "src" / f"pkg{i // 1000}" / f"mod{(i // PER_FOLDER) % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        extra = f"    # {NEEDLE}\n" if i % 100 == 0 else ""
        (folder / f"file{i}.py").write_text(
            f"import os\n\n\ndef load_{i}(path):\n{extra}    return open(path).read()\n"
        )
    for i in range(files // 10):
        folder = root / "node_modules" / f"dep{i // PER_FOLDER}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"part{i}.js").write_text(f"module.exports = {i};\n")
    (root / ".gitignore").write_text("node_modules/\n__pycache__/\n")
    identity = ["-c", "user.name=bench", "-c", "user.email=b@example.com"]
    identity += ["-c", "gc.auto=0", "-c", "maintenance.auto=false"]  # no gc under the figures
    commit = ["commit", "-q", "--no-gpg-sign", "-m", "x"]
    # packed, as a real repository's objects are (cp -a copies .git too)
    for args in (["init", "-q"], ["add", "-A"], commit, ["repack", "-a", "-d", "-q"]):
        subprocess.run(["git", *identity, *args], cwd=root, check=True)


def command(argv: list[str], cwd: Path) -> bytes:
    return subprocess.run(argv, cwd=cwd, capture_output=True, check=True).stdout


def interleaved_ns(calls: list[Callable[[], object]], repeat: int) -> list[float]:
    """Median wall time of each call, run in turn ``repeat`` times (no warm-up: the files
    were just written, so they are in the cache)."""
    times: list[list[int]] = [[] for _ in calls]
    gc.disable()
    try:
        for _ in range(repeat):
            for i, call in enumerate(calls):
                began = time.perf_counter_ns()
                call()
                times[i].append(time.perf_counter_ns() - began)
    finally:
        gc.enable()
    return [sorted(t)[len(t) // 2] for t in times]


def grep_baseline() -> tuple[str, list[str]]:
    """ripgrep counting the matches, or ``grep -r`` (skipping what is ignored here) without it."""
    rg = find_ripgrep()
    if rg is not None:
        return "rg", [rg, "--count-matches", NEEDLE]
    skip = ["--exclude-dir=.git", "--exclude-dir=node_modules"]
    return "grep -r", ["grep", "-r", "-c", *skip, NEEDLE, "."]


def measure(
    root: Path, files: int, scratch: Path, repeat: int, copy_repeat: int
) -> list[tuple[str, float, float]]:
    ctx = ToolContext(Overlay(root), Settings())
    rows = []
    copies = iter(range(10**6))

    def cp() -> None:
        target = scratch / f"cp{next(copies)}"
        subprocess.run(["cp", "-a", str(root), str(target)], check=True)
        shutil.rmtree(target)

    def setup() -> None:
        with ShadowCopy(root) as copy:
            expect(len(copy.setup.written) == files + 1, f"set-up wrote {len(copy.setup.written)}")

    sandbox = choose("bubblewrap")
    mounter = sandbox.overlay
    staged = "src/pkg0/mod0/file2.py"

    def overlay_setup() -> None:
        assert mounter is not None
        with ShadowOverlay(root, mounter, {staged: "STAGED = 0\n"}) as shadow:
            expect(shadow.setup.written == [staged], f"set-up wrote {shadow.setup.written}")

    if mounter is None:
        ours, base = interleaved_ns([setup, cp], copy_repeat)
        rows.append(("shadow set-up / cp -a", ours, base))
    else:  # the overlay's, cheap, on its own: not right after a copy's writes and removal
        ours, base = interleaved_ns([setup, cp], copy_repeat)
        rows.append(("shadow set-up / cp -a", ours, base))
        rows.append(("shadow set-up (overlay) / cp -a", median_ns(overlay_setup, repeat), base))
    status = ["git", "status", "--porcelain"]
    git_status = median_ns(lambda: command(status, root), repeat)
    with ShadowCopy(root) as copy:

        def sync() -> None:
            expect(copy.write({}).written == [], "a sync with nothing changed wrote files")

        rows.append(("sync, no change / git status", median_ns(sync, repeat), git_status))
        edited, staged = root / "src/pkg0/mod0/file1.py", "src/pkg0/mod0/file2.py"
        original = edited.read_text()
        versions = iter(range(10**6))

        def sync_changed() -> None:
            n = next(versions)
            edited.write_text(f"{original}# edit {n}\n")
            written = copy.write({staged: f"STAGED = {n}\n"}).written
            expect(sorted(written) == [edited.relative_to(root).as_posix(), staged], str(written))

        rows.append(("sync, 2 changed / git status", median_ns(sync_changed, repeat), git_status))
        edited.write_text(original)
        if mounter is not None:
            rows += overlay_rows(root, mounter, repeat, git_status)

    def listed() -> None:
        result = asyncio.run(LIST.run({"path": None, "glob": None}, ctx))
        expect(result.summary == f"{files + 1} files", result.summary)

    ls = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    rows.append(
        (
            "list_files / git ls-files",
            median_ns(listed, repeat),
            median_ns(lambda: command(ls, root), repeat),
        )
    )
    hits = len(range(0, files, 100))

    def grepped() -> None:
        args = {"pattern": NEEDLE, "path": None, "glob": None, "ignore_case": None, "context": None}
        result = asyncio.run(GREP.run(args, ctx))
        expect(result.summary.startswith(f"{hits} match"), result.summary)

    name, baseline = grep_baseline()
    rows.append(
        (
            f"grep / {name}",
            median_ns(grepped, repeat),
            median_ns(lambda: command(baseline, root), repeat),
        )
    )
    one = "src/pkg0/mod0/file0.py"

    def viewed() -> None:
        result = asyncio.run(VIEW.run({"path": one, "start_line": None, "end_line": None}, ctx))
        expect(NEEDLE in result.text, result.text)

    rows.append(
        (
            "view_file / read the file",
            median_ns(viewed, repeat),
            median_ns((root / one).read_text, repeat),
        )
    )
    return rows


def overlay_rows(
    root: Path, mounter: OverlayMounter, repeat: int, git_status: float
) -> list[tuple[str, float, float]]:
    """The overlay's syncs beside ``git status``, and a sandboxed command in it beside one
    in the copy (as the sandbox has it: linked folders as mount points)."""
    rows = []
    edited, staged = root / "src/pkg0/mod0/file1.py", "src/pkg0/mod0/file2.py"
    original = edited.read_text()
    sandbox = choose("bubblewrap")
    settings = Settings()
    with ShadowOverlay(root, mounter) as shadow:

        def sync() -> None:
            report = shadow.write({})
            expect(report.written == report.removed == [], f"a sync with no change: {report}")

        rows.append(("sync (overlay), no change / git status", median_ns(sync, repeat), git_status))
        versions = iter(range(10**6))

        def sync_changed() -> None:  # the user's change shows through: only the staged is written
            n = next(versions)
            edited.write_text(f"{original}# edit {n}\n")
            written = shadow.write({staged: f"STAGED = {n}\n"}).written
            expect(written == [staged], str(written))

        rows.append(
            ("sync (overlay), 2 changed / git status", median_ns(sync_changed, repeat), git_status)
        )
        edited.write_text(original)

        def true_in(tree: ShadowCopy | ShadowOverlay) -> Callable[[], None]:
            layout = command_layout(tree, settings, contained=True)
            argv = sandbox.wrap(["cat", staged], layout)

            def call() -> None:
                result = asyncio.run(
                    run_process(argv, layout.root, {"PATH": "/usr/bin:/bin"}, 30, 1000)
                )
                expect(result.exit_code == 0, result.output)

            return call

        shadow.write({staged: "STAGED = 0\n"})
        with ShadowCopy(root, {staged: "STAGED = 0\n"}, mount_points=True) as copy:
            rows.append(
                (
                    "command (overlay) / (copy)",
                    median_ns(true_in(shadow), repeat),
                    median_ns(true_in(copy), repeat),
                )
            )
    return rows


def body(repeat: int, copy_repeat: int, sizes: list[int]) -> None:
    table: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="surehand-bench-scale-") as folder:
        for files in sizes:
            root = Path(folder) / f"repo{files}"
            generate(root, files)
            for label, ours, base in measure(root, files, Path(folder), repeat, copy_repeat):
                table.setdefault(label, []).append((ours / 1e6, base / 1e6))
            shutil.rmtree(root)
    why = choose("bubblewrap").why or getattr(choose("bubblewrap"), "shadow", "")
    if why:
        print(f"\n(no overlay rows: {why})")
    header = "".join(f"{f'{n:,} files':>30}" for n in sizes)
    print(f"\nmedian ms, surehand vs baseline (ratio)\n{'':<40}{header}")
    for label, cells in table.items():
        shown = "".join(f"{f'{o:.1f} vs {b:.1f} ({o / b:.2f}x)':>30}" for o, b in cells)
        print(f"{label:<40}{shown}")
    print("\ngrowth per size step (surehand's time): ")
    for label, cells in table.items():
        steps = [f"x{cells[i + 1][0] / cells[i][0]:.1f}" for i in range(len(cells) - 1)]
        print(
            f"{label:<40}{'  '.join(steps)}  (files x{', x'.join(str(sizes[i + 1] // sizes[i]) for i in range(len(sizes) - 1))})"
        )


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, 3, "runs per figure")
    cli.add_argument(
        "--copy-repeat", type=positive, default=1, help="set-ups and cp -a runs (default: 1)"
    )
    cli.add_argument("--sizes", default="10000,50000", help="repository sizes, in files")
    args = cli.parse_args(argv)
    sizes = [int(n) for n in args.sizes.split(",")]
    return run(lambda: body(args.repeat, args.copy_repeat, sizes))


if __name__ == "__main__":
    sys.exit(main())
