"""A local OpenAI-compatible chat-completions server that answers from a script.

Standard library only, so it shares nothing with the code under test. It
binds 127.0.0.1 on a free port, serves ``POST /v1/chat/completions`` and
``GET /v1/models``, records every request, and answers each completion
request with the next reply of its script:

- ``Turn``: assistant text and/or tool calls; streamed as Server-Sent Events
  the way OpenAI streams them (a role chunk, text split over several deltas,
  each tool call's arguments split over several chunks after a first chunk
  with its id and name, a ``finish_reason`` chunk, a usage chunk when
  ``stream_options.include_usage`` is set, then ``data: [DONE]``), or as one
  ``chat.completion`` object when the request does not stream;
- ``HttpError``: a status with an OpenAI-shaped error body and headers;
- ``Hang``: take the request and never answer (until ``seconds`` or stop);
- ``Drop``: stream the first chunks of a turn, then close the connection
  in the middle of the body;
- ``StreamError``: stream the first chunks of a turn, then an ``error`` event;
- ``Stall``: stream the first chunks of a turn, then send nothing for a while;
- ``Whole``: answer a turn as one ``chat.completion`` even when a stream was
  asked for (as some servers do);
- ``Recorded``: send a recorded response body as is (a provider's SSE stream
  or JSON answer, from a file).

A ``Turn`` can also carry reasoning (in the field a provider uses), a
finish reason of its own, no usage or partial usage, and a pause between
chunks.

Requests for another model get OpenAI's 404 ``model_not_found`` and, when
``api_key`` is set, a wrong Authorization header gets its 401, both without
using a reply. A request that finds the script empty gets a 500 saying so and
is noted in ``overruns``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import socket
import socketserver
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self

JSON = dict[str, Any]
_SORRY = "The server had an error while processing your request. Sorry about that!"


@dataclass(frozen=True)
class Call:
    """A tool call; a ``str`` of arguments is sent as is (it need not be JSON).

    ``as_object`` sends the arguments as a JSON object instead of a string.
    """

    name: str
    arguments: JSON | str = field(default_factory=dict)
    id: str = ""  # default: call_<request>_<index>
    as_object: bool = False


@dataclass(frozen=True)
class Turn:
    """An assistant turn: text, tool calls or both.

    ``reasoning`` streams first, in the delta field ``reasoning_field``;
    ``finish_reason`` replaces the usual one; a token count of None is sent
    as null, and ``usage=False`` sends no usage at all; ``pause`` is the
    seconds between two chunks.
    """

    content: str = ""
    tool_calls: Sequence[Call] = ()
    prompt_tokens: int | None = 10
    completion_tokens: int | None = 5
    reasoning: str = ""
    reasoning_field: str = "reasoning_content"
    finish_reason: str | None = None
    usage: bool = True
    pause: float = 0.0
    shared_index: bool = False  # every call whole in one chunk with index 0, as Ollama sends


@dataclass(frozen=True)
class HttpError:
    """An error response; ``message`` defaults to OpenAI's text for the status."""

    status: int
    message: str = ""
    retry_after: float | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: JSON | None = None  # replaces the whole OpenAI-shaped body


@dataclass(frozen=True)
class Hang:
    """Take the request and never answer: hold it ``seconds`` (None: until stop), then close."""

    seconds: float | None = None


@dataclass(frozen=True)
class Drop:
    """Stream the first ``after_chunks`` chunks of ``turn`` (always streamed), then hang up."""

    turn: Turn
    after_chunks: int = 2


@dataclass(frozen=True)
class StreamError:
    """Stream the first ``after_chunks`` chunks of ``turn``, then an error event, then end."""

    turn: Turn
    after_chunks: int = 2
    message: str = _SORRY


@dataclass(frozen=True)
class Stall:
    """Stream the first ``after_chunks`` chunks of ``turn``, then nothing for ``seconds``."""

    turn: Turn
    after_chunks: int = 2
    seconds: float = 5.0


