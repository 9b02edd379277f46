"""Tool calls written as text by small models."""

import json

from hypothesis import given
from hypothesis import strategies as st

from agent.models.content_calls import ContentStream, calls_in_content, read_content, split_thinking

DECLARED = {"view_file", "edit", "finish"}


def test_a_json_call_naming_a_declared_tool():
    calls = calls_in_content('{"name": "view_file", "arguments": {"path": "a.py"}}', DECLARED)
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("view_file", {"path": "a.py"})]


def test_tagged_calls_and_fenced_json():
    text = (
        '<tool_call>{"name": "view_file", "arguments": {"path": "a"}}</tool_call>\n'
        '<tool_call>{"name": "finish", "arguments": {"summary": "x"}}</tool_call>'
    )
    assert [c.name for c in calls_in_content(text, DECLARED)] == ["view_file", "finish"]
    fenced = '```json\n{"function": {"name": "edit", "arguments": "{}"}}\n```'
    assert [c.arguments for c in calls_in_content(fenced, DECLARED)] == ["{}"]


def test_ids_are_unique():
    text = '[{"name": "finish", "arguments": {}}, {"name": "finish", "arguments": {}}]'
    first, second = calls_in_content(text, DECLARED)
    assert first.id != second.id


def test_anything_else_is_an_answer():
    assert calls_in_content("I fixed it.", DECLARED) == ()
    assert calls_in_content('{"name": "rm_rf", "arguments": {}}', DECLARED) == ()
    assert calls_in_content('Sure: {"name": "view_file", "arguments": {}}', DECLARED) == ()
    assert calls_in_content("<tool_call>{not json}</tool_call> and more", DECLARED) == ()
    mixed = (
        '<tool_call>{"name": "view_file", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'
    )
    assert calls_in_content(mixed, DECLARED) == ()


VIEW = '{"name": "view_file", "arguments": {"path": "calc.py"}}'


def test_tagged_calls_after_a_preamble_or_thinking_are_calls_and_the_prose_stays():
    text = f"<think>The bug is in add.</think>\nLet me look.\n<tool_call>\n{VIEW}\n</tool_call>"
    parts = read_content(text, DECLARED)
    assert parts.thinking == "The bug is in add."
    assert parts.text == "Let me look."
    assert [(c.name, json.loads(c.arguments)) for c in parts.calls] == [
        ("view_file", {"path": "calc.py"})
    ]


def test_a_call_between_two_paragraphs_is_taken():
    text = f"First I read it.\n\n<tool_call>{VIEW}</tool_call>\n\nThen I fix it."
    parts = read_content(text, DECLARED)
    assert [c.name for c in parts.calls] == ["view_file"]
    assert parts.text == "First I read it.\n\nThen I fix it."


def test_thinking_is_never_the_answer():
    assert split_thinking("<think>hmm</think>The answer.") == ("hmm", "The answer.")
    # The opening tag was in the prompt template: only the closing one is written.
    assert split_thinking("so it is add\n</think>\n\nFixed.") == ("so it is add", "Fixed.")
    # Cut off while thinking: nothing of it is an answer.
    assert split_thinking("Done.<think>but maybe") == ("but maybe", "Done.")
    assert split_thinking("No thinking here.") == ("", "No thinking here.")


def test_a_call_inside_thinking_is_not_a_call():
    text = f"<think>I could send <tool_call>{VIEW}</tool_call></think>I am done."
    parts = read_content(text, DECLARED)
    assert (parts.calls, parts.text) == ((), "I am done.")


def test_the_stream_splits_thinking_text_and_calls():
    stream = ContentStream()
    parts = []
    for piece in ["<thi", "nk>pondering</th", "ink>Here: <tool", "_call>{}</tool_call> ok"]:
        parts += stream.feed(piece)
    parts += stream.finish()
    assert _joined(parts) == [
        ("thinking", "pondering"),
        ("text", "Here: "),
        ("call", "{}"),
        ("text", " ok"),
    ]


def test_a_lone_angle_bracket_is_text():
    stream = ContentStream()
    parts = stream.feed("a < b and x <t") + stream.feed("hat") + stream.finish()
    assert _joined(parts) == [("text", "a < b and x <that")]


SAMPLE = f"pre <think>deep\nthought</think> mid <tool_call>{VIEW}</tool_call> post <x>"


@given(st.lists(st.integers(0, len(SAMPLE)), max_size=12))
def test_any_split_of_the_stream_gives_the_same_parts(cuts):
    points = sorted(set(cuts))
    pieces = [SAMPLE[a:b] for a, b in zip([0, *points], [*points, len(SAMPLE)], strict=True)]
    stream = ContentStream()
    parts = []
    for piece in pieces:
        parts += stream.feed(piece)
    parts += stream.finish()
    assert _joined(parts) == [
        ("text", "pre "),
        ("thinking", "deep\nthought"),
        ("text", " mid "),
        ("call", VIEW),
        ("text", " post <x>"),
    ]


def _joined(parts):
    out: list[tuple[str, str]] = []
    for state, text in parts:
        if out and out[-1][0] == state:
            out[-1] = (state, out[-1][1] + text)
        else:
            out.append((state, text))
    return out
