"""The cost of the sandbox per command: each command sandboxed and not, in the same run.

Three tables. The first starts the process alone (``run_process``), wrapped in
bubblewrap and bare, for three commands; the second, sandboxed, with the
resource limits and without them (the supervisor, ``prlimit``, sized
tmpfs, as root a cgroup); the third times the whole
``run_command`` step (sync of the shadow copy, then the command) on
workspaces of three sizes, sandboxed and not. Medians; figures only.

Usage: python tests/bench/sandbox_bench.py [--repeat N]
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.config.settings import Settings
from agent.execution.command_layout import command_layout
from agent.execution.runner import ShadowRunner, run_process
from agent.execution.sandbox import Unsandboxed, choose
from agent.staging.workspace import Overlay
from tests.bench.harness import expect, median_ns, parser, run

COMMANDS = {
    "true": ["true"],
    "python3 -c pass": ["python3", "-c", "pass"],
    "python3 -m unittest (1 test)": ["python3", "-m", "unittest", "-q"],
}
SIZES = (100, 1_000, 5_000)
TEST = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_one(self):\n        self.assertTrue(True)\n"


def make_workspace(root: Path, files: int) -> Path:
    for i in range(files):
        folder = root / f"pkg{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_text(f"VALUE = {i}\n")
    (root / "test_one.py").write_text(TEST)
    return root


def body(repeat: int) -> None:
    sandbox = choose("bubblewrap")
    expect(sandbox.contained, f"no sandbox to measure: {getattr(sandbox, 'why', '')}")
    bare = Unsandboxed("measured without one")
    settings = Settings()
    with tempfile.TemporaryDirectory(prefix="surehand-bench-sandbox-") as folder:
        workspace = make_workspace(Path(folder) / "ws", 10)
        runner = ShadowRunner(Overlay(workspace), sandbox=sandbox)
        asyncio.run(runner.run(["true"], 30, settings))  # the copy, made once
        assert runner.shadow is not None
        print("\nstarting a process (median ms)")
        print(f"{'command':<30} {'bare':>8} {'sandboxed':>10} {'extra':>8} {'ratio':>6}")
        for label, argv in COMMANDS.items():
            times = {}
            for which in (bare, sandbox):
                layout = command_layout(runner.shadow, settings, contained=which.contained)
                env = runner.environment(layout, settings, contained=which.contained)
                wrapped = which.wrap(argv, layout)

                def start(
                    wrapped: list[str] = wrapped,
                    env: dict[str, str] = env,
                    root: Path = layout.root,
                ) -> None:
                    result = asyncio.run(run_process(wrapped, root, env, 30, 8_000))
                    expect(result.exit_code == 0, f"{wrapped}: {result.output}")

                times[which.name] = median_ns(start, repeat) / 1e6
            extra = times["bubblewrap"] - times["none"]
            print(
                f"{label:<30} {times['none']:>8.1f} {times['bubblewrap']:>10.1f} "
                f"{extra:>8.1f} {times['bubblewrap'] / times['none']:>5.2f}x"
            )
        print("\nsandboxed, with the resource limits and without (median ms)")
        print(f"{'command':<30} {'no limits':>10} {'limits':>8} {'extra':>8} {'ratio':>6}")
        layout = command_layout(runner.shadow, settings, contained=True)
        env = runner.environment(layout, settings, contained=True)
        for label, argv in COMMANDS.items():
            limited = {}
            for name, each in (("none", dataclasses.replace(layout, limits=None)), ("on", layout)):
                wrapped = sandbox.wrap(argv, each)

                def start_limited(wrapped: list[str] = wrapped) -> None:
                    result = asyncio.run(run_process(wrapped, layout.root, env, 30, 8_000))
                    expect(result.exit_code == 0, f"{wrapped}: {result.output}")

                limited[name] = median_ns(start_limited, repeat) / 1e6
            extra = limited["on"] - limited["none"]
            print(
                f"{label:<30} {limited['none']:>10.1f} {limited['on']:>8.1f} "
                f"{extra:>8.1f} {limited['on'] / limited['none']:>5.2f}x"
            )
        runner.close()
        print("\nrun_command step: sync, then python3 -m unittest (median ms)")
        print(f"{'files':>7} {'bare':>8} {'sandboxed':>10} {'ratio':>6}")
        for size in SIZES:
            workspace = make_workspace(Path(folder) / f"ws{size}", size)
            times = {}
            for which in (bare, sandbox):
                runner = ShadowRunner(Overlay(workspace), sandbox=which)
                argv = COMMANDS["python3 -m unittest (1 test)"]

                def step(runner: ShadowRunner = runner, argv: list[str] = argv) -> None:
                    result = asyncio.run(runner.run(argv, 60, settings))
                    expect(result.exit_code == 0, result.output)

                times[which.name] = median_ns(step, repeat) / 1e6
                runner.close()
            ratio = times["bubblewrap"] / times["none"]
            print(f"{size:>7} {times['none']:>8.1f} {times['bubblewrap']:>10.1f} {ratio:>5.2f}x")


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__, 10, "runs per figure").parse_args(argv)
    return run(lambda: body(args.repeat))


if __name__ == "__main__":
    sys.exit(main())