@dataclass(frozen=True)
class Whole:
    """Answer ``turn`` as one ``chat.completion`` object, even to a streamed request."""

    turn: Turn


@dataclass(frozen=True)
class Recorded:
    """A response body sent as recorded (``content_type`` says SSE or JSON)."""

    body: bytes
    content_type: str = "text/event-stream"

    @classmethod
    def load(cls, path: Path) -> Recorded:
        """``*.sse`` as a stream, ``*.json`` as a JSON answer."""
        kind = "application/json" if path.suffix == ".json" else "text/event-stream"
        return cls(path.read_bytes(), kind)


Reply = Turn | HttpError | Hang | Drop | StreamError | Stall | Whole | Recorded


@dataclass(frozen=True)
class Request:
    """A request as received: headers with lowercase names, body parsed from JSON."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class ScriptedServer:
    """The server; a context manager that starts it on entry and stops it on exit."""

    def __init__(
        self,
        model: str = "scripted",
        replies: Iterable[Reply] = (),
        *,
        api_key: str | None = None,
        piece_size: int = 8,
    ) -> None:
        self.model = model
        self.api_key = api_key
        self.piece_size = piece_size
        self.requests: list[Request] = []
        self.overruns: list[int] = []  # indexes of requests that found the script empty
        self._script: deque[Reply] = deque(replies)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._port = 0

    def add(self, *replies: Reply) -> None:
        """Append replies to the script."""
        with self._lock:
            self._script.extend(replies)

    @property
    def pending(self) -> int:
        """Replies not yet used."""
        with self._lock:
            return len(self._script)

    @property
    def completions(self) -> list[Request]:
        """The chat-completions requests received, oldest first."""
        return [r for r in self.requests if r.path == "/v1/chat/completions"]

    @property
    def open_connections(self) -> int:
        """Client connections being served now (a kept-alive one counts until the client closes it)."""
        with self._lock:
            return len(self._connections)

    @property
    def base_url(self) -> str:
        """The URL clients take as ``base_url``; still valid for assertions after stop."""
        if not self._port:
            raise RuntimeError("the server was never started")
        return f"http://127.0.0.1:{self._port}/v1"

    def start(self) -> Self:
        self._stopping.clear()
        self._httpd = _HTTPServer(self)
        self._port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="scripted-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; wakes hanging requests and closes open connections."""
        if self._httpd is None or self._thread is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()
        self._thread.join()
        self._httpd = self._thread = None

    def hang_up(self) -> None:
        """Close the connections clients keep open, as a server does once they are idle
        for its time limit: a client's next request opens a new one."""
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + 5
        while self.open_connections and time.monotonic() < deadline:
            time.sleep(0.001)  # their threads see the end and let them go

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _record(self, request: Request) -> int:
        with self._lock:
            self.requests.append(request)
            return len(self.requests) - 1

    def _next_reply(self, index: int) -> Reply | None:
        with self._lock:
            if self._script:
                return self._script.popleft()
            self.overruns.append(index)
            return None


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, owner: ScriptedServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind would look up the host's FQDN, which can be slow.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up with the answer's end unread resets the connection:
        as a real server, take it quietly; anything else is printed as before."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # As servers built on asyncio do: a small last write (the stream's end) goes at once,
    # not after the client's delayed acknowledgement of the one before (40 ms).
    disable_nagle_algorithm = True
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        with self.server.owner._lock:
            self.server.owner._connections.add(self.connection)

    def finish(self) -> None:
        with self.server.owner._lock:
            self.server.owner._connections.discard(self.connection)
        with contextlib.suppress(OSError):  # the client may be gone already
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a test's output is not the place for an access log."""

    def do_GET(self) -> None:
        owner = self.server.owner
        owner._record(Request("GET", self.path, self._headers(), None))
        if not self._authorized():
            return
        if self.path.rstrip("/") != "/v1/models":
            self._json(404, _error(f"Invalid URL (GET {self.path})", "invalid_request_error"))
            return
        model = {"id": owner.model, "object": "model", "created": 0, "owned_by": "scripted"}
        self._json(200, {"object": "list", "data": [model]})

    def do_POST(self) -> None:
        owner = self.server.owner
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        index = owner._record(Request("POST", self.path, self._headers(), body))
        if not self._authorized():
            return
        if self.path != "/v1/chat/completions":
            self._json(404, _error(f"Invalid URL (POST {self.path})", "invalid_request_error"))
            return
        model = body.get("model") if isinstance(body, dict) else None
        if model != owner.model:
            message = f"The model `{model}` does not exist or you do not have access to it."
            self._json(404, _error(message, "invalid_request_error", "model_not_found"))
            return
        reply = owner._next_reply(index)
        if reply is None:
            message = (
                f"ScriptedServer: the script ran out: completion request "
                f"#{len(owner.completions)} found no scripted reply."
            )
            self._json(500, _error(message, "script_exhausted"))
        elif isinstance(reply, HttpError):
            self._http_error(reply)
        elif isinstance(reply, Hang):
            owner._stopping.wait(reply.seconds)
            self.close_connection = True
        elif isinstance(reply, Recorded):
            self._recorded(reply)
        elif isinstance(reply, Whole):
            self._json(200, _completion(reply.turn, index, owner.model))
        elif isinstance(reply, Turn) and not body.get("stream"):
            self._json(200, _completion(reply, index, owner.model))
        else:
            self._stream(reply, index, body)

    def _recorded(self, reply: Recorded) -> None:
        self.send_response(200)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.wfile.write(reply.body)

    def _stream(self, reply: Turn | Drop | StreamError | Stall, index: int, body: JSON) -> None:
        owner = self.server.owner
        turn = reply if isinstance(reply, Turn) else reply.turn
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        events = list(_chunks(turn, index, owner.model, owner.piece_size, usage))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if isinstance(reply, Turn):
            for position, event in enumerate(events):
                if position and turn.pause and owner._stopping.wait(turn.pause):
                    self.close_connection = True
                    return
                self._event(json.dumps(event))
            self._event("[DONE]")
        else:
            for event in events[: reply.after_chunks]:
                self._event(json.dumps(event))
            if isinstance(reply, Stall):
                owner._stopping.wait(reply.seconds)
                self.close_connection = True
                return
            if isinstance(reply, Drop):
                self.close_connection = True  # mid-body: the final empty chunk never comes
                return
            self._event(json.dumps(_error(reply.message, "server_error")))
        self.wfile.write(b"0\r\n\r\n")

    def _event(self, data: str) -> None:
        payload = f"data: {data}\n\n".encode()
        self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    def _http_error(self, reply: HttpError) -> None:
        message, kind = _status_error(reply.status)
        body = reply.body or _error(reply.message or message, kind)
        headers = dict(reply.headers)
        if reply.retry_after is not None:
            headers["Retry-After"] = f"{reply.retry_after:g}"
        self._json(reply.status, body, headers)

    def _authorized(self) -> bool:
        key = self.server.owner.api_key
        given = self.headers.get("Authorization", "")
        if key is None or given == f"Bearer {key}":
            return True
        if not given:
            message = "You didn't provide an API key. Use an Authorization header: Bearer KEY."
            self._json(401, _error(message, "invalid_request_error"))
        else:
            masked = _mask(given.removeprefix("Bearer "))
            message = f"Incorrect API key provided: {masked}."
            self._json(401, _error(message, "invalid_request_error", "invalid_api_key"))
        return False

    def _json(self, status: int, body: JSON, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}


