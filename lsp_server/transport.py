"""Reading JSON-RPC messages from the client: framing and envelope, hostile input survived.

pygls's own reader trusts the bytes it is given: a header it cannot read
leaves it out of step with the stream for good (each body then glues onto
the next header line), a huge ``Content-Length`` makes it allocate that
much, and what is not a JSON-RPC message is logged and never answered.
This reader replaces it (for stdio and TCP):

- Headers: lines of at most ``MAX_HEADER_LINE`` bytes; ``Content-Length``
  (any case) must be a decimal number. A header block without one, or
  bytes that are not a header, are skipped until the next line that ends
  in a ``Content-Length`` header: the reader finds its way back to the
  next message, whatever came before.
- Bodies: read as they arrive; a body in which the next message's header
  turns up (a ``Content-Length`` larger than what was sent: valid JSON
  never holds a raw ``Content-Length: N`` line) is cut there and the
  reader goes on from that header. A body over ``MAX_MESSAGE_BYTES`` is
  read and dropped in chunks (never held whole) and answered with an
  error, with the request's ``id`` when its first bytes name one.
- Envelope (JSON-RPC 2.0): invalid JSON is a Parse error (``id`` null);
  JSON nested deeper than Python parses, what is not an object (batches
  included: LSP has none), a wrong or missing ``jsonrpc``, an ``id`` that
  is not an integer or a string, a request without a ``method`` and
  ``params`` that are neither an object nor an array are an Invalid
  Request, but ``"params": null`` is read as no params (clients built on
  lsp4j, JetBrains' among them, send ``shutdown`` and ``exit`` so); params
  that do not fit the method are Invalid params. A
  request gets the error as its answer (``id`` null when its ``id`` is
  unusable); a notification is ignored, as JSON-RPC says. Every one is
  logged (``window/logMessage``).

Its size: one reader, a state machine over the framing whose branches are
each a hostile input it survives; they share its buffer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import re
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from .limits import MAX_HEADER_LINE, MAX_MESSAGE_BYTES

log = logging.getLogger(__name__)

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32602, -32603
CHUNK = 2**20
HEADER = re.compile(rb"content-length[ \t]*:[ \t]*([^\r\n]*?)[ \t]*\r?\n$", re.IGNORECASE)
NEXT_HEADER = re.compile(rb"Content-Length: ?\d{1,12}\r\n", re.IGNORECASE)
GUESS_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}(?![\d.eE])|"(?:[^"\\\r\n]|\\.){0,200}")')

ReadSome = Callable[[int], Awaitable[bytes]]


class Input:
    """The client's bytes with a pushback: what the reader read too far goes back."""

    def __init__(self, read_some: ReadSome) -> None:
        self._read_some = read_some
        self._buffer = bytearray()
        self.ended = False

    async def _fill(self, n: int = CHUNK) -> bool:
        if self.ended:
            return False
        data = await self._read_some(n)
        if not data:
            self.ended = True
            return False
        self._buffer += data
        return True

    async def line(self) -> bytes | None:
        """The next line (its break included), at most ``MAX_HEADER_LINE`` bytes: a
        longer one comes in pieces. None at the end of the input."""
        while True:
            end = self._buffer.find(b"\n", 0, MAX_HEADER_LINE)
            if end >= 0:
                return self._take(end + 1)
            if len(self._buffer) >= MAX_HEADER_LINE:
                return self._take(MAX_HEADER_LINE)
            if not await self._fill():
                return self._take(len(self._buffer)) or None

    async def some(self, n: int) -> bytes:
        """Up to ``n`` bytes, as many as there are now (at least one unless ended)."""
        if not self._buffer and not await self._fill(min(n, CHUNK)):
            return b""
        return self._take(min(n, len(self._buffer)))

    def push_back(self, data: bytes) -> None:
        self._buffer[:0] = data

    def _take(self, n: int) -> bytes:
        data = bytes(self._buffer[:n])
        del self._buffer[:n]
        return data


