"""What the server loads before it has a task: to answer ``initialize``, not the model
client, not the engine; once the editor says ``initialized``, those, in the background.

A real ``surehand serve`` process on stdio is sent ``initialize`` (and
``initialized``), ``shutdown`` and ``exit`` as an editor sends them; the
interpreter's exit hook, set up by the command line that starts it (not by
the server), writes the names of the modules that were loaded by then, and
whether the garbage collector (off while they load) runs again.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import pytest

# Loaded on the first task (the model client, the tool loop) or by other commands.
HEAVY = (
    "openai",
    "httpx",
    "agent.loop.session",
    "agent.models.openai_client",
    "surehand.terminal.commands",
    "agent.tools.grep",
    "agent.tools.apply_patch",
    "editing.disk.cli",
    "editing.matcher",
    "editing.report",
    "editing.replacement",
    "editing.patch",
)
WAIT = 30.0
WARM = 8.0  # seconds the background imports surely take, on a busy machine (about 1.5 here)

START = """
import atexit, gc, json, sys
def record():
    with open(sys.argv[1], "w") as out:
        json.dump({"modules": sorted(sys.modules), "collector": [gc.isenabled(), gc.get_freeze_count()]}, out)
atexit.register(record)
from surehand.cli import main
sys.exit(main(["serve"]))
"""


def send(stream: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def answer(stream: IO[bytes], request_id: int) -> dict[str, Any]:
    """The reply to ``request_id`` (the server's requests and notifications are skipped)."""
    while True:
        length = 0
        while (line := stream.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        if not length:
            raise AssertionError("the server closed its output without answering")
        message = json.loads(stream.read(length))
        if message.get("id") == request_id and "method" not in message:
            return message


def serve(tmp_path: Path, *, initialized: bool, linger: float = 0.0) -> dict[str, Any]:
    """Start, initialize (and say initialized, then wait ``linger`` s), stop; the record."""
    loaded_file = tmp_path / "modules.json"
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    (root / "a.py").write_text("x = 1\n")
    process = subprocess.Popen(
        [sys.executable, "-c", START, str(loaded_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        params: dict[str, Any] = {"capabilities": {}, "rootUri": root.as_uri(), "processId": None}
        send(process.stdin, {"id": 1, "method": "initialize", "params": params})
        assert "capabilities" in answer(process.stdout, 1)["result"]
        if initialized:
            send(process.stdin, {"method": "initialized", "params": {}})
            time.sleep(linger)
        send(process.stdin, {"id": 2, "method": "shutdown"})
        assert answer(process.stdout, 2)["result"] is None
        send(process.stdin, {"method": "exit"})
        assert process.wait(WAIT) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdin.close()
        process.stdout.close()
    return json.loads(loaded_file.read_text())


def test_serving_initialize_loads_no_heavy_module(tmp_path: Path):
    record = serve(tmp_path, initialized=False)
    loaded = set(record["modules"])
    assert "lsp_server.server" in loaded  # it really served
    assert [name for name in HEAVY if name in loaded] == []
    # The modules loaded at start are out of the collector's sight, and it runs again.
    enabled, frozen = record["collector"]
    assert enabled and frozen > 10_000


@pytest.mark.slow
def test_once_initialized_the_task_machinery_loads_in_the_background(tmp_path: Path):
    record = serve(tmp_path, initialized=True, linger=WARM)
    loaded = set(record["modules"])
    assert {
        "openai",
        "agent.loop.session",
        "agent.models.openai_client",
        "editing.matcher",
    } <= loaded
    assert "surehand.terminal.commands" not in loaded and "editing.disk.cli" not in loaded, (
        "only a task's"
    )
