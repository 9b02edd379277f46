"""Tool calls written as text by small models."""

import json

from agent.content_calls import calls_in_content

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
    assert calls_in_content('<tool_call>{"name": "view_file"}</tool_call> and more', DECLARED) == ()
