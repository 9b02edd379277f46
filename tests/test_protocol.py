"""The written protocol (``docs/protocol.md``) and the code agree.

Every example in ``docs/protocol/examples/`` is valid against the schema of
its message (``docs/protocol/schema/``, chosen by the example's method, and
for a command by its name); ``step_payload`` gives exactly an example's
params for the event it shows; and every wire name, command and outcome the
code has is written down. The same examples are read by the extension's
tests (``client-vscode/test/protocol.test.ts``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agent.conversation import ToolCall
from agent.events import (
    Event,
    ModelCalling,
    ModelRetry,
    ModelText,
    ModelThinking,
    ModelWriting,
    StepStarted,
    TaskEnded,
    ToolFinished,
    ToolStarted,
)
from agent.proposal import Ending
from agent.review import FileStatus, HunkStatus, Verdict
from lsp_server import progress
from lsp_server.server import create_server

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = ROOT / "docs" / "protocol"
EXAMPLES = sorted((PROTOCOL / "examples").glob("*.json"))
SCHEMAS = sorted((PROTOCOL / "schema").glob("*.json"))
DIRECTIONS = {"server->client", "client->server"}


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def schema_name(message: dict[str, Any]) -> str:
    """The schema of a message: by its method; a command's by the command's name."""
    method = message["method"]
    if method == "workspace/executeCommand":
        return f"command-{message['params']['command']}"
    return method.removeprefix("surehand/")


def validator(name: str) -> Draft202012Validator:
    schema = load(PROTOCOL / "schema" / f"{name}.json")
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def errors(message: dict[str, Any]) -> list[str]:
    found = validator(schema_name(message)).iter_errors(message)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in found]


def example(name: str) -> dict[str, Any]:
    return load(PROTOCOL / "examples" / f"{name}.json")


# -- the examples --------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_is_valid_against_its_messages_schema(path: Path):
    message = load(path)
    assert set(message) <= {"direction", "method", "params", "result"}, sorted(message)
    assert message["direction"] in DIRECTIONS
    assert (PROTOCOL / "schema" / f"{schema_name(message)}.json").exists(), path.name
    assert errors(message) == []


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_is_named_after_what_it_shows(path: Path):
    message = load(path)
    prefix, _, name = path.stem.partition("-")
    expected = {
        "step": lambda: message["params"]["kind"],
        "reviewed": lambda: "",
        "command": lambda: message["params"]["command"],
        "outcome": lambda: message["result"]["outcome"],
        "capability": lambda: "surehand.review",
    }
    assert prefix in expected, f"{path.name}: no naming rule for {prefix!r}"
    assert name == expected[prefix](), path.name


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.stem)
def test_every_schema_is_a_valid_schema_with_an_example(path: Path):
    Draft202012Validator.check_schema(load(path))
    assert any(schema_name(load(e)) == path.stem for e in EXAMPLES), f"no example of {path.name}"


@pytest.mark.parametrize(
    ("name", "change"),
    [
        ("step-tool_started", lambda m: m["params"].update(name="edit")),  # `tool`, never `name`
        ("step-step_started", lambda m: m["params"].update(kind="StepStarted")),
        ("step-tool_finished", lambda m: m["params"].pop("reason")),
        ("step-task_ended", lambda m: m["params"].update(ending="done")),
        ("reviewed", lambda m: m["params"]["hunks"][0].pop("accepted")),
        ("outcome-applied", lambda m: m["result"].update(outcome="accepted")),
        ("outcome-conflict", lambda m: m["result"]["details"][0].update(status="clashed")),
        ("command-surehand.status", lambda m: m["result"].pop("sandbox")),
        ("capability-surehand.review", lambda m: m["params"]["capabilities"].pop("experimental")),
    ],
)
def test_the_schemas_refuse_a_message_that_strays(name: str, change: Any):
    message = example(name)
    change(message)
    assert errors(message), f"{name} still validates after the change"


# -- surehand/step -------------------------------------------------------------------

EDIT_ARGUMENTS = example("step-tool_started")["params"]["arguments"]
EDIT = ToolCall("call_7", "edit", EDIT_ARGUMENTS)

EVENTS: dict[str, Event] = {
    "step_started": StepStarted(2),
    "model_calling": ModelCalling(2, "edit"),
    "model_retry": ModelRetry(
        2,
        "The model endpoint http://localhost:8000/v1 failed with 503: overloaded. "
        "Try again later. Retrying.",
    ),
    "tool_started": ToolStarted(2, EDIT, "Editing dateparse.py"),
    "tool_finished": ToolFinished(2, EDIT, True, "Edited dateparse.py", True, None),
    "task_ended": TaskEnded(Ending.FINISHED, "parse_dmy now reads day/month/year."),
}


def test_every_wire_name_has_an_event_and_an_example():
    assert sorted(EVENTS) == sorted(progress.STEP_KINDS)
    shown = {load(p)["params"]["kind"] for p in EXAMPLES if p.stem.startswith("step-")}
    assert shown == set(progress.STEP_KINDS)
    step_schema = load(PROTOCOL / "schema" / "step.json")
    assert {d["properties"]["kind"]["const"] for d in _kinds(step_schema)} == shown


def _kinds(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        schema["$defs"][ref["$ref"].rsplit("/", 1)[1]]
        for ref in schema["properties"]["params"]["oneOf"]
    ]


@pytest.mark.parametrize("kind", progress.STEP_KINDS)
def test_step_payload_gives_exactly_the_examples_fields(kind: str):
    payload = progress.step_payload(EVENTS[kind])
    assert payload == example(f"step-{kind}")["params"]
    assert json.loads(json.dumps(payload)) == payload  # plain JSON, nothing the encoder bends


@pytest.mark.parametrize(
    "event",
    [ModelText(1, "Let me"), ModelThinking(1, "hm"), ModelWriting(1, "edit", 40)],
    ids=lambda e: type(e).__name__,
)
def test_streamed_pieces_are_not_sent(event: Event):
    assert progress.step_payload(event) is None


def test_the_task_ended_schema_lists_every_ending():
    defs = load(PROTOCOL / "schema" / "step.json")["$defs"]
    assert set(defs["ending"]["enum"]) == {e.value for e in Ending}


# -- commands and outcomes -------------------------------------------------------------


def test_every_registered_command_has_a_schema_and_an_example():
    registered = set(create_server().protocol.fm.commands)
    documented = {p.stem.removeprefix("command-") for p in SCHEMAS if p.stem.startswith("command-")}
    assert registered == documented
    shown = {p.stem.removeprefix("command-") for p in EXAMPLES if p.stem.startswith("command-")}
    assert shown == registered


def test_every_outcome_has_an_example_and_the_schema_lists_the_reviews_values():
    defs = load(PROTOCOL / "schema" / "command-surehand.ask.json")["$defs"]
    reviewed, short = defs["reviewed"]["properties"], defs["short"]["properties"]
    assert set(reviewed["outcome"]["enum"]) == {v.value for v in Verdict}
    assert set(reviewed["ending"]["enum"]) == {e.value for e in Ending}
    assert set(reviewed["files"]["additionalProperties"]["enum"]) == {s.value for s in FileStatus}
    hunk = defs["hunk"]["properties"]
    assert set(hunk["status"]["enum"]) == {s.value for s in HunkStatus}
    outcomes = {*reviewed["outcome"]["enum"], *short["outcome"]["enum"]}
    shown = {p.stem.removeprefix("outcome-") for p in EXAMPLES if p.stem.startswith("outcome-")}
    assert shown == outcomes