class Refused(Exception):
    def __init__(self, code: int, message: str, msg_id: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.msg_id = code, message, msg_id


async def run(
    stop_event: threading.Event,
    read_some: ReadSome,
    protocol: Any,
    logger: logging.Logger | None = None,
    error_handler: Callable[[Exception, type[JsonRpcException]], Any] | None = None,
) -> None:
    """Read messages until the input ends (or ``stop_event``); hand each to ``protocol``."""
    source = Input(read_some)
    while not stop_event.is_set():
        length = await _header(source, protocol)
        if length is None:
            return
        body = await _body(source, length, protocol)
        if body is None:
            continue
        try:
            _handle(protocol, body)
        except Refused as refused:
            _refuse(protocol, refused)
        except Exception as error:  # never let one message end the server
            log.exception("Unable to handle message")
            if error_handler is not None:
                error_handler(error, JsonRpcException)


async def _header(source: Input, protocol: Any) -> int | None:
    """The next message's length (its header block read); None at the end."""
    length: int | None = None
    junk = False
    while True:
        line = await source.line()
        if line is None:
            return None
        if line.strip() == b"":
            if length is not None:
                return length
            if junk:  # a header block without a usable length: skip to the next one
                _refuse(protocol, Refused(PARSE_ERROR, "a message without a valid Content-Length"))
                junk = False
            continue
        match = HEADER.search(line)
        if match is None:
            junk = junk or not line.lower().startswith(b"content-type")
            continue
        if match.start() > 0:
            junk = True  # bytes of a broken message before the header: drop them
        value = match.group(1)
        if value.isdigit() and len(value) <= 18:
            length = int(value)
        else:
            length, junk = None, True


async def _body(source: Input, length: int, protocol: Any) -> bytes | None:
    """The body, or None when it was refused (too large) or cut short by a new header."""
    keep = length <= MAX_MESSAGE_BYTES
    head = bytearray()  # all of a kept body; the first bytes of a dropped one
    tail = b""  # the last bytes read, where a header may have begun
    left = length
    while left > 0:
        chunk = await source.some(left)
        if not chunk:
            return None  # the input ended mid-message
        window = tail + chunk
        found = NEXT_HEADER.search(window)
        if found is not None:
            cut = found.start() - len(tail)
            if cut < 0:  # the header began in what was read before: give it back too
                source.push_back(window[found.start() :])
                if keep:
                    del head[cut:]
            else:
                source.push_back(chunk[cut:])
                head += chunk[:cut] if keep else b""
            _refuse(
                protocol,
                Refused(
                    PARSE_ERROR,
                    f"a message shorter than its Content-Length ({length})",
                    _guess_id(bytes(head)),
                ),
            )
            return None
        left -= len(chunk)
        tail = window[-32:]
        if keep:
            head += chunk
        elif len(head) < 65536:
            head += chunk[: 65536 - len(head)]
    if not keep:
        msg_id = _guess_id(bytes(head))
        notification = msg_id is None and _method(bytes(head)) is not None
        _refuse(
            protocol,
            Refused(
                INVALID_REQUEST,
                f"a message of {length} bytes is over the server's limit of"
                f" {MAX_MESSAGE_BYTES} bytes; it was not read",
                msg_id,
            ),
            answer=not notification,
        )
        _tell_too_large(protocol, bytes(head), length)
        return None
    return bytes(head)


def _method(head: bytes) -> str | None:
    match = re.search(rb'"method"\s*:\s*"([^"]{1,100})"', head[:4096])
    return match.group(1).decode("utf-8", "replace") if match else None


def _guess_id(head: bytes) -> Any:
    """A request's ``id`` read from its first bytes (before its params), else None."""
    before = head.split(b'"params"', 1)[0][:4096]
    match = GUESS_ID.search(before)
    if match is None:
        return None
    try:
        return json.loads(match.group(1))
    except ValueError:
        return None


def _tell_too_large(protocol: Any, head: bytes, length: int) -> None:
    """A ``didOpen`` / ``didChange`` too large to read: its document is not kept."""
    name = _method(head)
    uri = re.search(rb'"uri"\s*:\s*"((?:[^"\\]|\\.){1,2000})"', head)
    if name is None or uri is None:
        return
    if name not in (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE):
        return
    try:
        uri_text = json.loads(b'"' + uri.group(1) + b'"')
    except ValueError:
        return
    server = getattr(protocol, "_server", None)
    documents = getattr(getattr(server, "controller", None), "documents", None)
    if documents is not None:
        documents.too_large(uri_text, length)


def _parse(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except RecursionError:
        raise Refused(INVALID_REQUEST, "a message nested too deeply", _guess_id(body)) from None
    except ValueError as error:  # invalid JSON or UTF-8
        raise Refused(PARSE_ERROR, f"not JSON: {error}") from None
    if not isinstance(data, dict):
        what = "a batch (LSP has none)" if isinstance(data, list) else type(data).__name__
        raise Refused(INVALID_REQUEST, f"a message must be a JSON object, not {what}")
    return data


def _handle(protocol: Any, body: bytes) -> None:
    data = _parse(body)
    has_id = "id" in data
    msg_id = data.get("id")
    id_ok = isinstance(msg_id, int | str) and not isinstance(msg_id, bool)
    method = data.get("method")
    request = has_id and "method" in data
    if "method" not in data and ("result" in data or "error" in data):
        if data.get("jsonrpc") == "2.0" and id_ok and has_id:
            _dispatch(protocol, data, None)  # an answer to one of the server's requests
        else:
            log.warning("Ignored a response that is not JSON-RPC 2.0: %.200s", body)
        return
    answer_id = msg_id if id_ok else None
    if data.get("params", ...) is None:  # "no params", as some clients write it
        del data["params"]
    if not has_id and "method" in data:  # a notification: never answered
        why = _envelope_problem(data, method) or _params_problem(method, data.get("params"))
        if why is not None:
            log.warning("Ignored a notification: %s", why)
            return
        _dispatch(protocol, data, None)
        return
    if not id_ok:  # LSP's ids are integers or strings; JSON-RPC's null is not one
        raise Refused(INVALID_REQUEST, "a request's id must be an integer or a string")
    if not request:
        raise Refused(INVALID_REQUEST, "a request needs a method", answer_id)
    why = _envelope_problem(data, method)
    if why is not None:
        raise Refused(INVALID_REQUEST, why, answer_id)
    why = _params_problem(method, data.get("params"))
    if why is not None:
        raise Refused(INVALID_PARAMS, why, answer_id)
    if getattr(protocol, "_shutdown", False):  # LSP: a request after shutdown is an error
        raise Refused(INVALID_REQUEST, "the server is shutting down", answer_id)
    _dispatch(protocol, data, answer_id)


def _envelope_problem(data: dict[str, Any], method: Any) -> str | None:
    if data.get("jsonrpc") != "2.0":
        return 'a message must have "jsonrpc": "2.0"'
    if not isinstance(method, str) or not method:
        return "a method must be a non-empty string"
    params = data.get("params")
    if "params" in data and not isinstance(params, dict | list):
        return "params must be an object or an array"
    return None


def _params_problem(method: Any, params: Any) -> str | None:
    if method == types.WORKSPACE_EXECUTE_COMMAND and isinstance(params, dict):
        # lsprotocol would read an object's keys as the list of arguments
        if not isinstance(params.get("command"), str):
            return "workspace/executeCommand needs a command name"
        if params.get("arguments") is not None and not isinstance(params["arguments"], list):
            return "workspace/executeCommand's arguments must be an array"
    return None


def _dispatch(protocol: Any, data: dict[str, Any], request_id: Any) -> None:
    try:
        message = protocol.structure_message(data)
    except Exception:
        if request_id is None and "method" in data and "id" not in data:
            log.warning("Ignored a %s notification whose params do not fit", data.get("method"))
            return
        if "method" not in data:
            log.warning("Ignored a response that does not fit")
            return
        raise Refused(
            INVALID_PARAMS, f"the params of {data['method']} do not fit the method", request_id
        ) from None
    protocol.handle_message(message)


def _refuse(protocol: Any, refused: Refused, *, answer: bool = True) -> None:
    """Answer ``refused`` (unless it was a notification) and log it for the user."""
    log.warning("Refused a message: %s", refused.message)
    response = {
        "jsonrpc": "2.0",
        "id": refused.msg_id,
        "error": {"code": refused.code, "message": f"surehand: {refused.message}"},
    }
    try:
        if answer:
            protocol._send_data(response)
        protocol._send_data(
            {
                "jsonrpc": "2.0",
                "method": types.WINDOW_LOG_MESSAGE,
                "params": {
                    "type": types.MessageType.Warning.value,
                    "message": f"surehand refused a message: {refused.message}",
                },
            }
        )
    except Exception:  # the client is gone
        log.warning("Could not answer a refused message", exc_info=True)


def stdin_reader(stream: Any) -> ReadSome:
    """``read_some`` over a binary stream (stdin), its blocking reads done one at a time by a
    daemon thread of its own: a read that never returns (an editor that stops the server
    with a signal keeps the pipe open) never keeps the process from ending."""
    read = getattr(stream, "read1", stream.read)
    requests: queue.SimpleQueue[tuple[int, asyncio.AbstractEventLoop, asyncio.Future[bytes]]]
    requests = queue.SimpleQueue()

    def pump() -> None:
        while True:
            n, loop, future = requests.get()
            try:
                data = read(n)
            except BaseException as error:
                loop.call_soon_threadsafe(_settle, future, None, error)
            else:
                loop.call_soon_threadsafe(_settle, future, data, None)

    threading.Thread(target=pump, name="surehand-stdin", daemon=True).start()

    def read_some(n: int) -> Awaitable[bytes]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bytes] = loop.create_future()
        requests.put((n, loop, future))
        return future

    return read_some


def _settle(future: asyncio.Future[bytes], data: bytes | None, error: BaseException | None) -> None:
    if future.done():  # cancelled meanwhile
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(data or b"")
