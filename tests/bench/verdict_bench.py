"""What the tests' verdict adds to a proposal, beside the test command's own time.

What it measures
    A small Python project (``python3 -m unittest``) and a small Node project
    (``npm test`` running ``node --test``), each at three suite sizes ten
    times apart, one file of each changed in the overlay (the proposal):

    - ``own``: the test command run directly in the project, no sandbox, no
      copy (the baseline: what the person would wait for running it by hand);
    - ``fresh``: the verdict when the model's last run was on exactly the
      proposed text (a digest of the overlay's texts, the ledger's lookup);
    - ``stale``: the verdict when it was not: surehand runs the command in
      the sandbox's copy (synced to the overlay) before the proposal goes out;
    - ``accepted``: the check of an accepted part (other texts synced in,
      the command run).

    Each row: the median of each, and the added latency of a proposal
    (``stale`` and ``accepted``) as a ratio to ``own``.

How
    Every configuration runs once first and its verdict is checked (the
    change breaks one test: ``failed``, one failing name; the accepted part
    keeps them all green); a wrong one is reported and the script exits 1.
    ``own`` and each check are timed in turn, run for run. Timings are
    printed, never asserted.

Run: ``.venv/bin/python tests/bench/verdict_bench.py [--repeat N]``
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.checks.verdicts import Status
from agent.config.settings import Settings
from agent.execution.runner import ShadowRunner
from agent.execution.sandbox import choose
from agent.loop.test_checks import TestLedger, check_accepted, check_proposal
from agent.staging.workspace import Overlay
from agent.tools.context import ToolContext
from tests.bench import harness

DEFAULT_REPEAT = 5
SIZES = (10, 100, 1000)  # tests in the suite


def python_project(root: Path, tests: int) -> tuple[str, str, str, str]:
    """The project, and (path, text, broken text) of the file the proposal changes."""
    body = "".join(
        f"    def test_{i}(self):\n        self.assertEqual(add({i}, 1), {i + 1})\n\n"
        for i in range(tests)
    )
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "test_calc.py").write_text(
        f"import unittest\n\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n{body}"
    )
    broken = "def add(a, b):\n    return a + b if a else 0\n"
    return "python3 -m unittest", "calc.py", broken, "def add(a, b):\n    return b + a\n"


def node_project(root: Path, tests: int) -> tuple[str, str, str, str]:
    body = "".join(
        f"test('t{i}', () => assert.strictEqual(add({i}, 1), {i + 1}));\n" for i in range(tests)
    )
    (root / "package.json").write_text('{"name": "b", "scripts": {"test": "node --test"}}\n')
    (root / "calc.js").write_text("exports.add = (a, b) => a + b;\n")
    (root / "test").mkdir()
    (root / "test/calc.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        f"const {{ add }} = require('../calc');\n{body}"
    )
    return (
        "npm test",
        "calc.js",
        "exports.add = (a, b) => (a ? a + b : 0);\n",
        ("exports.add = (a, b) => b + a;\n"),
    )


def row(
    name: str,
    make: Callable[[Path, int], tuple[str, str, str, str]],
    tests: int,
    repeat: int,
) -> None:
    with tempfile.TemporaryDirectory(prefix="surehand-verdict-bench-") as folder:
        root = Path(folder)
        command, path, broken, green = make(root, tests)
        argv = command.split()
        settings = Settings(sandbox="bubblewrap", test_commands=(command,))
        overlay = Overlay(root)
        overlay.stage(path, broken, "the proposal")
        runner = ShadowRunner(overlay)
        ctx = ToolContext(overlay, settings, runner=runner)
        ledger = TestLedger()
        loop = asyncio.new_event_loop()
        try:

            def own() -> None:
                subprocess.run(argv, cwd=root, capture_output=True, check=False, timeout=600)

            def stale() -> Status:
                ledger.clear()
                (verdict,) = loop.run_until_complete(check_proposal(ctx, ledger, lambda e: None))
                return verdict.status

            first = stale()
            harness.expect(first is Status.FAILED, f"{name} {tests}: the proposal read {first}")
            failing = ledger.runs[-1].counts.failing
            harness.expect(len(failing) == 1, f"{name} {tests}: failing {failing}")

            def fresh() -> Status:
                (verdict,) = loop.run_until_complete(check_proposal(ctx, ledger, lambda e: None))
                return verdict.status

            def accepted() -> Status:
                (verdict,) = loop.run_until_complete(
                    check_accepted(
                        ctx,
                        ledger,
                        [tuple(argv)],
                        {path: green},
                        lambda e: None,
                        rejected=1,
                        hunks=2,
                    )
                )
                return verdict.status

            harness.expect(accepted() is Status.PASSED, f"{name} {tests}: accepted part")
            stale()  # the ledger holds the proposal's run again, for ``fresh``
            (fresh_ns, own_ns) = harness.paired_median_ns(fresh, own, repeat)
            (stale_ns, _) = harness.paired_median_ns(stale, own, repeat)
            (accepted_ns, _) = harness.paired_median_ns(accepted, own, repeat)
        finally:
            loop.close()
            runner.close()
    ms = 1e6
    print(
        f"{name:<7}{tests:>6}  own {own_ns / ms:8.1f} ms  fresh {fresh_ns / ms:7.3f} ms  "
        f"stale {stale_ns / ms:8.1f} ms ({stale_ns / own_ns:4.2f}x own)  "
        f"accepted {accepted_ns / ms:8.1f} ms ({accepted_ns / own_ns:4.2f}x own)"
    )


def main() -> int:
    args = harness.parser(__doc__ or "", DEFAULT_REPEAT, "timed runs of each").parse_args()
    sandbox = choose("bubblewrap")
    if not sandbox.contained:
        print(f"no sandbox here ({sandbox.why}): nothing to measure")
        return 0

    def body() -> None:
        print("project  tests  (own: the command by hand; fresh/stale/accepted: the verdict)")
        projects: list[tuple[str, Callable[[Path, int], tuple[str, str, str, str]]]] = [
            ("python", python_project)
        ]
        if shutil.which("npm"):
            projects.append(("node", node_project))
        for name, make in projects:
            for tests in SIZES:
                row(name, make, tests, args.repeat)

    return harness.run(body, f", sandbox: {sandbox.name}")


if __name__ == "__main__":
    sys.exit(main())
