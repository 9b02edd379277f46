"""The model adapter for OpenAI-compatible chat-completions endpoints.

The only module that knows the API's payload shape (with ``turn_builder``,
which reads the answer). It asks for a stream (text, reasoning and
tool-call pieces go to ``on_delta`` as they arrive) and takes a whole JSON
answer as well; waits at most ``request_timeout`` for the first byte and
``stream_timeout`` between pieces; retries 429, 5xx, timeouts and dropped
connections with exponential backoff (honouring ``Retry-After``); and turns
every failure into a ``ModelError`` that says what to check. It stops
reading an answer past the answer ceiling (``turn_builder.MAX_ANSWER_CHARS``;
a whole JSON answer past ``MAX_JSON_ANSWER_BYTES``) and closes the
connection: the turn says where it was stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from typing import Any

import openai

from agent.config.settings import Settings
from agent.conversation import Message, ModelTurn
from agent.models.model import (
    Delta,
    ModelAuthFailed,
    ModelContentFiltered,
    ModelError,
    ModelNotFound,
    ModelRateLimited,
    ModelRequestRefused,
    ModelServerFailed,
    ModelTimedOut,
    ModelUnreachable,
    OnDelta,
    ToolSpec,
)
from agent.models.turn_builder import MAX_ANSWER_CHARS, TurnBuilder

NO_KEY = "no-key"  # local servers accept any key; the client insists on one
MAX_BACKOFF = 30.0
# The most bytes of an unstreamed JSON answer read (escapes can make each character
# of the answer several bytes); past it the answer is stopped unread.
MAX_JSON_ANSWER_BYTES = 16 * MAX_ANSWER_CHARS


class OpenAIClient:
    def __init__(
        self, settings: Settings, *, backoff: float = 1.0, http_client: Any = None
    ) -> None:
        """``http_client``: the HTTP client to send with (openai's default when None)."""
        key = settings.key()
        if not key and not settings.base_url:
            raise ModelAuthFailed(
                f"No API key: set the environment variable {settings.api_key_env} (or "
                "apiKeyEnv to the variable that holds it), or point baseUrl at a server "
                "that needs none."
            )
        if not settings.model:
            raise ModelNotFound(
                "No model configured: set the setting 'model' (or the environment variable "
                "SUREHAND_MODEL) to a model your endpoint serves."
            )
        self.settings = settings
        self.backoff = backoff
        # The limits that matter are kept in ``_answer``; the client's own is a backstop.
        backstop = settings.request_timeout + settings.stream_timeout
        self._client = openai.AsyncOpenAI(
            api_key=key or NO_KEY,
            base_url=settings.base_url or None,
            timeout=openai.Timeout(backstop, connect=min(settings.request_timeout, 30.0)),
            max_retries=0,
            http_client=http_client,
        )

    def warm(self) -> None:
        """Load what the first request would: the package loads its API's modules lazily."""
        _ = self._client.chat.completions

    @property
    def endpoint(self) -> str:
        return str(self._client.base_url)

    async def close(self) -> None:
        await self._client.close()

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], on_delta: OnDelta | None
    ) -> ModelTurn:
        request: dict[str, Any] = {
            "model": self.settings.model,
            "messages": [_payload(m) for m in messages],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            request["tools"] = [tool_payload(t) for t in tools]
        declared = {t.name for t in tools}
        attempt, timeouts = 0, 0
        while True:
            try:
                turn = await self._answer(request, TurnBuilder(declared, on_delta))
            except (openai.APIError, _Stalled) as error:
                failure = self._failure(error)
                if _refuses_stream_options(error) and "stream_options" in request:
                    del request["stream_options"]  # an older server: ask again without it
                    continue
                retry_in = _retry_delay(error, attempt, self.backoff, timeouts)
                timeouts += isinstance(failure, ModelTimedOut)
                if retry_in is None or attempt >= self.settings.max_retries:
                    raise failure from None
                if on_delta:
                    on_delta(Delta(restart=True, reason=f"{failure.message} Retrying."))
                await asyncio.sleep(retry_in)
                attempt += 1
                continue
            if turn.finish_reason == "content_filter":
                raise ModelContentFiltered(
                    f"The model endpoint {self.endpoint} withheld the answer: its content "
                    "filter stopped it (finish_reason content_filter). Reword the task."
                )
            return turn

    async def _answer(self, request: dict[str, Any], builder: TurnBuilder) -> ModelTurn:
        """One request: its first piece within ``request_timeout`` of sending it, then
        no pause in the stream longer than ``stream_timeout``. A JSON answer is taken
        whole (within ``request_timeout``)."""
        loop = asyncio.get_running_loop()
        first = loop.time() + self.settings.request_timeout
        create = self._client.chat.completions.with_streaming_response.create
        async with contextlib.AsyncExitStack() as stack:
            try:
                async with asyncio.timeout_at(first):
                    response = await stack.enter_async_context(create(**_untransformed(request)))
                    if "json" in response.headers.get("content-type", ""):
                        body = await _bounded_body(response, MAX_JSON_ANSWER_BYTES)
                        if body is None:
                            builder.stop()
                        else:
                            builder.completion(json.loads(body))
                        return builder.turn()
            except TimeoutError:
                raise _Stalled("first") from None
            stream = (await response.parse()).__aiter__()
            deadline, where = first, "first"
            while True:
                try:
                    async with asyncio.timeout_at(deadline):
                        chunk = await anext(stream)
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    raise _Stalled(where) from None
                deadline, where = loop.time() + self.settings.stream_timeout, "gap"
                builder.chunk(chunk.to_dict(warnings=False))
                if builder.stopped:
                    break  # past the answer ceiling: the connection is closed unread
        return builder.turn()

    def _failure(self, error: openai.APIError | _Stalled) -> ModelError:
        where = self.endpoint
        model = self.settings.model
        if isinstance(error, _Stalled) and error.where == "gap":
            return ModelTimedOut(
                f"The model endpoint {where} stopped sending its answer for "
                f"{self.settings.stream_timeout:g} s. Check the server, or raise "
                "streamTimeout."
            )
        if isinstance(error, _Stalled | openai.APITimeoutError):
            return ModelTimedOut(
                f"The model endpoint {where} did not start answering within "
                f"{self.settings.request_timeout:g} s. Check the server, or raise "
                "requestTimeout."
            )
        if isinstance(error, openai.APIConnectionError):
            if not _refused(error):
                return ModelServerFailed(
                    f"The connection to the model endpoint {where} broke: {_cause(error)}. "
                    "Try again."
                )
            return ModelUnreachable(
                f"Cannot reach the model endpoint {where}: {_cause(error)}. Check baseUrl "
                "and that the server is running."
            )
        status = getattr(error, "status_code", None)
        detail = _detail(error)
        if status is None:  # an error event inside the stream
            return ModelServerFailed(
                f"The model endpoint {where} failed while answering: {detail}. Try again later."
            )
        if status in (401, 403):
            where_key = (
                "the apiKey setting"
                if self.settings.api_key
                else (f"the environment variable {self.settings.api_key_env}")
            )
            return ModelAuthFailed(
                f"The model endpoint {where} refused the API key ({status}: {detail}). Check "
                f"the key in {where_key}."
            )
        if status == 404:
            return ModelNotFound(
                f"The model endpoint {where} has no model {model!r} or no chat-completions "
                f"route ({detail}). Check the model name and baseUrl."
            )
        if status == 429:
            return ModelRateLimited(
                f"The model endpoint {where} kept answering 429 (rate limited): {detail}. "
                "Wait and try again."
            )
        if status is not None and status >= 500:
            return ModelServerFailed(
                f"The model endpoint {where} failed with {status}: {detail}. Try again later."
            )
        return ModelRequestRefused(
            f"The model endpoint {where} refused the request ({status}): {detail}."
        )


async def _bounded_body(response: Any, max_bytes: int) -> bytes | None:
    """The response's body, or None once it is past ``max_bytes`` (the rest unread)."""
    parts: list[bytes] = []
    size = 0
    async for part in response.iter_bytes():
        size += len(part)
        if size > max_bytes:
            return None
        parts.append(part)
    return b"".join(parts)


class _Stalled(Exception):
    """The endpoint sent nothing in time: before its first byte, or mid-stream."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


def _retry_delay(
    error: openai.APIError | _Stalled, attempt: int, base: float, timeouts: int = 0
) -> float | None:
    """Seconds to wait before retrying, or None when retrying cannot help.

    A refused connection (nothing listening) and a timeout are tried once
    more only (``timeouts``: how many came before this one), so a silent
    server is given up on after two waits, not five; a dropped connection,
    an error event in the stream, 429 and 5xx get the full backoff.
    """
    if isinstance(error, _Stalled | openai.APITimeoutError):
        return base * 2**attempt if timeouts == 0 else None
    if isinstance(error, openai.APIConnectionError):
        return base * 2**attempt if attempt == 0 or not _refused(error) else None
    status = getattr(error, "status_code", None)
    if status is not None and status != 429 and status < 500:
        return None
    delay = base * 2**attempt
    response = getattr(error, "response", None)
    retry_after = response.headers.get("retry-after") if response is not None else None
    if retry_after:
        with contextlib.suppress(ValueError):
            delay = max(delay, float(retry_after))
    return min(delay, MAX_BACKOFF)


def _refuses_stream_options(error: openai.APIError | _Stalled) -> bool:
    return (
        isinstance(error, openai.APIStatusError)
        and error.status_code in (400, 422)
        and "stream_options" in _detail(error)
    )


def _refused(error: Exception) -> bool:
    """Whether the connection could not be made at all (rather than broke midway)."""
    cause = error.__cause__ or error.__context__
    while cause is not None:
        if type(cause).__name__ in ("ConnectError", "ConnectionRefusedError", "gaierror"):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _cause(error: Exception) -> str:
    cause = error.__cause__ or error.__context__
    return str(cause) if cause else str(error)


def _detail(error: openai.APIError) -> str:
    body = getattr(error, "body", None)
    message = error.message
    if isinstance(body, dict):
        message = body.get("message") or (body.get("error") or {}).get("message") or message
    return str(message).rstrip(" .!")


def _untransformed(request: dict[str, Any]) -> dict[str, Any]:
    """``request`` as ``create``'s arguments, its messages sent as they are.

    The openai package walks every message against its types before sending
    (it renames no key of a chat message, and ``_payload`` makes them JSON
    already): 180 ms of CPU for a request of 1,000 messages, on every turn
    of a long conversation. ``extra_body`` is sent as it is, over the empty
    list given for ``messages``.
    """
    return {**request, "messages": [], "extra_body": {"messages": request["messages"]}}


def _payload(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    payload: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        payload["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in message.tool_calls
        ]
    if message.reasoning:
        payload["reasoning_content"] = message.reasoning
    return payload


def tool_payload(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
            "strict": True,
        },
    }


def _rehearsal_chunk(choices: list[Any], **more: Any) -> bytes:
    chunk = {"id": "r", "object": "chat.completion.chunk", "created": 0, "model": "rehearsal"}
    return b"data: " + json.dumps({**chunk, "choices": choices, **more}).encode() + b"\n\n"


def _rehearsal_call(**function: str) -> dict[str, Any]:
    return {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": function}]}}


# A streamed answer to the rehearsal: a tool call in two pieces, a finish, the usage.
_REHEARSAL_ANSWER = b"".join(
    (
        _rehearsal_chunk([_rehearsal_call(name="rehearse", arguments='{"a":')]),
        _rehearsal_chunk([_rehearsal_call(arguments="1}")]),
        _rehearsal_chunk([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]),
        _rehearsal_chunk([], usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}),
        b"data: [DONE]\n\n",
    )
)


def rehearse() -> ModelTurn:
    """Send one request through the adapter to an answer made on this machine.

    The openai package builds its request's type hints and its answer's
    validators on first use, and the HTTP stack its connection's parts (7 ms
    and more before the first request leaves); rehearsing once, in the
    background after start-up, spares the first ask that. The answer comes
    from a server of its own on the loopback address, for this one request
    (sent with no API key); where no connection can be made there, from the
    HTTP client's mock transport. Call it outside any event loop (it runs its
    own). Returns the turn read (a call of ``rehearse`` with ``{"a":1}``).
    """
    tool = ToolSpec("rehearse", "", {"type": "object", "properties": {"a": {"type": "integer"}}})
    conversation = [Message("system", "."), Message("user", ".")]

    async def run() -> ModelTurn:
        try:
            return await _rehearse_on_loopback(conversation, tool)
        except (ModelError, OSError, TimeoutError):  # no loopback here: the mock transport
            return await _rehearse_in_memory(conversation, tool)

    return asyncio.run(run())


async def _rehearse_on_loopback(conversation: list[Message], tool: ToolSpec) -> ModelTurn:
    server = await asyncio.start_server(_answer_rehearsal, "127.0.0.1", 0)
    async with server:
        port = server.sockets[0].getsockname()[1]
        url = f"http://127.0.0.1:{port}/v1"
        settings = Settings(model="rehearsal", base_url=url, api_key=NO_KEY)  # not the user's
        # Never through a proxy the environment names: the answer is on this machine.
        http = openai.DefaultAsyncHttpxClient(trust_env=False)
        client = OpenAIClient(settings, backoff=0.0, http_client=http)
        try:
            return await asyncio.wait_for(client.complete(conversation, [tool], None), 10)
        finally:
            await client.close()


async def _answer_rehearsal(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """The rehearsal's one answer: the request read (to its body's end), the stream sent.
    A request cut short is left unanswered (the rehearsal then takes the mock transport)."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        sizes = [
            line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
        ]
        await reader.readexactly(int(sizes[0].split(b":", 1)[1]) if sizes else 0)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n"
            b"content-length: %d\r\n\r\n%s" % (len(_REHEARSAL_ANSWER), _REHEARSAL_ANSWER)
        )
        await writer.drain()
    except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def _rehearse_in_memory(conversation: list[Message], tool: ToolSpec) -> ModelTurn:
    import httpx2  # noqa: PLC0415 - openai's HTTP client; loaded with openai already

    def answer(_: Any) -> Any:
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, content=_REHEARSAL_ANSWER)

    settings = Settings(model="rehearsal", base_url="http://rehearsal.invalid/v1")
    transport = httpx2.MockTransport(answer)
    client = OpenAIClient(settings, http_client=openai.DefaultAsyncHttpxClient(transport=transport))
    try:
        return await client.complete(conversation, [tool], None)
    finally:
        await client.close()
