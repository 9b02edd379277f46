"""Benchmark of the agent's machinery, one section per part, each printing a table.

Sections
    ``shadow``: the shadow copy commands run in (``agent.shadow.ShadowCopy``)
    on a generated repository of 5,000 small Python files in nested
    packages, with a ``.gitignore`` that ignores ``node_modules/`` and a
    ``node_modules/`` of 2,000 files (linked into the copy, never copied).
    Timed as a plain folder (the walk with ``pathspec``) and as a git
    repository with everything committed (``git ls-files``):

    - ``set-up``: making the copy (the first ``ShadowCopy``);
    - ``sync, no change``: a sync when nothing changed (the scan alone);
    - ``sync, N staged``: a sync after staging new texts of N files;
    - ``sync, 10 disk changes``: a sync after 10 files changed on disk.

    The baseline, timed in the same run, is ``shutil.copytree`` of the same
    tree without ``node_modules`` and ``.git``; the last row is set-up /
    copytree. Every sync is checked to write exactly the files that changed
    (a wrong count is reported and the script exits 1).

    More sections (the per-step overhead of the loop) go in ``SECTIONS``.

How
    Each figure is the median of ``--repeat`` runs in milliseconds, timed
    with ``time.perf_counter``; timings are printed, never asserted.

Run: ``.venv/bin/python tests/bench/agent_bench.py [--sections shadow] [--repeat N]``
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from agent.shadow import ShadowCopy

DEFAULT_REPEAT = 3
PACKAGES, MODULES, FILES = 50, 10, 10  # 5,000 source files
NODE_PACKAGES, NODE_FILES = 200, 10  # 2,000 files in node_modules
STAGED_COUNTS = (1, 10, 100)
DISK_CHANGES = 10

T = TypeVar("T")
ROW_ORDER = [
    "set-up",
    "sync, no change",
    *(f"sync, {count} staged" for count in STAGED_COUNTS),
    f"sync, {DISK_CHANGES} disk changes",
    "copytree baseline",
]


class WrongResult(Exception):
    pass


# -- the shadow copy -------------------------------------------------------------


def _source(p: int, m: int, f: int) -> str:
    """A small module: imports, a dataclass-like class and two functions."""
    return (
        f'"""Module {f} of pkg_{p}.mod_{m}."""\n\nfrom __future__ import annotations\n\n'
        f"import os\n\nLIMIT_{f} = {p * m + f}\n\n\n"
        f"class Record{f}:\n    def __init__(self, name: str, size: int) -> None:\n"
        f"        self.name = name\n        self.size = size\n\n"
        f"    def describe(self) -> str:\n        return f'{{self.name}}: {{self.size}}'\n\n\n"
        f"def load_{f}(path: str) -> list[Record{f}]:\n"
        f"    with open(path) as handle:\n"
        f"        return [Record{f}(line.strip(), len(line)) for line in handle]\n\n\n"
        f"def total_{f}(records: list[Record{f}]) -> int:\n"
        f"    return sum(r.size for r in records if r.size < LIMIT_{f}) + len(os.sep)\n"
    )


def generate(root: Path) -> list[str]:
    """The repository; returns the source files' relative paths."""
    paths = []
    for p in range(PACKAGES):
        for m in range(MODULES):
            folder = root / "src" / f"pkg_{p}" / f"mod_{m}"
            folder.mkdir(parents=True)
            for f in range(FILES):
                (folder / f"file_{f}.py").write_text(_source(p, m, f), encoding="utf-8")
                paths.append(f"src/pkg_{p}/mod_{m}/file_{f}.py")
    for n in range(NODE_PACKAGES):
        folder = root / "node_modules" / f"dep-{n}" / "lib"
        folder.mkdir(parents=True)
        for f in range(NODE_FILES):
            (folder / f"part{f}.js").write_text(f"module.exports = {f};\n", encoding="utf-8")
    (root / ".gitignore").write_text("node_modules/\n__pycache__/\n", encoding="utf-8")
    return paths


def commit(root: Path) -> None:
    identity = ["-c", "user.name=bench", "-c", "user.email=b@example.com"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "--no-gpg-sign", "-m", "x"]):
        subprocess.run(["git", *identity, *args], cwd=root, check=True)


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def timed(action: Callable[[], T]) -> tuple[float, T]:
    began = time.perf_counter()
    value = action()
    return time.perf_counter() - began, value


