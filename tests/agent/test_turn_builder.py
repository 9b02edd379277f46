"""The turn builder, fed chunks the way each server keys them, split anywhere."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from agent.models.model import Delta
from agent.models.turn_builder import TurnBuilder

DECLARED = {"view_file", "edit", "finish"}

words = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
arguments = st.dictionaries(st.sampled_from(["path", "old", "new", "summary"]), words, max_size=3)
calls = st.lists(st.tuples(st.sampled_from(sorted(DECLARED)), arguments), min_size=1, max_size=3)
STYLES = ["openai", "shared-index", "shared-index-no-ids", "name-in-every-piece", "sglang"]


def cut(text: str, points: list[int]) -> list[str]:
    marks = sorted({p % (len(text) + 1) for p in points} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(marks) if text[a:b]] or [text]


def chunk(delta: dict, finish: str | None = None) -> dict:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def call_chunks(style: str, position: int, name: str, pieces: list[str]) -> list[dict]:
    """One call's chunks as a server of ``style`` sends them."""
    index = position if style in ("openai", "name-in-every-piece") else 0
    call_id = str(position) if style == "sglang" else f"call_{position}"
    out = []
    for number, piece in enumerate(pieces):
        part: dict = {"index": index, "function": {"arguments": piece}}
        every = style in ("name-in-every-piece", "sglang", "shared-index")
        if (number == 0 or every) and style != "shared-index-no-ids":
            part["id"] = call_id
        if number == 0 or style == "name-in-every-piece":
            part["function"]["name"] = name
        out.append(chunk({"tool_calls": [part]}))
    return out


@settings(max_examples=150, deadline=None)
@given(
    style=st.sampled_from(STYLES),
    made=calls,
    content=words,
    reasoning=words,
    points=st.lists(st.integers(0, 10_000), max_size=6),
)
def test_any_server_keying_and_any_split_gives_the_same_turn(
    style, made, content, reasoning, points
):
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"reasoning_content": piece}) for piece in cut(reasoning, points)]
    chunks += [chunk({"content": piece}) for piece in cut(content, points)]
    for position, (name, args) in enumerate(made):
        chunks += call_chunks(style, position, name, cut(json.dumps(args), points))
    chunks.append(chunk({}, "tool_calls"))
    deltas: list[Delta] = []
    builder = TurnBuilder(DECLARED, deltas.append)

    for data in chunks:
        builder.chunk(data)
    turn = builder.turn()

    assert [(c.name, json.loads(c.arguments)) for c in turn.tool_calls] == made
    assert len({c.id for c in turn.tool_calls}) == len(made)
    assert turn.finish_reason == "tool_calls"
    assert "".join(d.reasoning for d in deltas) == reasoning
    if "<" not in content:
        assert turn.content == content.strip()
        assert "".join(d.text for d in deltas) == content


@given(made=calls, points=st.lists(st.integers(0, 10_000), max_size=4))
def test_a_whole_completion_gives_the_same_calls_as_its_stream(made, points):
    streamed = TurnBuilder(DECLARED)
    for position, (name, args) in enumerate(made):
        for data in call_chunks("openai", position, name, cut(json.dumps(args), points)):
            streamed.chunk(data)
    whole = TurnBuilder(DECLARED)
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(made)  # arguments as objects
        ],
    }
    whole.completion({"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]})

    assert streamed.turn().tool_calls == whole.turn().tool_calls
