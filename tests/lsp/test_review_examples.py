"""The protocol examples of the non-modal review (docs/protocol/examples): their shape,
and that they say what the server sends (checked against a real review in
``test_hunk_review``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "protocol" / "examples"
OUTCOMES = sorted(EXAMPLES.glob("outcome_notification-*.json"))
COMMANDS = sorted(
    [*EXAMPLES.glob("command-surehand.review.*.json"), EXAMPLES / "command-surehand.undo.json"]
)
WORDS = {"applied", "partly_applied", "discarded", "conflict", "no_changes", "cancelled", "error"}


def example(name: str) -> dict:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", OUTCOMES, ids=lambda p: p.name)
def test_an_outcome_example_is_a_surehand_outcome_notification(path: Path):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data) == {"direction", "method", "params"}
    assert data["direction"] == "server->client" and data["method"] == "surehand/outcome"
    word = path.name.removeprefix("outcome_notification-").removesuffix(".json")
    assert data["params"]["outcome"] == word and word in WORDS
    assert isinstance(data["params"]["summary"], str)


def test_every_outcome_has_an_example():
    assert {
        p.name.removeprefix("outcome_notification-").removesuffix(".json") for p in OUTCOMES
    } == WORDS


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: p.name)
def test_a_command_example_is_an_execute_command_with_its_result(path: Path):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data) == {"direction", "method", "params", "result"}
    assert data["direction"] == "client->server"
    assert data["method"] == "workspace/executeCommand"
    assert data["params"]["command"] == path.name.removeprefix("command-").removesuffix(".json")
    assert isinstance(data["params"]["arguments"], list)
    assert isinstance(data["result"], dict)
