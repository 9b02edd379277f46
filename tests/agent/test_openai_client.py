"""The real ``OpenAIClient`` against the scripted OpenAI-compatible server.

Streaming, retries, every failure as a typed ``ModelError``, tool calls
written in content, and the request payload as the server receives it.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Sequence

import openai
import pytest

from agent.config.settings import Settings
from agent.conversation import Message, ModelTurn, ToolCall, Usage
from agent.models.model import (
    Delta,
    ModelAuthFailed,
    ModelError,
    ModelNotFound,
    ModelRateLimited,
    ModelRequestRefused,
    ModelServerFailed,
    ModelTimedOut,
    ModelUnreachable,
    ToolSpec,
)
from agent.models.openai_client import OpenAIClient
from tests.support.openai_server import (
    Call,
    Drop,
    Hang,
    HttpError,
    ScriptedServer,
    StreamError,
    Turn,
)

VIEW_FILE = ToolSpec(
    "view_file",
    "Show a file.",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": False,
    },
)
FINISH = ToolSpec(
    "finish",
    "End the task.",
    {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]},
)
TOOLS = (VIEW_FILE, FINISH)
ASK = (Message("system", "You edit code."), Message("user", "Fix a.py."))


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own OpenAI settings must not leak into these tests."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SUREHAND_MODEL", "MY_KEY"):
        monkeypatch.delenv(name, raising=False)


def client(server: ScriptedServer, **changes: object) -> OpenAIClient:
    """A client of ``server`` with fast backoff; ``changes`` override the settings."""
    settings = Settings(
        model=server.model, base_url=server.base_url, max_retries=2, request_timeout=5.0
    )
    return OpenAIClient(settings.replace(**changes), backoff=0.01)


async def complete(
    model: OpenAIClient, tools: Sequence[ToolSpec] = TOOLS
) -> tuple[ModelTurn, list[Delta]]:
    """One completion of ``ASK``, and the deltas it streamed."""
    deltas: list[Delta] = []
    turn = await model.complete(ASK, tools, deltas.append)
    return turn, deltas


def assert_readable(error: ModelError, *fragments: str) -> None:
    """A typed error with a plain message naming ``fragments``, no openai exception inside."""
    assert not isinstance(error, openai.OpenAIError)
    assert error.message == str(error)
    assert "Traceback" not in error.message
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__
    for fragment in fragments:
        assert fragment in error.message


# Streaming


@pytest.mark.asyncio
async def test_streamed_text_arrives_in_pieces_and_usage_from_the_usage_chunk(
    openai_server: ScriptedServer,
) -> None:
    text = "The bug is in parse(): it drops the last line."
    openai_server.add(Turn(text, prompt_tokens=120, completion_tokens=17))

    turn, deltas = await complete(client(openai_server))

    assert turn == ModelTurn(text, (), Usage(120, 17), "stop")
    pieces = [d.text for d in deltas]
    assert len(pieces) > 3 and "".join(pieces) == text


@pytest.mark.asyncio
async def test_streamed_tool_calls_are_assembled_from_split_arguments(
    openai_server: ScriptedServer,
) -> None:
    summary = {"summary": "Fixed the off-by-one in parse() and added a test for it."}
    openai_server.add(
        Turn(
            "Looking first.",
            [Call("view_file", {"path": "src/a.py"}, id="call_A"), Call("finish", summary)],
        )
    )

    turn, deltas = await complete(client(openai_server))

    assert turn.content == "Looking first."
    assert turn.tool_calls == (
        ToolCall("call_A", "view_file", '{"path": "src/a.py"}'),
        ToolCall("call_0_1", "finish", json.dumps(summary)),
    )
    finish_pieces = [d for d in deltas if d.tool_index == 1]
    assert len(finish_pieces) > 3
    assert {d.tool_name for d in finish_pieces} == {"finish"}
    assert "".join(d.arguments for d in finish_pieces) == json.dumps(summary)


@pytest.mark.asyncio
async def test_malformed_tool_arguments_are_passed_through_raw(
    openai_server: ScriptedServer,
) -> None:
    openai_server.add(Turn(tool_calls=[Call("view_file", '{"path": "a.py",', id="call_1")]))

    turn, _ = await complete(client(openai_server))

    assert turn.tool_calls == (ToolCall("call_1", "view_file", '{"path": "a.py",'),)


# Tool calls written in content

VIEW_A = '{"name": "view_file", "arguments": {"path": "a.py"}}'


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "content",
    [VIEW_A, f"<tool_call>\n{VIEW_A}\n</tool_call>", f"```json\n{VIEW_A}\n```"],
    ids=["json", "tagged", "fenced"],
)
async def test_a_declared_tool_call_written_in_content_becomes_a_tool_call(
    openai_server: ScriptedServer, content: str
) -> None:
    openai_server.add(Turn(content))

    turn, _ = await complete(client(openai_server))

    assert turn.content == ""
    [call] = turn.tool_calls
    assert (call.name, json.loads(call.arguments)) == ("view_file", {"path": "a.py"})
    assert call.id


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "content",
    [
        '{"name": "delete_everything", "arguments": {}}',
        'I will clean up: <tool_call>{"name": "rm", "arguments": {}}</tool_call>',
    ],
    ids=["undeclared-tool", "undeclared-tagged-tool-after-prose"],
)
async def test_other_content_stays_text(openai_server: ScriptedServer, content: str) -> None:
    openai_server.add(Turn(content))

    turn, _ = await complete(client(openai_server))

    assert turn == ModelTurn(content, (), Usage(10, 5), "stop")


# Retries


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.parametrize(
    "failure",
    [HttpError(429, retry_after=0), HttpError(500), HttpError(503), Hang(), Drop(Turn("Hel"), 2)],
    ids=["429", "500", "503", "timeout", "dropped-stream"],
)
async def test_a_passing_failure_is_retried(
    openai_server: ScriptedServer, failure: HttpError | Hang | Drop
) -> None:
    openai_server.add(failure, Turn("Hello."))

    turn, _ = await complete(client(openai_server, request_timeout=0.3))

    assert turn.content == "Hello."
    assert len(openai_server.completions) == 2


@pytest.mark.asyncio
async def test_on_delta_is_told_to_restart_when_a_dropped_stream_is_retried(
    openai_server: ScriptedServer,
) -> None:
    openai_server.add(Drop(Turn("Hello, this is cut"), 3), Turn("Hello, this is whole."))

    turn, deltas = await complete(client(openai_server))

    restarts = [i for i, d in enumerate(deltas) if d.restart]
    assert len(restarts) == 1
    assert "broke" in deltas[restarts[0]].reason
    after = deltas[restarts[0] + 1 :]
    assert "".join(d.text for d in after) == turn.content == "Hello, this is whole."


@pytest.mark.asyncio
async def test_retry_after_is_honoured(openai_server: ScriptedServer) -> None:
    openai_server.add(HttpError(429, retry_after=0.3), Turn("Hello."))

    started = time.monotonic()
    await complete(client(openai_server))

    assert time.monotonic() - started >= 0.3


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "error"),
    [(429, ModelRateLimited), (500, ModelServerFailed), (503, ModelServerFailed)],
)
async def test_a_lasting_failure_ends_after_max_retries(
    openai_server: ScriptedServer, status: int, error: type[ModelError]
) -> None:
    openai_server.add(*[HttpError(status, retry_after=0)] * 3)

    with pytest.raises(error) as caught:
        await complete(client(openai_server, max_retries=2))

    assert len(openai_server.completions) == 3
    assert_readable(caught.value, openai_server.base_url, str(status))


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_hanging_server_times_out(openai_server: ScriptedServer) -> None:
    openai_server.add(Hang(), Hang())

    with pytest.raises(ModelTimedOut) as caught:
        await complete(client(openai_server, request_timeout=0.3, max_retries=1))

    assert len(openai_server.completions) == 2
    assert_readable(caught.value, openai_server.base_url, "0.3 s", "requestTimeout")


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "error"),
    [(400, ModelRequestRefused), (403, ModelAuthFailed), (422, ModelRequestRefused)],
)
async def test_a_refusal_is_not_retried(
    openai_server: ScriptedServer, status: int, error: type[ModelError]
) -> None:
    openai_server.add(HttpError(status, "Invalid 'messages[1].content'."))

    with pytest.raises(error) as caught:
        await complete(client(openai_server))

    assert len(openai_server.completions) == 1
    assert_readable(caught.value, openai_server.base_url, "Invalid 'messages[1].content'")


# Failures the server decides


@pytest.mark.asyncio
async def test_a_wrong_key_fails_auth_without_retrying() -> None:
    with (
        ScriptedServer(api_key="sk-right-key-1234") as server,
        pytest.raises(ModelAuthFailed) as caught,
    ):
        await complete(client(server, api_key="sk-wrong-key-9876"))

    assert [r.headers["authorization"] for r in server.requests] == ["Bearer sk-wrong-key-9876"]
    assert_readable(caught.value, server.base_url, "Incorrect API key", "the apiKey setting")


@pytest.mark.asyncio
async def test_the_key_is_read_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-right-key-1234")
    with ScriptedServer(replies=[Turn("Hi.")], api_key="sk-right-key-1234") as server:
        turn, _ = await complete(client(server, api_key_env="MY_KEY"))

    assert turn.content == "Hi."


@pytest.mark.asyncio
async def test_an_unknown_model_is_not_found(openai_server: ScriptedServer) -> None:
    with pytest.raises(ModelNotFound) as caught:
        await complete(client(openai_server, model="gpt-nonexistent"))

    assert len(openai_server.completions) == 1
    assert_readable(caught.value, "'gpt-nonexistent'", "does not exist")


@pytest.mark.asyncio
async def test_a_closed_port_is_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings(model="m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=3)

    with pytest.raises(ModelUnreachable) as caught:
        await complete(OpenAIClient(settings, backoff=0.01))

    assert_readable(caught.value, f"http://127.0.0.1:{port}/v1", "baseUrl")


@pytest.mark.asyncio
async def test_an_exhausted_script_fails_loudly() -> None:
    with ScriptedServer() as server, pytest.raises(ModelServerFailed) as caught:
        await complete(client(server, max_retries=0))

    assert server.overruns == [0]
    assert "the script ran out" in caught.value.message


@pytest.mark.asyncio
async def test_an_error_event_in_the_stream_is_retried_like_a_server_failure(
    openai_server: ScriptedServer,
) -> None:
    openai_server.add(StreamError(Turn("Hello, I was"), 2), Turn("Hello."))

    turn, _ = await complete(client(openai_server))

    assert turn.content == "Hello."


# The request as the server receives it


@pytest.mark.asyncio
async def test_the_request_is_in_openai_shape(openai_server: ScriptedServer) -> None:
    call = ToolCall("call_7", "view_file", '{"path": "a.py"}')
    messages = [
        *ASK,
        Message("assistant", "", (call,)),
        Message("tool", "1: x = 1", tool_call_id="call_7", tool_name="view_file"),
    ]
    openai_server.add(Turn("Done."))

    await client(openai_server).complete(messages, TOOLS, None)

    [request] = openai_server.completions
    assert request.headers["authorization"] == "Bearer no-key"
    body = request.body
    assert body["model"] == "scripted"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "You edit code."},
        {"role": "user", "content": "Fix a.py."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_7",
                    "type": "function",
                    "function": {"name": "view_file", "arguments": '{"path": "a.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_7", "content": "1: x = 1"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
                "strict": True,
            },
        }
        for spec in TOOLS
    ]


@pytest.mark.asyncio
async def test_no_tools_sends_no_tools_key(openai_server: ScriptedServer) -> None:
    openai_server.add(Turn("Hi."))

    await complete(client(openai_server), tools=())

    assert "tools" not in openai_server.completions[0].body


# Construction


def test_no_key_and_no_base_url_names_the_variable() -> None:
    with pytest.raises(ModelAuthFailed) as caught:
        OpenAIClient(Settings(model="gpt-test", api_key_env="MY_KEY"))

    assert_readable(caught.value, "MY_KEY")


def test_no_model_is_not_found() -> None:
    with pytest.raises(ModelNotFound) as caught:
        OpenAIClient(Settings(base_url="http://127.0.0.1:1/v1"))

    assert_readable(caught.value, "model")


# The server itself, read by the official SDK


@pytest.mark.asyncio
async def test_the_server_speaks_openai_to_the_sdk(openai_server: ScriptedServer) -> None:
    sdk = openai.AsyncOpenAI(api_key="k", base_url=openai_server.base_url, max_retries=0)
    openai_server.add(Turn("Hi.", [Call("finish", {"summary": "ok"}, id="c1")]))

    models = await sdk.models.list()
    completion = await sdk.chat.completions.create(model="scripted", messages=[])
    await sdk.close()

    assert [m.id for m in models.data] == ["scripted"]
    message = completion.choices[0].message
    assert message.content == "Hi."
    assert message.tool_calls
    call = message.tool_calls[0]
    assert isinstance(call, openai.types.chat.ChatCompletionMessageFunctionToolCall)
    assert call.function.arguments == '{"summary": "ok"}'
    assert completion.choices[0].finish_reason == "tool_calls"