def expect(what: str, got: int, wanted: int) -> None:
    if got != wanted:
        raise WrongResult(f"{what}: wrote {got} files, expected {wanted}")


def measure_shadow(root: Path, paths: list[str], repeat: int) -> dict[str, float]:
    """The median of each shadow-copy case, in ms."""
    rows = measure_setup(root, paths, repeat)
    with ShadowCopy(root) as shadow:
        rows["sync, no change"] = median_ms(
            [timed(lambda: shadow.write({}))[0] for _ in range(repeat)]
        )
        for count in STAGED_COUNTS:
            samples = []
            for run in range(repeat):
                texts = dict.fromkeys(paths[:count], f"STAGED = {run}\n")
                seconds, report = timed(lambda texts=texts: shadow.write(texts))
                expect(f"{count} staged", len(report.written), count)
                samples.append(seconds)
            shadow.write({})  # back to the disk's texts
            rows[f"sync, {count} staged"] = median_ms(samples)
        samples = []
        for run in range(repeat):
            for rel in paths[-DISK_CHANGES:]:
                (root / rel).write_text(f"CHANGED = {run}\n", encoding="utf-8")
            seconds, report = timed(lambda: shadow.write({}))
            expect("disk changes", len(report.written), DISK_CHANGES)
            samples.append(seconds)
        rows[f"sync, {DISK_CHANGES} disk changes"] = median_ms(samples)
    return rows


def measure_setup(root: Path, paths: list[str], repeat: int) -> dict[str, float]:
    """Set-up and the copytree baseline, taken in turns so both see the same disk."""
    setups, copies = [], []
    ignore = shutil.ignore_patterns("node_modules", ".git")
    for _ in range(repeat):
        seconds, shadow = timed(lambda: ShadowCopy(root))
        setups.append(seconds)
        shadow.close()
        expect("set-up", len(shadow.setup.written), len(paths) + 1)  # and .gitignore
        if "node_modules" not in shadow.links:
            raise WrongResult("node_modules was copied, not linked")
        with tempfile.TemporaryDirectory() as scratch:
            target = Path(scratch) / "copy"
            copies.append(timed(lambda t=target: shutil.copytree(root, t, ignore=ignore))[0])
    return {"set-up": median_ms(setups), "copytree baseline": median_ms(copies)}


def shadow_section(args: argparse.Namespace) -> None:
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="surehand-bench-") as scratch:
        root = Path(scratch) / "repo"
        paths = generate(root)
        results["plain"] = measure_shadow(root, paths, args.repeat)
        commit(root)  # the same tree, now a repository
        results["git"] = measure_shadow(root, paths, args.repeat)
    print(
        f"\nshadow copy: {len(paths):,} source files, node_modules of "
        f"{NODE_PACKAGES * NODE_FILES:,} files linked; median of {args.repeat} runs, ms"
    )
    print(f"{'case':<24}{'plain':>10}{'git':>10}")
    for case in ROW_ORDER:
        print(f"{case:<24}{results['plain'][case]:>10.1f}{results['git'][case]:>10.1f}")
    ratios = [r["set-up"] / r["copytree baseline"] for r in (results["plain"], results["git"])]
    print(f"{'set-up / copytree':<24}{ratios[0]:>9.2f}x{ratios[1]:>9.2f}x")


# -- running ------------------------------------------------------------------------

SECTIONS: dict[str, Callable[[argparse.Namespace], None]] = {
    "shadow": shadow_section,
    # "steps": the per-step overhead of the loop, to come.
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated")
    parser.add_argument("--repeat", type=int, default=DEFAULT_REPEAT)
    args = parser.parse_args(argv)
    args.sections = [s for s in args.sections.split(",") if s]
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    began = time.perf_counter()
    print(f"Python {sys.version.split()[0]}")
    try:
        for name in args.sections:
            SECTIONS[name](args)
    except WrongResult as error:
        print(f"WRONG RESULT: {error}")
        return 1
    print(f"\ntotal {time.perf_counter() - began:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