def _error(message: str, kind: str, code: str | None = None) -> JSON:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _status_error(status: int) -> tuple[str, str]:
    """OpenAI's message and error type for ``status``."""
    if status == 429:
        return "Rate limit reached for requests. Please try again later.", "requests"
    if status == 503:
        return "The engine is currently overloaded, please try again later.", "server_error"
    if status >= 500:
        return _SORRY, "server_error"
    return f"The request was refused ({status}).", "invalid_request_error"


def _mask(key: str) -> str:
    return f"{key[:3]}***{key[-4:]}" if len(key) > 8 else "***"


def _call_id(call: Call, index: int, position: int) -> str:
    return call.id or f"call_{index}_{position}"


def _arguments(call: Call) -> str:
    return call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)


def _wire_arguments(call: Call) -> JSON | str:
    return call.arguments if call.as_object else _arguments(call)


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def streamed_over(turn: Turn, seconds: float) -> Turn:
    """``turn`` with the pause between its chunks spread so that its streaming lasts about
    ``seconds`` (a task longer than an editor's request timeout)."""
    chunks = len(list(_chunks(turn, 0, "scripted", 8, True)))
    return dataclasses.replace(turn, pause=seconds / max(chunks - 1, 1))


def _chunks(turn: Turn, index: int, model: str, size: int, usage: bool) -> Iterator[JSON]:
    """The ``chat.completion.chunk`` objects of ``turn``, up to the usage chunk if asked."""
    head: JSON = {"id": f"chatcmpl-{index}", "object": "chat.completion.chunk"}
    head |= {"created": int(time.time()), "model": model, "system_fingerprint": None}
    usage = usage and turn.usage
    if usage:
        head["usage"] = None

    def chunk(delta: JSON, finish: str | None = None) -> JSON:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**head, "choices": [choice]}

    yield chunk({"role": "assistant", "content": "", "refusal": None})
    for piece in _pieces(turn.reasoning, size):
        yield chunk({"content": None, turn.reasoning_field: piece})
    for piece in _pieces(turn.content, size):
        yield chunk({"content": piece})
    for position, call in enumerate(turn.tool_calls):
        if turn.shared_index or call.as_object:
            whole = {"name": call.name, "arguments": _wire_arguments(call)}
            at = 0 if turn.shared_index else position
            opening = {"index": at, "id": _call_id(call, index, position), "type": "function"}
            yield chunk({"tool_calls": [{**opening, "function": whole}]})
            continue
        function = {"name": call.name, "arguments": ""}
        first = {"index": position, "id": _call_id(call, index, position), "type": "function"}
        yield chunk({"tool_calls": [{**first, "function": function}]})
        for piece in _pieces(_arguments(call), size):
            yield chunk({"tool_calls": [{"index": position, "function": {"arguments": piece}}]})
    yield chunk({}, _finish_reason(turn))
    if usage:
        yield {**head, "choices": [], "usage": _usage(turn)}


