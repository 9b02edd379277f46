"""What the editing tools add to the engine, and how that grows with the input.

What it measures
    The inputs of ``engine_growth_bench.py``'s patch, long-old and replace_all
    paths, each at three sizes ten times apart, sent through the model's tool
    (``apply_patch``, ``edit``) on a real overlay of a temporary folder: the
    file read from disk, the engine, the check that the edit touches nothing
    the model has not seen, and the staging of the result as hunks of the
    file the review will show. Baseline: the engine's own call on the same
    text, in the same run. Each row also runs once with the file changed on
    disk after the model viewed it, far from the edit (the user typed), so
    the stale-view check has a real diff to make (``_typed`` rows).

    Each row: the tool's median, the engine's, their ratio (what the tool
    adds, 1.0 is nothing), and the tool's growth per 10x input (10 is linear).

How
    Every size runs once first and its staged text is checked against the
    engine's result; a wrong one is reported and the script exits 1. Each
    timed run starts from a new overlay. The tool and the engine are timed in
    turn, run for run (at least three runs of each). Timings are printed,
    never asserted.

Run: ``.venv/bin/python tests/bench/tool_growth_bench.py [--repeat N]``
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.config.settings import Settings
from agent.staging.workspace import Overlay
from agent.tools import apply_patch, edit
from agent.tools.context import ToolContext
from editing import apply_edit
from editing.patch import apply_patch as engine_apply_patch
from tests.bench import engine_growth_bench as engine_bench
from tests.bench import harness

DEFAULT_REPEAT = 5
PATH = "gen.py"


@dataclass(frozen=True)
class Case:
    """A file, the tool call that edits it, and the engine call that does the same."""

    text: str
    tool: Any
    args: dict[str, Any]
    engine: Callable[[], object]
    expected: str


def patch_case(chunks: int) -> Case:
    text, patch, expected = engine_bench.patch_input(chunks, PATH)
    args = {"patch": patch, "description": "call items"}
    return Case(
        text,
        apply_patch.TOOL,
        args,
        lambda: engine_apply_patch(patch, lambda path: text if path == PATH else None),
        expected,
    )


def long_old_case(lines: int) -> Case:
    text, old, new, expected = engine_bench.long_old_input(lines, lines // 10)
    args = {"path": PATH, "old": old, "new": new, "replace_all": None, "description": "check"}
    return Case(text, edit.TOOL, args, lambda: apply_edit(text, old, new, path=PATH), expected)


def replace_all_case(lines: int) -> Case:
    old, new = "compute(a)", "compute(a) or 0"
    text = "".join(f"    value_{i} = {new if i % 2 else old}\n" for i in range(lines))
    args = {"path": PATH, "old": old, "new": new, "replace_all": True, "description": "or 0"}
    return Case(
        text,
        edit.TOOL,
        args,
        lambda: apply_edit(text, old, new, replace_all=True, path=PATH),
        text.replace(f"= {old}\n", f"= {new}\n"),
    )


PATHS: dict[str, tuple[Callable[[int], Case], tuple[int, int, int], str]] = {
    "apply_patch": (patch_case, (50, 500, 5_000), "chunks"),
    "edit_long_old": (long_old_case, (200, 2_000, 20_000), "old lines"),
    "edit_replace_all": (replace_all_case, (160, 1_600, 16_000), "file lines"),
}


def _typed(text: str) -> str:
    """The file after the user added a line at its end (below every edit)."""
    return text + "# typed\n"


class Run:
    """One tool call on a fresh overlay of ``root``, the model having viewed the file."""

    def __init__(self, root: Path, case: Case, *, typed: bool) -> None:
        self.root, self.case, self.typed = root, case, typed

    def __call__(self) -> str | None:
        (self.root / PATH).write_text(self.case.text, encoding="utf-8")
        ctx = ToolContext(Overlay(self.root), Settings())
        ctx.views.saw(PATH, self.case.text)
        if self.typed:
            (self.root / PATH).write_text(_typed(self.case.text), encoding="utf-8")
        asyncio.run(self.case.tool.run(self.case.args, ctx))
        return ctx.overlay.text(PATH)


def _check(run: Run, case: Case, name: str, size: int) -> None:
    staged = run()
    expected = _typed(case.expected) if run.typed else case.expected
    harness.expect(staged == expected, f"{name} at {size}: the staged text is not the engine's")


def main() -> int:
    parser = harness.parser(__doc__ or "", DEFAULT_REPEAT, "timed runs per size", PATHS)
    args = parser.parse_args()

    def body() -> None:
        print(
            f"\n{'path':<24} {'size':>7} {'unit':<10} {'tool ms':>9} {'engine ms':>10} "
            f"{'ratio':>7} {'growth/10x':>10}"
        )
        with tempfile.TemporaryDirectory(prefix="surehand-bench-") as folder:
            root = Path(folder)
            for name in args.sections:
                make, sizes, unit = PATHS[name]
                for typed in (False, True):
                    previous = None
                    label = f"{name}_typed" if typed else name
                    for index, size in enumerate(sizes):
                        case = make(size)
                        run = Run(root, case, typed=typed)
                        _check(run, case, name, size)
                        # Fewer runs at the larger sizes, never fewer than three.
                        repeat = max(min(3, args.repeat), args.repeat // (1 + 2 * index))
                        tool, engine = harness.paired_median_ns(run, case.engine, repeat)
                        growth = f"{tool / previous:10.1f}" if previous else f"{'':>10}"
                        print(
                            f"{label:<24} {size:>7,} {unit:<10} {tool / 1e6:9.2f} "
                            f"{engine / 1e6:10.2f} {tool / engine:6.1f}x {growth}"
                        )
                        previous = tool

    return harness.run(body, f", repeat {args.repeat}")


if __name__ == "__main__":
    raise SystemExit(main())
