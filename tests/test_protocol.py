"""The written protocol (``docs/protocol.md``) and the code agree.

Every example in ``docs/protocol/examples/`` is valid against the schema of
its message (``docs/protocol/schema/``, chosen by the example's method, and
for a command by its name; the values several messages share are in
``defs.json``, referred to by ``$id``); ``step_payload`` gives exactly an
example's params for the event it shows; and every wire name, command,
outcome, review item kind and state the code has is written down. The same
examples are read by the extension's tests
(``client-vscode/test/protocol.test.ts``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from agent.config.settings import _CHOICES
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
from agent.staging.proposal import Ending
from agent.staging.review import FileStatus, HunkStatus, Verdict
from agent.tools.context import Approval
from lsp_server import progress
from lsp_server.code_actions import COMMANDS as REVIEW_COMMANDS
from lsp_server.controller import OUTCOME
from lsp_server.hunk_review import Kind, State
from lsp_server.server import create_server

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = ROOT / "docs" / "protocol"
EXAMPLES = sorted((PROTOCOL / "examples").glob("*.json"))
SCHEMAS = sorted((PROTOCOL / "schema").glob("*.json"))
DEFS = PROTOCOL / "schema" / "defs.json"  # shared values, not a message
MESSAGE_SCHEMAS = [p for p in SCHEMAS if p != DEFS]
DIRECTIONS = {"server->client", "client->server"}
BASE = "https://surehand.invalid/protocol/schema/"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# Every schema by its $id, so that a $ref to another file resolves offline.
REGISTRY: Registry = Registry().with_resources(
    (load(p)["$id"], DRAFT202012.create_resource(load(p))) for p in SCHEMAS
)


def schema_name(message: dict[str, Any]) -> str:
    """The schema of a message: by its method; a command's by the command's name."""
    method = message["method"]
    if method == "workspace/executeCommand":
        return f"command-{message['params']['command']}"
    return method.removeprefix("surehand/")


def validator(name: str) -> Draft202012Validator:
    schema = load(PROTOCOL / "schema" / f"{name}.json")
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=REGISTRY)


def errors(message: dict[str, Any]) -> list[str]:
    found = validator(schema_name(message)).iter_errors(message)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in found]


def example(name: str) -> dict[str, Any]:
    return load(PROTOCOL / "examples" / f"{name.removesuffix('.json')}.json")


def defs() -> dict[str, Any]:
    return load(DEFS)["$defs"]


def shown(prefix: str) -> set[str]:
    """What the examples named ``<prefix>-<name>.json`` show: their names."""
    return {p.stem.removeprefix(f"{prefix}-") for p in EXAMPLES if p.stem.startswith(f"{prefix}-")}


# -- the examples --------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_is_valid_against_its_messages_schema(path: Path):
    message = load(path)
    assert set(message) <= {"direction", "method", "params", "result"}, sorted(message)
    assert message["direction"] in DIRECTIONS
    assert (PROTOCOL / "schema" / f"{schema_name(message)}.json").exists(), path.name
    assert errors(message) == []


@pytest.mark.parametrize(
    "path", [p for p in EXAMPLES if p.stem.startswith("command-")], ids=lambda p: p.stem
)
def test_every_command_example_shows_its_arguments_and_its_result(path: Path):
    # The schemas take a request without its result (the wire test checks requests
    # and results apart); an example is for reading, so it shows both.
    message = load(path)
    assert isinstance(message["params"].get("arguments"), list), path.name
    assert "result" in message, path.name


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_is_named_after_what_it_shows(path: Path):
    message = load(path)
    prefix, _, name = path.stem.partition("-")
    expected = {
        "step": lambda: message["params"]["kind"],
        "reviewed": lambda: "",
        "command": lambda: message["params"]["command"],
        "outcome": lambda: message["result"]["outcome"],  # a surehand.ask result
        "outcome_notification": lambda: message["params"]["outcome"],  # surehand/outcome
        "capability": lambda: "surehand.review",
        "tests": lambda: f"{message['params']['on']}-{message['params']['state']}",
    }
    assert prefix in expected, f"{path.name}: no naming rule for {prefix!r}"
    assert name == expected[prefix](), path.name


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.stem)
def test_every_schema_is_a_valid_schema_named_by_its_id(path: Path):
    schema = load(path)
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == BASE + path.name


@pytest.mark.parametrize("path", MESSAGE_SCHEMAS, ids=lambda p: p.stem)
def test_every_message_schema_has_an_example(path: Path):
    assert any(schema_name(load(e)) == path.stem for e in EXAMPLES), f"no example of {path.name}"


def _refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        own = [value["$ref"]] if "$ref" in value else []
        return own + [r for v in value.values() for r in _refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    return []


def test_every_shared_definition_is_used_and_every_reference_resolves():
    refs = {r for p in SCHEMAS for r in _refs(load(p))}
    used = {r.rsplit("/", 1)[1] for r in refs if r.startswith("defs.json#")}
    assert used | {r.rsplit("/", 1)[1] for r in _refs(load(DEFS))} >= set(defs())
    for path in SCHEMAS:  # an unresolvable $ref raises as soon as it is followed
        resolver = REGISTRY.resolver(base_uri=load(path)["$id"])
        for found in _refs(load(path)):
            assert resolver.lookup(found).contents is not None, (path.name, found)


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
        ("command-surehand.status", lambda m: m["result"].update(reviewMode="modal")),
        ("command-surehand.status", lambda m: m["result"].update(lastOutcome={"outcome": "x"})),
        ("capability-surehand.review", lambda m: m["params"]["capabilities"].pop("experimental")),
        ("outcome_notification-reviewing", lambda m: m["params"].pop("items")),
        ("outcome_notification-reviewing", lambda m: m["params"]["items"][0].update(state="x")),
        ("outcome_notification-reviewing", lambda m: m["params"].pop("task")),
        ("outcome-applied", lambda m: m["result"].update(review="review-1")),  # never an ask's
        ("outcome-started", lambda m: m["result"].pop("task")),
        ("outcome-started", lambda m: m["result"].update(review="review-1")),
        ("outcome_notification-applied", lambda m: m["params"].pop("task")),
        ("outcome_notification-applied", lambda m: m["params"].update(outcomeNotification=True)),
        ("outcome_notification-cancelled", lambda m: m["params"].update(task="")),
        ("outcome_notification-cancelled", lambda m: m["params"].update(outcome="busy")),
        ("outcome_notification-error", lambda m: m.pop("params")),
        ("command-surehand.review.accept", lambda m: m["result"].update(state="done")),
        ("command-surehand.review.accept", lambda m: m["params"].update(arguments=[{}, {}])),
        ("command-surehand.review.acceptAll", lambda m: m["result"]["items"][0].pop("kind")),
        ("command-surehand.review.next", lambda m: m["result"]["range"].pop("end")),
        ("command-surehand.review.showDiff", lambda m: m["result"].update(diff="-a\n+b")),
        ("command-surehand.undo", lambda m: m["result"]["undone"].update(operation="edit")),
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


def test_the_schemas_list_every_ending():
    assert set(defs()["ending"]["enum"]) == {e.value for e in Ending}


# -- commands and outcomes -------------------------------------------------------------


def test_every_registered_command_has_a_schema_and_an_example():
    registered = set(create_server().protocol.fm.commands)
    assert set(REVIEW_COMMANDS) <= registered
    documented = {p.stem.removeprefix("command-") for p in SCHEMAS if p.stem.startswith("command-")}
    assert registered == documented
    assert shown("command") == registered


def test_every_outcome_has_an_example_and_the_schemas_list_the_reviews_values():
    shared = defs()
    assert set(shared["verdict"]["enum"]) == {v.value for v in Verdict}
    assert set(shared["fileStatus"]["enum"]) == {s.value for s in FileStatus}
    assert set(shared["hunk"]["properties"]["status"]["enum"]) == {s.value for s in HunkStatus}
    short = set(shared["short"]["properties"]["outcome"]["enum"])
    started = load(PROTOCOL / "schema" / "command-surehand.ask.json")["$defs"]["started"]
    assert shown("outcome") == {v.value for v in Verdict} | short | {
        started["properties"]["outcome"]["const"]
    }


def test_every_outcome_the_notification_carries_has_an_example():
    schema = load(PROTOCOL / "schema" / "outcome.json")["$defs"]
    params = schema["params"]["oneOf"]
    assert params[0]["$ref"].endswith("/facts") and params[2]["$ref"].endswith("/short")
    notifications = [p for p in EXAMPLES if p.stem.startswith("outcome_notification-")]
    assert {load(p)["method"] for p in notifications} == {OUTCOME}
    short = set(params[2]["properties"]["outcome"]["enum"])
    assert short == {"cancelled", "error"}, "busy is only ever an ask's answer"
    reviewing = schema["reviewing"]["properties"]["outcome"]["const"]
    assert shown("outcome_notification") == {v.value for v in Verdict} | short | {reviewing}


def test_the_schemas_list_every_review_item_kind_state_mode_and_answer():
    shared = defs()
    assert set(shared["itemKind"]["enum"]) == {k.value for k in Kind}
    assert set(shared["itemState"]["enum"]) == {s.value for s in State}
    assert set(shared["answered"]["properties"]["answer"]["enum"]) == {a.value for a in Approval}
    status = load(PROTOCOL / "schema" / "command-surehand.status.json")
    modes = status["properties"]["result"]["properties"]["reviewMode"]["enum"]
    assert set(modes) == {"client", *_CHOICES["review"]}
