"""Command output read through the output buffer: time and peak memory at three sizes.

A child process prints N MB; each figure is measured in a fresh interpreter
(so its peak resident memory is its own): the same bytes read from the pipe
and thrown away (the baseline), then read by ``run_process`` into an
``OutputBuffer`` at the default cap (8 000 characters) and at a cap of
2 000 000 000 (held to the ceiling, ``MAX_OUTPUT_CHARS``). A linear buffer
takes time in step with the baseline and memory that does not grow with N. Figures only, medians of ``--repeat``.

Usage: python tests/bench/output_bench.py [--repeat N] [--big]  (--big: 10, 100, 400 MB)
"""

from __future__ import annotations

import asyncio
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent.execution.runner import MAX_OUTPUT_CHARS, run_process  # noqa: E402
from tests.bench.harness import expect, parser, run  # noqa: E402

MB = 1_000_000
SIZES = (1, 10, 100)
BIG_SIZES = (10, 100, 400)
HUGE_CAP = 2_000_000_000
PRINTER = (
    "import sys\n"
    "block = (('z' * 99 + '\\n') * 655)[:65_536].encode()\n"
    "out = sys.stdout.buffer\n"
    "left = {size}\n"
    "while left > 0:\n"
    "    out.write(block[:left]); left -= len(block)\n"
)


def printer(size: int) -> list[str]:
    return [sys.executable, "-c", PRINTER.format(size=size)]


class _Drain(asyncio.SubprocessProtocol):
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.read = 0
        self.closed: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.read += len(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set_result(None)


async def _drain(size: int) -> int:
    loop = asyncio.get_running_loop()
    drain = _Drain(loop)
    transport, _ = await loop.subprocess_exec(
        lambda: drain,
        *printer(size),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    await drain.closed
    transport.close()
    return drain.read


def child(mode: str, size: int) -> None:
    """One measurement in this interpreter: print seconds, peak MB and what was kept."""
    began = time.perf_counter()
    if mode == "baseline":
        kept = asyncio.run(_drain(size))
        expect(kept == size, f"baseline read {kept} of {size} bytes")
    else:
        cap = int(mode)
        result = asyncio.run(run_process(printer(size), ROOT, {"PATH": "/usr/bin:/bin"}, 600, cap))
        expect(result.exit_code == 0, result.output[-500:])
        kept = len(result.output)
        expect(kept <= min(cap, MAX_OUTPUT_CHARS) + 64, f"kept {kept} characters")
    seconds = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000  # kB on Linux
    print(json.dumps({"seconds": seconds, "peak_mb": peak, "kept": kept}))


def measure(mode: str, size: int, repeat: int) -> tuple[float, float]:
    runs = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, __file__, "--child", mode, str(size)],
            capture_output=True,
            text=True,
            check=False,
        )
        expect(done.returncode == 0, f"{mode} {size}: {done.stdout}{done.stderr}")
        runs.append(json.loads(done.stdout.splitlines()[-1]))
    return (
        statistics.median(r["seconds"] for r in runs),
        statistics.median(r["peak_mb"] for r in runs),
    )


def body(repeat: int, sizes: tuple[int, ...]) -> None:
    modes = {"pipe to nothing": "baseline", "cap 8 000": "8000"}
    modes["cap 2 000 000 000"] = str(HUGE_CAP)  # as an untrusted project file may ask
    print("\nseconds (median) and peak resident MB of the reading process")
    header = "".join(f" {label:>22}" for label in modes)
    print(f"{'output':>8}{header}")
    for size in sizes:
        cells = []
        for mode in modes.values():
            seconds, peak = measure(mode, size * MB, repeat)
            cells.append(f"{seconds:>8.2f} s {peak:>7.1f} MB")
        print(f"{size:>5} MB" + "".join(f" {c:>22}" for c in cells))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1], int(argv[2]))
        return 0
    options = parser(__doc__, 3, "runs per figure")
    options.add_argument("--big", action="store_true", help="10, 100 and 400 MB")
    args = options.parse_args(argv)
    return run(lambda: body(args.repeat, BIG_SIZES if args.big else SIZES))


if __name__ == "__main__":
    sys.exit(main())
