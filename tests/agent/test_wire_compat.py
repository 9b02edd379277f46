"""How real OpenAI-compatible servers bend the format, each bend read right.

The real ``OpenAIClient`` (and, where the loop decides, the real ``Session``)
against the scripted server, scripted the way those servers answer.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.conversation import ToolCall, Usage
from agent.events import ModelText, ModelThinking, ModelWriting, ToolFinished
from agent.loop.session import Session
from agent.models.model import Delta, ModelContentFiltered, ModelTimedOut
from agent.models.openai_client import OpenAIClient
from agent.staging.proposal import Ending, Proposal
from tests.agent.test_openai_client import TOOLS, client, complete
from tests.support.openai_server import (
    Call,
    Hang,
    HttpError,
    Recorded,
    ScriptedServer,
    Stall,
    Turn,
    Whole,
)
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED

VIEW_A = Call("view_file", {"path": "a.py"}, id="call_a")
VIEW_B = Call("view_file", {"path": "b.py"}, id="call_b")


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SUREHAND_MODEL"):
        monkeypatch.delenv(name, raising=False)


def sse(*chunks: dict) -> Recorded:
    """A stream of ``chunks`` as a server would send it."""
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return Recorded(body.encode())


def chunk(delta: dict, finish: str | None = None) -> dict:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c", "object": "chat.completion.chunk", "model": "scripted", "choices": [choice]}


# Whole answers to streamed requests


@pytest.mark.asyncio
async def test_a_json_answer_to_a_streamed_request_is_read_whole(openai_server):
    openai_server.add(Whole(Turn("Looking.", [VIEW_A], prompt_tokens=7, completion_tokens=3)))

    turn, deltas = await complete(client(openai_server))

    assert openai_server.completions[0].body["stream"] is True
    assert turn.content == "Looking."
    assert turn.tool_calls == (ToolCall("call_a", "view_file", '{"path": "a.py"}'),)
    assert turn.usage == Usage(7, 3)
    assert "".join(d.text for d in deltas) == "Looking."


@pytest.mark.asyncio
async def test_a_json_text_answer_is_the_answer(openai_server):
    openai_server.add(Whole(Turn("All done, nothing to change.")))

    turn, _ = await complete(client(openai_server))

    assert (turn.content, turn.tool_calls, turn.finish_reason) == (
        "All done, nothing to change.",
        (),
        "stop",
    )


# Calls that share an index


@pytest.mark.asyncio
async def test_parallel_calls_sent_with_one_index_stay_apart(openai_server):
    openai_server.add(Turn(tool_calls=[VIEW_A, VIEW_B], shared_index=True))

    turn, deltas = await complete(client(openai_server))

    assert turn.tool_calls == (
        ToolCall("call_a", "view_file", '{"path": "a.py"}'),
        ToolCall("call_b", "view_file", '{"path": "b.py"}'),
    )
    assert [d.tool_index for d in deltas if d.tool_name] == [0, 1]


@pytest.mark.asyncio
async def test_calls_without_ids_on_one_index_are_split_at_each_new_name(openai_server):
    first = {"index": 0, "function": {"name": "view_file", "arguments": '{"path": '}}
    rest = {"index": 0, "function": {"arguments": '"a.py"}'}}
    second = {"index": 0, "function": {"name": "view_file", "arguments": '{"path": "b.py"}'}}
    openai_server.add(
        sse(
            chunk({"role": "assistant", "tool_calls": [first]}),
            chunk({"tool_calls": [rest]}),
            chunk({"tool_calls": [second]}, "tool_calls"),
        )
    )

    turn, _ = await complete(client(openai_server))

    assert [(c.name, json.loads(c.arguments)) for c in turn.tool_calls] == [
        ("view_file", {"path": "a.py"}),
        ("view_file", {"path": "b.py"}),
    ]
    assert len({c.id for c in turn.tool_calls}) == 2


@pytest.mark.asyncio
async def test_a_name_repeated_in_every_piece_of_one_call_is_not_doubled(openai_server):
    pieces = ['{"pa', 'th": "a', '.py"}']
    openai_server.add(
        sse(
            *[
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "function": {"name": "view_file", "arguments": p},
                            }
                        ]
                    }
                )
                for p in pieces
            ],
            chunk({}, "tool_calls"),
        )
    )

    turn, _ = await complete(client(openai_server))

    assert turn.tool_calls == (ToolCall("call_1", "view_file", '{"path": "a.py"}'),)


@pytest.mark.asyncio
async def test_calls_without_any_index_are_told_apart_by_their_names(openai_server):
    whole = {"id": "call_1", "function": {"name": "view_file", "arguments": '{"path": "a.py"}'}}
    start = {"function": {"name": "view_file", "arguments": '{"path": '}}
    rest = {"function": {"arguments": '"b.py"}'}}
    openai_server.add(
        sse(
            chunk({"tool_calls": [whole]}),
            chunk({"tool_calls": [start]}),
            chunk({"tool_calls": [rest]}, "tool_calls"),
        )
    )

    turn, _ = await complete(client(openai_server))

    assert [json.loads(c.arguments)["path"] for c in turn.tool_calls] == ["a.py", "b.py"]


# Arguments as objects


@pytest.mark.asyncio
@pytest.mark.parametrize("whole", [False, True], ids=["streamed", "json-answer"])
async def test_arguments_sent_as_an_object_are_taken_as_json(openai_server, whole):
    turn = Turn(tool_calls=[Call("view_file", {"path": "a.py"}, id="call_o", as_object=True)])
    openai_server.add(Whole(turn) if whole else turn)

    answer, _ = await complete(client(openai_server))

    [call] = answer.tool_calls
    assert (call.id, call.name, json.loads(call.arguments)) == (
        "call_o",
        "view_file",
        {"path": "a.py"},
    )


# Calls and thinking in the text


TAGGED_VIEW = '<tool_call>\n{"name": "view_file", "arguments": {"path": "a.py"}}\n</tool_call>'


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("content", "prose"),
    [
        (f"I will look at a.py first.\n{TAGGED_VIEW}", "I will look at a.py first."),
        (f"<think>\nThe bug must be in a.py.\n</think>\n\n{TAGGED_VIEW}", ""),
        (f"<think>Check a.py.</think>Let me read it.\n{TAGGED_VIEW}\n", "Let me read it."),
    ],
    ids=["after-preamble", "after-think", "think-preamble-call"],
)
async def test_tagged_calls_anywhere_in_the_text_are_calls(openai_server, content, prose):
    openai_server.add(Turn(content))

    turn, deltas = await complete(client(openai_server))

    [call] = turn.tool_calls
    assert (call.name, json.loads(call.arguments)) == ("view_file", {"path": "a.py"})
    assert turn.content == prose
    shown = "".join(d.text for d in deltas)
    assert "<think>" not in shown and "<tool_call>" not in shown and "bug must" not in shown


@pytest.mark.asyncio
async def test_a_think_block_is_progress_not_answer(openai_server):
    openai_server.add(Turn("<think>Is it add or sub? It is add.</think>The bug is in add."))

    turn, deltas = await complete(client(openai_server))

    assert turn.content == "The bug is in add."
    assert "".join(d.reasoning for d in deltas) == "Is it add or sub? It is add."


@pytest.mark.asyncio
@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_a_reasoning_field_is_progress_not_answer(openai_server, field):
    openai_server.add(
        Turn("It is add.", [VIEW_A], reasoning="Maybe add, maybe sub.", reasoning_field=field)
    )

    turn, deltas = await complete(client(openai_server))

    assert turn.content == "It is add."
    assert "".join(d.reasoning for d in deltas) == "Maybe add, maybe sub."
    assert "Maybe" not in "".join(d.text for d in deltas)
    assert [c.id for c in turn.tool_calls] == ["call_a"]


@pytest.mark.asyncio
async def test_a_tagged_call_to_an_undeclared_tool_stays_text(openai_server):
    content = 'Cleaning up.\n<tool_call>{"name": "rm", "arguments": {"path": "/"}}</tool_call>'
    openai_server.add(Turn(content))

    turn, _ = await complete(client(openai_server))

    assert (turn.content, turn.tool_calls) == (content, ())


# Finish reasons


@pytest.mark.asyncio
async def test_a_content_filter_stop_is_reported_as_such(openai_server):
    openai_server.add(Turn("", finish_reason="content_filter"))

    with pytest.raises(ModelContentFiltered) as caught:
        await complete(client(openai_server))

    assert "content filter" in caught.value.message
    assert len(openai_server.completions) == 1  # not retried


def run_task(server: ScriptedServer, project: Path, traces: Path, events: list) -> Proposal:
    settings = Settings(model=server.model, base_url=server.base_url, trace_dir=str(traces))

    async def work() -> Proposal:
        model = OpenAIClient(settings, backoff=0.01)
        session = Session(project, model, settings)
        try:
            return await session.run("Fix add.", on_event=events.append)
        finally:
            await session.close()
            await model.close()

    return asyncio.run(work())


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    root = tmp_path / "calc"
    root.mkdir()
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    return root


def test_a_call_cut_off_at_max_tokens_is_reported_as_cut_off(openai_server, calc, tmp_path):
    cut = Call("create_file", '{"path": "big.py", "content": "def a():\\n    retu', id="call_cut")
    openai_server.add(
        Turn(tool_calls=[cut], finish_reason="length"),
        Turn(tool_calls=[FIX]),
        Turn(tool_calls=[FINISH]),
    )
    events: list = []

    proposal = run_task(openai_server, calc, tmp_path / "traces", events)

    answer = openai_server.completions[1].body["messages"][-1]
    assert answer["tool_call_id"] == "call_cut"
    assert "cut off at the endpoint's token limit" in answer["content"]
    assert "create_file" in answer["content"]
    assert "not valid JSON" not in answer["content"]
    [first] = [e for e in events if isinstance(e, ToolFinished)][:1]
    assert not first.ok and "cut off" in first.summary
    assert proposal.end.ending == Ending.FINISHED
    assert [(c.path, c.after) for c in proposal.changes] == [("calc.py", FIXED)]


def test_a_text_answer_cut_off_at_max_tokens_says_so(openai_server, calc, tmp_path):
    openai_server.add(Turn("The fix is to change the minus in", finish_reason="length"))

    proposal = run_task(openai_server, calc, tmp_path / "traces", [])

    assert proposal.end.ending == Ending.ANSWERED
    assert proposal.end.message.startswith("The answer was cut off at the endpoint's token")
    assert proposal.end.message.endswith("The fix is to change the minus in")


def test_the_loop_shows_thinking_and_argument_growth(openai_server, calc, tmp_path):
    openai_server.add(
        Turn(tool_calls=[FIX], reasoning="add subtracts; it should add."), Turn(tool_calls=[FINISH])
    )
    events: list = []

    run_task(openai_server, calc, tmp_path / "traces", events)

    thinking = "".join(e.text for e in events if isinstance(e, ModelThinking))
    assert thinking == "add subtracts; it should add."
    assert not [e for e in events if isinstance(e, ModelText)]
    sizes = [e.chars for e in events if isinstance(e, ModelWriting) and e.name == "edit"]
    assert sizes == sorted(sizes) and sizes[-1] == len(json.dumps(FIX.arguments))
    sent_back = openai_server.completions[1].body["messages"][2]
    assert "add subtracts" not in sent_back["content"]
    # Thinking that came as reasoning_content goes back with its calls, as DeepSeek asks.
    assert sent_back["reasoning_content"] == "add subtracts; it should add."


def test_reasoning_in_the_reasoning_field_is_not_sent_back(openai_server, calc, tmp_path):
    openai_server.add(
        Turn(tool_calls=[FIX], reasoning="add subtracts.", reasoning_field="reasoning"),
        Turn(tool_calls=[FINISH]),
    )

    run_task(openai_server, calc, tmp_path / "traces", [])

    assert "add subtracts" not in json.dumps(openai_server.completions[1].body["messages"])


# Usage


@pytest.mark.asyncio
async def test_a_server_that_refuses_stream_options_is_asked_again_without_them(openai_server):
    openai_server.add(
        HttpError(400, "Unrecognized request argument supplied: stream_options"),
        Turn("Hi.", usage=False),
    )

    answer, _ = await complete(client(openai_server, max_retries=0))

    assert answer.content == "Hi."
    first, second = (r.body for r in openai_server.completions)
    assert "stream_options" in first and "stream_options" not in second
    assert second["stream"] is True


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("turn", "usage"),
    [
        (Turn("Hi.", usage=False), Usage(0, 0)),
        (Turn("Hi.", prompt_tokens=None, completion_tokens=4), Usage(0, 4)),
        (Whole(Turn("Hi.", usage=False)), Usage(0, 0)),
    ],
    ids=["absent", "partial", "absent-json-answer"],
)
async def test_usage_absent_or_partial_counts_what_was_sent(openai_server, turn, usage):
    openai_server.add(turn)

    answer, _ = await complete(client(openai_server))

    assert (answer.content, answer.usage) == ("Hi.", usage)


@pytest.mark.asyncio
async def test_usage_inside_the_last_choice_chunk_is_read(openai_server):
    last = chunk({}, "stop") | {"usage": {"prompt_tokens": 30, "completion_tokens": 2}}
    openai_server.add(sse(chunk({"role": "assistant", "content": "Hi."}), last))

    answer, _ = await complete(client(openai_server))

    assert answer.usage == Usage(30, 2)


# Bounded waiting


@pytest.mark.asyncio
async def test_a_stream_that_stalls_midway_times_out_on_the_gap(openai_server):
    openai_server.add(Stall(Turn("Hello there, this stalls"), 2, 5.0), Turn("Hello."))
    deltas: list[Delta] = []

    model = client(openai_server, stream_timeout=0.3, request_timeout=5.0)
    turn = await model.complete([], TOOLS, deltas.append)

    assert turn.content == "Hello."
    [retry] = [d for d in deltas if d.restart]
    assert "stopped sending its answer for 0.3 s" in retry.reason
    assert "streamTimeout" in retry.reason


@pytest.mark.asyncio
async def test_a_lasting_stall_ends_with_a_timeout_naming_the_gap(openai_server):
    openai_server.add(*[Stall(Turn("Hello there"), 2, 5.0)] * 2)

    with pytest.raises(ModelTimedOut) as caught:
        await complete(client(openai_server, stream_timeout=0.2, max_retries=1))

    assert "0.2 s" in caught.value.message and "streamTimeout" in caught.value.message


@pytest.mark.asyncio
async def test_a_silent_server_is_given_up_on_after_two_waits_whatever_max_retries(openai_server):
    openai_server.add(Hang(), Hang())  # a third request would find the script empty

    with pytest.raises(ModelTimedOut):
        await complete(client(openai_server, request_timeout=0.2, max_retries=4))

    assert len(openai_server.completions) == 2


def test_the_default_limits_are_a_minute():
    assert (Settings().request_timeout, Settings().stream_timeout) == (60.0, 60.0)
