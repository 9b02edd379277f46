"""How fast the language server answers ``initialize``, beside a bare pygls server.

Spawns ``surehand serve`` (the console script beside this interpreter, or
``python -m lsp_server`` where it is not installed) and a pygls server with
no features, each as an editor would (a new process on stdio), sends
``initialize`` and times spawn to reply; median of ``--repeat`` starts each,
interleaved. Also says which heavy modules (the ``openai`` package, the tool
loop, the edit engine) the server's command line loads (none should be: they
are imported on the first task).

Usage: python tests/bench/start_bench.py [--repeat N]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.harness import expect, parser, run

BARE = "from pygls.lsp.server import LanguageServer\nLanguageServer('bare', '0').start_io()\n"
HEAVY = ("openai", "agent.loop.session", "agent.tools.grep", "editing.matcher", "editing.report")
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}


def started(argv: list[str]) -> float:
    """Seconds from spawning ``argv`` to its answer to ``initialize``."""
    body = json.dumps(INITIALIZE).encode()
    began = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        process.stdin.flush()
        length = 0
        while (line := process.stdout.readline().strip()) != b"":
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        answer = json.loads(process.stdout.read(length))
        elapsed = time.perf_counter() - began
        expect("capabilities" in answer.get("result", {}), f"{argv}: {answer}")
        return elapsed
    finally:
        process.kill()
        process.wait()


def loaded_at_start() -> list[str]:
    """Which of the heavy modules importing the server's command line loads."""
    code = (
        "import sys, lsp_server.cli; print(' '.join(m for m in sys.argv[1:] if m in sys.modules))"
    )
    argv = [sys.executable, "-c", code, *HEAVY]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()


def surehand_serve() -> tuple[str, list[str]]:
    """How the server is started, in words and as a command line."""
    script = Path(sys.executable).parent / "surehand"
    if script.is_file():
        return "surehand serve", [str(script), "serve"]
    return "python -m lsp_server", [sys.executable, "-m", "lsp_server"]


def body(repeat: int) -> None:
    started_as, ours = surehand_serve()
    bare = [sys.executable, "-c", BARE]
    times: dict[str, list[float]] = {"surehand": [], "bare pygls": []}
    started(ours), started(bare)  # warm the file cache
    for _ in range(repeat):
        times["surehand"].append(started(ours))
        times["bare pygls"].append(started(bare))
    medians = {name: statistics.median(t) * 1000 for name, t in times.items()}
    print(f"\nspawn to initialize reply, median of {repeat}, ms")
    for name, value in medians.items():
        print(f"{name:<12} {value:8.1f}")
    print(f"ratio        {medians['surehand'] / medians['bare pygls']:8.2f}x")
    print(f"surehand started as: {started_as}")
    print(f"heavy modules imported at start: {', '.join(loaded_at_start()) or 'none'}")


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__, 9, "starts of each server").parse_args(argv)
    return run(lambda: body(args.repeat))


if __name__ == "__main__":
    sys.exit(main())