def _finish_reason(turn: Turn) -> str:
    if turn.finish_reason is not None:
        return turn.finish_reason
    return "tool_calls" if turn.tool_calls else "stop"


def _usage(turn: Turn) -> JSON:
    counts = (turn.prompt_tokens, turn.completion_tokens)
    total = None if None in counts else sum(c for c in counts if c is not None)
    return {
        "prompt_tokens": turn.prompt_tokens,
        "completion_tokens": turn.completion_tokens,
        "total_tokens": total,
    }


def _completion(turn: Turn, index: int, model: str) -> JSON:
    """``turn`` as one non-streamed ``chat.completion`` object."""
    message: JSON = {"role": "assistant", "content": turn.content or None, "refusal": None}
    if turn.reasoning:
        message[turn.reasoning_field] = turn.reasoning
    if turn.tool_calls:
        message["tool_calls"] = [
            {
                "id": _call_id(call, index, position),
                "type": "function",
                "function": {"name": call.name, "arguments": _wire_arguments(call)},
            }
            for position, call in enumerate(turn.tool_calls)
        ]
    choice = {"index": 0, "message": message, "logprobs": None}
    choice["finish_reason"] = _finish_reason(turn)
    completion = {
        "id": f"chatcmpl-{index}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [choice],
    }
    if turn.usage:
        completion["usage"] = _usage(turn)
    return completion
