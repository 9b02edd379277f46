"""Benchmark of the agent's machinery, one section per part, each printing a table.

Sections
    ``shadow``: the shadow copy commands run in (``agent.execution.shadow.ShadowCopy``)
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
    copytree. Every sync is checked to write exactly the files that changed,
    none when nothing did.

    ``steps``: the loop's own cost per step (everything but the model) with a
    model that answers at once, on the same 5,000-file repository: the
    median step of ``--repeat`` sessions each making 20 ``view_file`` /
    ``grep`` / ``list_files`` / ``edit`` calls, next to the median of the
    bare operation each wraps (reading the file, one ``rg`` run, a
    ``Path.rglob``, ``str.replace``), once per input, timed in the same run.
    Every step is checked to have succeeded (and every ``grep`` to have
    found matches).

    ``prompt``: the size of what every request carries before the
    conversation: the system prompt and the tool schemas as the model
    client sends them.

How
    Timings are medians in milliseconds, timed with ``time.perf_counter``
    (shadow copy: of ``--repeat`` runs), printed, never asserted. A wrong
    result is reported and the script exits 1.

Run: ``.venv/bin/python tests/bench/agent_bench.py [--sections shadow] [--repeat N]``
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.config.settings import Settings
from agent.events import StepStarted, ToolFinished
from agent.execution.shadow import ShadowCopy
from agent.loop.session import Session, system_prompt
from agent.models.openai_client import tool_payload
from agent.models.scripted import ScriptedModel, ScriptTurn
from agent.staging.proposal import Ending
from agent.tools import default_tools
from agent.tools.grep import find_ripgrep
from tests.bench.harness import expect, parser, run

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


def synced(shadow: ShadowCopy, texts: dict[str, str], what: str, wanted: int) -> float:
    """Seconds of one sync, checked to write ``wanted`` files."""
    seconds, report = timed(lambda: shadow.write(texts))
    got = len(report.written)
    expect(got == wanted, f"{what}: wrote {got} files, expected {wanted}")
    return seconds


_CHANGES = itertools.count()


def measure_shadow(root: Path, paths: list[str], repeat: int) -> dict[str, float]:
    """The median of each shadow-copy case, in ms."""
    rows = measure_setup(root, paths, repeat)
    with ShadowCopy(root) as shadow:
        rows["sync, no change"] = median_ms(
            [synced(shadow, {}, "no change", 0) for _ in range(repeat)]
        )
        for count in STAGED_COUNTS:
            samples = []
            for n in range(repeat):
                texts = dict.fromkeys(paths[:count], f"STAGED = {n}\n")
                samples.append(synced(shadow, texts, f"{count} staged", count))
            synced(shadow, {}, f"{count} unstaged", count)  # back to the disk's texts
            rows[f"sync, {count} staged"] = median_ms(samples)
        samples = []
        for _ in range(repeat):
            # A text no earlier run wrote (the git run commits what the plain run left).
            text = f"CHANGED = {next(_CHANGES)}\n"
            for rel in paths[-DISK_CHANGES:]:
                (root / rel).write_text(text, encoding="utf-8")
            samples.append(synced(shadow, {}, "disk changes", DISK_CHANGES))
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
        written = len(shadow.setup.written)
        expect(written == len(paths) + 1, f"set-up: wrote {written} files")  # and .gitignore
        expect("node_modules" in shadow.links, "node_modules was copied, not linked")
        with tempfile.TemporaryDirectory() as scratch:
            target = Path(scratch) / "copy"
            copies.append(timed(partial(shutil.copytree, root, target, ignore=ignore))[0])
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


# -- the loop's overhead per step --------------------------------------------------

STEPS = 20  # timed steps per tool
# Twenty patterns, each found in a tenth of the files.
GREP_PATTERNS = [f"LIMIT_{f} = " for f in range(FILES)] + [f"def load_{f}" for f in range(FILES)]


def _chosen(paths: list[str]) -> list[str]:
    """``STEPS`` files spread through the repository."""
    return paths[:: len(paths) // STEPS][:STEPS]


def _calls(tool: str, paths: list[str]) -> list[tuple[str, dict[str, object]]]:
    """``STEPS`` calls of one tool, each on another file, package or pattern."""
    chosen = _chosen(paths)
    if tool == "view_file":
        return [("view_file", {"path": p, "start_line": None, "end_line": None}) for p in chosen]
    if tool == "grep":
        unset = dict.fromkeys(("path", "glob", "ignore_case", "context"))
        return [("grep", {"pattern": pattern, **unset}) for pattern in GREP_PATTERNS[:STEPS]]
    if tool == "list_files":
        return [("list_files", {"path": f"src/pkg_{i}", "glob": None}) for i in range(STEPS)]
    return [
        (
            "edit",
            {
                "path": p,
                "old": "        self.size = size\n",
                "new": "        self.size = max(size, 0)\n",
                "replace_all": None,
                "description": "clamp",
            },
        )
        for p in chosen
    ]


def _baseline(tool: str, root: Path, paths: list[str]) -> Callable[[int], object]:
    """The bare operation each tool wraps, for the same inputs."""
    chosen = _chosen(paths)
    if tool == "view_file":
        return lambda i: (root / chosen[i]).read_text(encoding="utf-8")
    if tool == "grep":
        rg = find_ripgrep()
        expect(rg is not None, "no rg to time the grep baseline with")
        return lambda i: subprocess.run(
            [str(rg), "-n", GREP_PATTERNS[i], str(root)], capture_output=True, check=False
        )
    if tool == "list_files":
        return lambda i: sorted((root / "src" / f"pkg_{i}").rglob("*.py"))
    return lambda i: (
        (root / chosen[i])
        .read_text(encoding="utf-8")
        .replace("        self.size = size\n", "        self.size = max(size, 0)\n")
    )


def _step_times(root: Path, tool: str, paths: list[str]) -> list[float]:
    """Seconds of every step of a session whose model answers at once."""
    calls = _calls(tool, paths)
    turns = [ScriptTurn("", (call,)) for call in calls]
    model = ScriptedModel([*turns, ScriptTurn("", (("finish", {"summary": "done"}),))])
    settings = Settings(model="bench", trace_dir=tempfile.mkdtemp(prefix="surehand-bench-t-"))
    session = Session(root, model, settings)
    starts: list[float] = []
    finished: list[ToolFinished] = []

    def on_event(event: object) -> None:
        if isinstance(event, StepStarted):
            starts.append(time.perf_counter())
        elif isinstance(event, ToolFinished):
            finished.append(event)

    proposal = asyncio.run(session.run("bench", on_event=on_event))
    starts.append(time.perf_counter())
    runner = session.ctx.runner
    assert runner is not None
    runner.close()
    shutil.rmtree(settings.trace_dir, ignore_errors=True)
    ending = proposal.end.ending
    expect(ending == Ending.FINISHED, f"{tool} session ended {ending.name}")
    expect(len(finished) == STEPS + 1, f"{tool}: {len(finished)} calls, expected {STEPS + 1}")
    for event in finished:
        ok = event.ok and event.summary != "no matches"
        expect(ok, f"{tool} step {event.step} failed: {event.summary}")
    return [b - a for a, b in itertools.pairwise(starts)][:STEPS]


def steps_section(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="surehand-bench-") as scratch:
        root = Path(scratch) / "repo"
        paths = generate(root)
        print(
            f"\nper-step overhead (everything but the model; the model answers at once): "
            f"{len(paths):,} files; median of {STEPS * args.repeat} steps "
            f"({args.repeat} x {STEPS}) and of {STEPS} bare ops, ms"
        )
        print(f"{'tool':<14}{'step':>10}{'bare op':>10}{'ratio':>9}")
        for tool in ("view_file", "grep", "list_files", "edit"):
            samples = [_step_times(root, tool, paths) for _ in range(args.repeat)]
            step = median_ms([s for run in samples for s in run])
            bare = _baseline(tool, root, paths)
            bare_ms = median_ms([timed(partial(bare, i))[0] for i in range(STEPS)])
            print(f"{tool:<14}{step:>10.2f}{bare_ms:>10.2f}{step / bare_ms:>8.1f}x")


def prompt_section(args: argparse.Namespace) -> None:
    """What every request carries before the conversation: system prompt and tool specs."""
    tools = default_tools()
    specs = [json.dumps(tool_payload(t.spec)) for t in tools.values()]
    prompt = system_prompt(Path("/workspace/project"))
    total = len(prompt) + sum(map(len, specs))
    print(f"\nfixed context per request ({len(tools)} tools)")
    print(f"{'system prompt':<24}{len(prompt):>8} chars")
    print(f"{'tool schemas':<24}{sum(map(len, specs)):>8} chars")
    print(f"{'total':<24}{total:>8} chars  (about {total // 4:,} tokens at 4 chars a token)")


# -- running ------------------------------------------------------------------------

SECTIONS: dict[str, Callable[[argparse.Namespace], None]] = {
    "prompt": prompt_section,
    "steps": steps_section,
    "shadow": shadow_section,
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    return parser(__doc__, DEFAULT_REPEAT, "timed runs and sessions", SECTIONS).parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def body() -> None:
        for name in args.sections:
            SECTIONS[name](args)

    return run(body)


if __name__ == "__main__":
    sys.exit(main())
