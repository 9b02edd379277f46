"""A byte-level LSP client for hostile input: the real server over stdio, no library.

``RawServer`` starts ``python -m lsp_server``, writes whatever bytes a test
gives it to the server's stdin, and reads the server's stdout on a thread
that splits it into messages (every byte read is kept in ``received``, so a
test can check that a decoy never appears in anything the server said).
Requests the server sends (``workspace/configuration``, progress,
``workspace/applyEdit``, ...) are answered as a plain editor would. Every
wait is bounded: a server that hangs fails the test, it does not hang it.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from pygls.uris import from_fs_path

SERVER = [sys.executable, "-m", "lsp_server"]
WAIT = 15.0  # seconds any one answer may take


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(message: dict[str, Any]) -> bytes:
    return frame(json.dumps(message).encode("utf-8"))


class RawServer:
    def __init__(self, root: Path, settings: dict[str, Any], stderr: Path) -> None:
        self.root = root
        self.settings = settings
        self._stderr: IO[bytes] = stderr.open("wb")
        self.process = subprocess.Popen(
            SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self.received = bytearray()
        self.messages: list[dict[str, Any]] = []  # everything the server sent, in order
        self._answers: dict[Any, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # -- writing ----------------------------------------------------------------

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write(encode(message))

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def expect(self, request_id: Any, timeout: float = WAIT) -> dict[str, Any]:
        """The server's answer to the request ``request_id`` (sent by the test)."""
        box = self._box(request_id)
        try:
            return box.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no answer to request {request_id!r} within {timeout} s"
                f" (server {'alive' if self.alive else 'dead'})"
            ) from None

    def request(self, method: str, params: Any = None, timeout: float = WAIT) -> dict[str, Any]:
        request_id = next(self._ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.expect(request_id, timeout)

    def command(self, name: str, *arguments: Any, timeout: float = WAIT) -> dict[str, Any]:
        params: dict[str, Any] = {"command": name}
        if arguments:
            params["arguments"] = list(arguments)
        return self.request("workspace/executeCommand", params, timeout)

    def uri(self, relative: str) -> str:
        return from_fs_path(str(self.root / relative)) or ""

    def initialize(self) -> dict[str, Any]:
        root = from_fs_path(str(self.root))
        answer = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root,
                "workspaceFolders": [{"uri": root, "name": "w"}],
                "capabilities": {
                    "workspace": {"configuration": True, "applyEdit": True},
                    "window": {"workDoneProgress": True},
                },
            },
        )
        self.notify("initialized", {})
        return answer

    def open(self, relative: str, text: str, version: int = 1) -> None:
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": self.uri(relative),
                    "languageId": "python",
                    "version": version,
                    "text": text,
                }
            },
        )

    def healthy(self) -> None:
        """The server is alive and answers a normal request."""
        status = self.command("surehand.status")
        assert "result" in status and status["result"]["busy"] in (True, False), status
        assert self.alive

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def log_text(self) -> str:
        """Every ``window/logMessage`` and ``window/showMessage`` the server sent."""
        return "\n".join(
            str(m["params"].get("message"))
            for m in list(self.messages)
            if m.get("method") in ("window/logMessage", "window/showMessage")
        )

    def close(self) -> int | None:
        """Shut the server down (killed if it does not go); its exit code."""
        with contextlib.suppress(Exception):
            if self.alive:
                self.request("shutdown", timeout=5)
                self.notify("exit")
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        with contextlib.suppress(Exception):
            assert self.process.stdin is not None
            self.process.stdin.close()
        self._reader.join(5)
        self._stderr.close()
        return self.process.returncode

    # -- reading --------------------------------------------------------------

    def _box(self, request_id: Any) -> queue.Queue[dict[str, Any]]:
        key = json.dumps(request_id)
        with self._lock:
            return self._answers.setdefault(key, queue.Queue())

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            length = None
            while True:
                line = stdout.readline()
                if not line:
                    return
                self.received += line
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            assert length is not None, "the server sent a message without Content-Length"
            body = stdout.read(length)
            self.received += body
            message = json.loads(body)
            self.messages.append(message)
            if "method" in message and "id" in message:
                self._answer_server(message)
            elif "method" not in message:
                self._box(message.get("id")).put(message)

    def _answer_server(self, message: dict[str, Any]) -> None:
        method = message["method"]
        result: Any = None
        if method == "workspace/configuration":
            result = [self.settings for _ in message["params"]["items"]]
        elif method == "workspace/applyEdit":
            result = {"applied": False}
        elif method == "window/showDocument":
            result = {"success": False}
        with contextlib.suppress(OSError, ValueError):
            self.write(encode({"jsonrpc": "2.0", "id": message["id"], "result": result}))


def wait_for(check: Any, timeout: float = WAIT, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while not (result := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.02)
    return result
