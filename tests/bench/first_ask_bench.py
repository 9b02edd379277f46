"""How long the first ask waits before the model's first request, beside a later ask.

What it measures
    A real ``surehand serve`` on stdio, a plain LSP client (answered
    ``started`` at once) and a scripted OpenAI-compatible server. From
    sending ``surehand.ask`` to the model server receiving the task's first
    request: the first ask sent ``--pause`` seconds after ``initialized`` (a
    person writing their first request: the task machinery has been imported
    in the background meanwhile), the first ask sent at once after
    ``initialized`` (nothing imported yet: what every first ask paid before
    the background import), and the second ask of the same server (the
    baseline: everything loaded, and the connection to the model server the
    first ask opened kept open); and a third ask after the model server
    closed that connection (everything loaded, a connection to open, as the
    first ask has). Median of ``--repeat`` servers each.

How
    Each task is one model turn that finishes; the model server's requests
    are counted to tell when a task's first request came. Timings are
    printed, never asserted.

Run: ``.venv/bin/python tests/bench/first_ask_bench.py [--repeat N] [--pause S]``
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.harness import expect, parser, run
from tests.support.openai_server import Call, ScriptedServer, Turn

FINISH = Call("finish", {"summary": "nothing to do."})
WAIT = 60.0


class Client:
    """A plain LSP client on a server's stdio: answers its requests, keeps nothing else."""

    def __init__(self, settings: dict[str, Any], root: Path) -> None:
        self.settings = settings
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lsp_server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=root,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin: IO[bytes] = self.process.stdin
        self.answers: dict[int, Any] = {}
        self._lock = threading.Lock()
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        with self._lock:
            self.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.stdin.flush()

    def request(self, request_id: int, method: str, params: Any) -> Any:
        self.send({"id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + WAIT
        while request_id not in self.answers:
            expect(time.monotonic() < deadline, f"no answer to {method}")
            time.sleep(0.001)
        return self.answers.pop(request_id)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not length:
                return
            message = json.loads(stream.read(length))
            if "method" in message and "id" in message:  # the server asks: configuration
                result = [self.settings] if message["method"] == "workspace/configuration" else None
                self.send({"id": message["id"], "result": result})
            elif "id" in message:
                self.answers[message["id"]] = message.get("result", message.get("error"))


def first_request(model: ScriptedServer, before: int) -> float:
    """When the model server got its request number ``before`` + 1."""
    deadline = time.monotonic() + WAIT
    while len(model.completions) <= before:
        expect(time.monotonic() < deadline, "the model was never asked")
        time.sleep(0.0005)
    return time.perf_counter()


def one_server(pause: float) -> tuple[float, float, float]:
    """(first ask, second ask, third ask on a new connection): seconds from the ask to
    the model's first request."""
    with tempfile.TemporaryDirectory(prefix="surehand-first-ask-") as folder:
        root = Path(folder) / "project"
        root.mkdir()
        (root / "a.py").write_text("x = 1\n")
        with ScriptedServer(replies=[Turn(tool_calls=[FINISH])] * 3) as m:
            settings = {
                "model": m.model,
                "baseUrl": m.base_url,
                "apiKey": "sk-bench",
                "traceDir": str(Path(folder) / "traces"),
            }
            client = Client(settings, root)
            try:
                params = {
                    "capabilities": {},
                    "rootUri": root.as_uri(),
                    "processId": None,
                    "initializationOptions": settings,
                }
                client.request(1, "initialize", params)
                client.send({"method": "initialized", "params": {}})
                time.sleep(pause)
                times = []
                for n in range(3):
                    if n == 2:
                        m.hang_up()
                    ask = {"command": "surehand.ask", "arguments": [{"task": "Look at a.py."}]}
                    began = time.perf_counter()
                    answer = client.request(10 + n, "workspace/executeCommand", ask)
                    expect(answer.get("outcome") == "started", f"ask answered {answer}")
                    times.append(first_request(m, n) - began)
                    time.sleep(0.5)  # the task ends before the next ask
                return times[0], times[1], times[2]
            finally:
                client.close()


def body(repeat: int, pause: float) -> None:
    rows: dict[str, list[float]] = {"warm": [], "cold": [], "later": [], "new": []}
    for _ in range(repeat):
        warm, later, new = one_server(pause)
        cold, _, _ = one_server(0.0)
        rows["warm"].append(warm)
        rows["cold"].append(cold)
        rows["later"].append(later)
        rows["new"].append(new)
    ms = {name: statistics.median(values) * 1000 for name, values in rows.items()}
    print(f"\nask to the model's first request, median of {repeat} servers, ms")
    print(
        f"first ask, {pause:g} s after initialized  {ms['warm']:8.1f}  {ms['warm'] / ms['later']:5.2f}x"
    )
    print(f"first ask, at once                {ms['cold']:8.1f}  {ms['cold'] / ms['later']:5.2f}x")
    print(f"a later ask (baseline)            {ms['later']:8.1f}  1.00x")
    new = ms["new"]
    print(f"a later ask, a new connection     {new:8.1f}  {new / ms['later']:5.2f}x")
    print(f"  the first ask beside it         {ms['warm']:8.1f}  {ms['warm'] / new:5.2f}x")


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__ or "", 5, "servers started for each row")
    cli.add_argument("--pause", type=float, default=3.0, help="seconds before the first ask")
    args = cli.parse_args(argv)
    return run(lambda: body(args.repeat, args.pause))


if __name__ == "__main__":
    sys.exit(main())
