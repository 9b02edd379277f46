"""Hostile LSP input against the real server over stdio (``tests/lsp/raw.py``).

Broken framing, messages that are not JSON-RPC, params of the wrong type for
every command and the standard messages the server handles, very large
messages, and command arguments that name other files' review items or
places outside the workspace. Each is answered with an error (or ignored,
for a notification), the server answers the next normal request, and
nothing outside the workspace is read or written: a decoy file beside the
workspace (and reachable through symlinks inside it) must never appear in
anything the server sends, nor in what the model is asked, and the folder
holding it is the same before and after.

The hypothesis test's examples are ``SUREHAND_FUZZ_EXAMPLES`` (default 25).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pygls.uris import from_fs_path

from lsp_server import limits
from tests.lsp.editor import settings_for
from tests.lsp.raw import RawServer, encode, frame, wait_for
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, edit

pytestmark = [pytest.mark.slow]

DECOY = "DECOY-7c1e5a-never-leaves-its-folder"
EXAMPLES = int(os.environ.get("SUREHAND_FUZZ_EXAMPLES", "25"))
COMMANDS = [
    "surehand.ask",
    "surehand.cancel",
    "surehand.reset",
    "surehand.status",
    "surehand.review.accept",
    "surehand.review.reject",
    "surehand.review.acceptAll",
    "surehand.review.rejectAll",
    "surehand.review.next",
    "surehand.review.showDiff",
    "surehand.undo",
]
INVALID_REQUEST, PARSE_ERROR, INVALID_PARAMS = -32600, -32700, -32602


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.py").write_text(f"TOKEN = '{DECOY}'\n")
    (folder / "other.py").write_text(f"# {DECOY}\ndef add(a, b):\n    return a - b\n")
    return folder


@pytest.fixture
def project(tmp_path: Path, outside: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC)
    (root / "util.py").write_text("def sub(a, b):\n    return a - b\n")
    (root / "link.py").symlink_to(outside / "secret.py")
    (root / "linkdir").symlink_to(outside)
    return root


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def server(
    project: Path, outside: Path, openai_server: ScriptedServer, tmp_path: Path
) -> Iterator[RawServer]:
    before = snapshot(outside)
    settings = settings_for(openai_server.base_url, openai_server.model, tmp_path / "traces")
    raw = RawServer(project, settings, tmp_path / "server.stderr")
    try:
        answer = raw.initialize()
        assert "result" in answer, answer
        raw.healthy()  # the settings have been read
        yield raw
        raw.healthy()
    finally:
        code = raw.close()
    assert code == 0, (tmp_path / "server.stderr").read_text()[-3000:]
    assert DECOY.encode() not in raw.received
    for request in openai_server.requests:
        assert DECOY not in json.dumps(request.body), "the decoy reached the model"
    assert snapshot(outside) == before


def error_code(answer: dict[str, Any]) -> int | None:
    return answer["error"]["code"] if "error" in answer else None


# -- framing ---------------------------------------------------------------------

STATUS: dict[str, Any] = {"jsonrpc": "2.0", "id": "after", "method": "workspace/executeCommand"}
STATUS["params"] = {"command": "surehand.status"}

BROKEN_FRAMES = {
    "no Content-Length": b'Content-Type: application/json\r\n\r\n{"jsonrpc": "2.0"}',
    "negative Content-Length": b"Content-Length: -5\r\n\r\n{}",
    "non-numeric Content-Length": b"Content-Length: twelve\r\n\r\n{}",
    "Content-Length of zero": b"Content-Length: 0\r\n\r\n",
    "huge Content-Length": b"Content-Length: 99999999999999999999\r\n\r\n{}",
    "Content-Length larger than the body": b"Content-Length: 400\r\n\r\n{}",
    "a header line without an end": b"Content-Length: 12" + b"x" * 70_000 + b"\r\n\r\n{}",
    "garbage before a header": b"\x00\xff garbage\r\n\r\n",
    "body not UTF-8": frame(b'{"jsonrpc": "2.0", "method": "\xff\xfe"}'),
}


@pytest.mark.parametrize("raw_bytes", BROKEN_FRAMES.values(), ids=BROKEN_FRAMES.keys())
def test_broken_framing_is_survived(server: RawServer, raw_bytes: bytes):
    server.write(raw_bytes)
    server.send(STATUS)

    answer = server.expect("after")

    assert answer["result"]["busy"] is False
    server.healthy()


NOT_JSON_RPC = {
    "invalid JSON": (b'{"jsonrpc": "2.0", "id": 1, "method": ', None),
    "an array": (b"[1, 2, 3]", None),
    "an empty batch": (b"[]", None),
    "a string": (b'"hello"', None),
    "a number": (b"42", None),
    "null": (b"null", None),
    "wrong jsonrpc version": (b'{"jsonrpc": "1.0", "id": 7, "method": "shutdown"}', 7),
    "no jsonrpc member": (b'{"id": 8, "method": "shutdown"}', 8),
    "no method": (b'{"jsonrpc": "2.0", "id": 9, "params": {}}', 9),
    "method not a string": (b'{"jsonrpc": "2.0", "id": 10, "method": 12}', 10),
    "id an object": (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "shutdown"}', None),
    "id a list": (b'{"jsonrpc": "2.0", "id": [1], "method": "shutdown"}', None),
    "id a boolean": (b'{"jsonrpc": "2.0", "id": true, "method": "shutdown"}', None),
    "id a fraction": (b'{"jsonrpc": "2.0", "id": 1.5, "method": "shutdown"}', None),
    "params a string": (
        b'{"jsonrpc": "2.0", "id": 11, "method": "workspace/executeCommand", "params": "x"}',
        11,
    ),
    "params null for a command": (
        b'{"jsonrpc": "2.0", "id": 12, "method": "workspace/executeCommand", "params": null}',
        12,
    ),
    "nested 100000 deep": (
        b'{"jsonrpc": "2.0", "id": 13, "method": "workspace/executeCommand", "params": '
        b'{"command": "surehand.status", "arguments": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}",
        13,
    ),
}


@pytest.mark.parametrize(
    ("body", "answer_id"), NOT_JSON_RPC.values(), ids=list(NOT_JSON_RPC.keys())
)
def test_what_is_not_json_rpc_is_an_error(server: RawServer, body: bytes, answer_id: Any):
    server.write(frame(body))

    answer = server.expect(answer_id)

    assert error_code(answer) in (PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS), answer
    assert "result" not in answer
    server.healthy()  # and "shutdown" with a bad envelope did not shut it down


def test_an_unknown_command_and_method_are_errors(server: RawServer):
    assert error_code(server.command("surehand.nope")) is not None
    assert error_code(server.command("../../etc/passwd", "x")) is not None
    assert error_code(server.request("surehand/nope", {})) == -32601
    server.notify("surehand/nope", {"a": 1})  # an unknown notification: ignored
    server.notify("$/unknown", [1, 2])


def test_a_request_after_shutdown_is_an_error(server: RawServer):
    assert server.request("shutdown")["result"] is None

    answer = server.command("surehand.status", timeout=5)

    assert error_code(answer) == INVALID_REQUEST
    server.notify("exit")
    server.process.wait(10)
    server.healthy = lambda: None  # type: ignore[method-assign]  # it has gone, as asked


def test_shutdown_and_exit_with_params_null_stop_the_server(server: RawServer):
    """As clients built on lsp4j (JetBrains' among them) and vim-lsc send them: JSON-RPC's
    params are an object, an array or absent, and they mean absent."""
    server.write(frame(b'{"jsonrpc": "2.0", "id": 40, "method": "shutdown", "params": null}'))
    answer = server.expect(40)
    assert "error" not in answer and answer["result"] is None
    server.write(frame(b'{"jsonrpc": "2.0", "method": "exit", "params": null}'))
    assert server.process.wait(10) == 0  # after shutdown: exit code 0
    server.healthy = lambda: None  # type: ignore[method-assign]  # it has gone, as asked


# -- params of the wrong type ----------------------------------------------------

BAD_ARGUMENTS: list[Any] = [
    [5],
    ["x" * 10],
    [[]],
    [None, None],
    [{"id": {"x": 1}}],
    [{"id": 5}],
    [{"uri": 5}],
    [{"uri": "file:///x", "line": "three"}],
    [{"line": -1}],
    [{"line": 10**30}],
    [{"line": 1.5}],
    [{"always": "yes", "id": "h1"}],
    [{"task": 42}],
    [{"task": "fix", "range": {"start": 3}}],
    [{"task": "fix", "range": {"start": {"line": -1, "character": 0}, "end": 5}}],
    [{"task": "fix", "uri": ["file:///etc/passwd"]}],
]


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_refuses_arguments_of_the_wrong_type(server: RawServer, name: str):
    for arguments in BAD_ARGUMENTS:
        if name == "surehand.ask" and arguments == ["x" * 10]:
            continue  # the task alone, as a string: a good argument
        params = {"command": name, "arguments": arguments}
        answer = server.request("workspace/executeCommand", params)
        if name in ("surehand.cancel", "surehand.reset", "surehand.status", "surehand.undo"):
            # they take nothing: anything given is refused
            assert error_code(answer) == INVALID_PARAMS, (arguments, answer)
        elif name == "surehand.ask" or not _plausible(arguments):
            assert error_code(answer) == INVALID_PARAMS, (arguments, answer)
        else:  # a well-formed argument naming nothing: the documented answer
            assert answer["result"]["remaining" if "next" in name else "why"] in (0, "no review")
    for arguments in ({"a": 1}, "text", 5):  # arguments not a list at all
        answer = server.request(
            "workspace/executeCommand", {"command": name, "arguments": arguments}
        )
        assert error_code(answer) == INVALID_PARAMS, (arguments, answer)


def _plausible(arguments: list[Any]) -> bool:
    """An argument the review commands take (and then find nothing with): unknown
    keys are left alone."""
    return (
        len(arguments) == 1
        and isinstance(arguments[0], dict)
        and set(arguments[0]) <= {"task", "range"}
    )


# -- standard messages -------------------------------------------------------------


def test_bad_document_notifications_are_ignored(server: RawServer):
    uri = server.uri("calc.py")
    server.open("calc.py", CALC)
    bad_opens: list[Any] = [
        5,
        {"textDocument": 5},
        {"textDocument": {"uri": 5, "languageId": "python", "version": 1, "text": "x"}},
        {"textDocument": {"uri": uri, "languageId": "python", "version": "one", "text": "x"}},
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": 7}},
        {"textDocument": {"uri": uri}},
    ]
    for params in bad_opens:
        server.notify("textDocument/didOpen", params)
    changes: list[Any] = [
        {"range": _range(9999, 0, 99999, 5), "text": "PAST\n"},
        {"range": _range(0, 10**9, 0, 10**12), "text": ""},
        {"range": _range(1, 0, 0, 0), "text": ""},  # start after end
        {"range": _range(-1, 0, 0, 0), "text": ""},
        {"range": {"start": "a", "end": None}, "text": ""},
        {"text": 5},
    ]
    for version, change in enumerate(changes, start=2):
        server.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )
    server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": -4}, "contentChanges": [{"text": "x = 1\n"}]},
    )
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri}, "contentChanges": 5})
    server.notify("textDocument/didClose", {"textDocument": {"uri": 5}})
    server.notify("textDocument/didClose", "calc.py")
    server.notify("surehand/reviewed", {"hunks": 5})
    server.notify("surehand/reviewed", {"hunks": [5, None, {"uri": {"x": 1}}]})
    server.notify("workspace/didChangeConfiguration", {"settings": [1, 2]})
    server.notify("$/cancelRequest", {"id": {"x": 1}})
    server.notify("window/workDoneProgress/cancel", {"token": [1]})
    server.healthy()


def test_code_actions_past_the_end_and_of_other_files(server: RawServer, outside: Path):
    server.open("calc.py", CALC)
    for uri, text_range in [
        (server.uri("calc.py"), _range(10**6, 0, 10**7, 10**9)),
        (server.uri("calc.py"), _range(5, 0, 1, 0)),
        (from_fs_path(str(outside / "secret.py")), _range(0, 0, 1, 0)),
        (server.uri("link.py"), _range(0, 0, 1, 0)),
        ("untitled:Untitled-1", _range(0, 0, 0, 0)),
    ]:
        params = {"textDocument": {"uri": uri}, "range": text_range, "context": {"diagnostics": []}}
        answer = server.request("textDocument/codeAction", params)
        assert "result" in answer or "error" in answer
    answer = server.request("textDocument/codeAction", {"textDocument": {"uri": 5}})
    assert error_code(answer) is not None


def _range(a: int, b: int, c: int, d: int) -> dict[str, Any]:
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}


# -- very large messages ------------------------------------------------------------


def test_a_document_over_the_file_limit_is_not_kept(server: RawServer):
    big = "x = 1\n" * (limits.MAX_MESSAGE_BYTES // 6 + 1000)  # over the frame limit
    server.open("big.py", big)
    server.healthy()
    wait_for(lambda: "big.py" in server.log_text(), what="the refusal's log message")
    medium = "y = 2\n" * 400_000  # 2.4 MB: within the frame, over the file limit
    server.open("medium.py", medium)
    server.healthy()
    wait_for(lambda: "medium.py" in server.log_text(), what="the refusal's log message")
    assert "over" in server.log_text()


def test_a_huge_task_and_a_deep_argument_are_refused(server: RawServer):
    answer = server.command("surehand.ask", {"task": "fix " * (10 * 2**20 // 4)})
    assert error_code(answer) == INVALID_PARAMS
    assert "characters" in answer["error"]["message"]
    for name, depth in [("surehand.review.accept", 5000), ("surehand.ask", 500)]:
        deep = b"[" * depth + b'"x"' + b"]" * depth
        server.write(
            frame(
                b'{"jsonrpc": "2.0", "id": "deep", "method": "workspace/executeCommand",'
                b' "params": {"command": "%s", "arguments": [{"task": "fix", "id": %s, "uri": %s}]}}'
                % (name.encode(), deep, deep)
            )
        )
        assert error_code(server.expect("deep")) is not None


def test_a_message_over_the_limit_gets_an_error_with_its_id(server: RawServer):
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": "big",
            "method": "workspace/executeCommand",
            "params": {"command": "surehand.status", "arguments": ["x" * limits.MAX_MESSAGE_BYTES]},
        }
    ).encode()
    server.write(frame(body))

    answer = server.expect("big")

    assert error_code(answer) == INVALID_REQUEST
    assert "limit" in answer["error"]["message"]


# -- places outside the workspace ---------------------------------------------------


def _outside_uris(server: RawServer, outside: Path) -> list[str]:
    root = server.root
    return [
        from_fs_path(str(outside / "secret.py")) or "",
        server.uri("link.py"),
        server.uri("linkdir/secret.py"),
        f"file://{root}/../outside/secret.py",
        f"file://{root}/%2e%2e/outside/secret.py",
        f"file://{root}/%2E%2E%2Foutside%2Fsecret.py",
        f"file://otherhost{root}/calc.py",
        f"http://example.invalid{root}/calc.py",
        f"untitled:{root}/calc.py",
        "untitled:Untitled-1",
        f"vscode-remote://ssh-remote+evil{root}/calc.py",
        "file:///etc/passwd",
        "",
        "file://",
    ]


def test_an_ask_about_a_file_outside_the_workspace_is_refused(
    server: RawServer, outside: Path, openai_server: ScriptedServer
):
    for uri in _outside_uris(server, outside):
        answer = server.command("surehand.ask", {"task": "Read this file.", "uri": uri})
        assert error_code(answer) == INVALID_PARAMS, (uri, answer)
        assert "workspace" in answer["error"]["message"]
    assert openai_server.completions == []


def under_review(server: RawServer) -> dict:
    """The review a task answered ``started`` opened, once it is out (``surehand.status``)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        review = server.command("surehand.status")["result"]["review"]
        if review is not None:
            return review
        time.sleep(0.05)
    raise AssertionError("no review opened")


def test_documents_outside_the_workspace_are_never_read(
    server: RawServer, outside: Path, openai_server: ScriptedServer
):
    """Buffers opened under other schemes, hosts or outside paths never stand in for a file."""
    for uri in _outside_uris(server, outside):
        server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": DECOY}},
        )
    fake = f"untitled:{server.root}/calc.py"
    server.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": fake, "languageId": "python", "version": 1, "text": DECOY}},
    )
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    answer = server.command("surehand.ask", {"task": "Fix add."}, timeout=30)

    assert answer["result"]["outcome"] == "started", answer
    assert under_review(server)["items"][0]["path"] == "calc.py"  # found on disk, not the fake
    server.command("surehand.review.rejectAll")


def test_review_commands_name_only_this_reviews_items(
    server: RawServer, outside: Path, openai_server: ScriptedServer
):
    server.open("calc.py", CALC)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    assert server.command("surehand.ask", {"task": "Fix add."})["result"]["outcome"] == "started"
    first = under_review(server)
    old_id = first["items"][0]["id"]
    server.command("surehand.review.rejectAll")
    server.command("surehand.reset")
    swap = edit("def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return b - a\n", "swap")
    openai_server.add(Turn(tool_calls=[swap]), Turn(tool_calls=[FINISH]))
    server.command("surehand.ask", {"task": "Fix add again."})
    second = under_review(server)
    item = second["items"][0]["id"]
    assert item != old_id

    for name in ("surehand.review.accept", "surehand.review.reject", "surehand.review.showDiff"):
        # an item of the last task, a made-up one, an item named with another file
        for argument in (
            {"id": old_id},
            {"id": "h999999"},
            {"id": "../../outside/secret.py"},
            {"id": item, "uri": server.uri("util.py")},
        ):
            answer = server.command(name, argument)
            assert answer["result"]["state"] is None, (name, argument, answer)
            assert answer["result"]["why"]
    for name in COMMANDS[4:10]:
        for uri in _outside_uris(server, outside):
            answer = server.command(name, {"uri": uri, "line": 0})
            assert error_code(answer) == INVALID_PARAMS, (name, uri, answer)
            assert "workspace" in answer["error"]["message"]
    status = server.command("surehand.status")["result"]
    assert status["review"]["remaining"] == 1, "nothing was decided by any of them"
    server.command("surehand.review.rejectAll")


# -- fuzz ----------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["id", "uri", "line", "task", "range", "always", "start", "x"]),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)
methods = st.sampled_from(
    [
        "workspace/executeCommand",
        "textDocument/codeAction",
        "textDocument/didOpen",
        "textDocument/didChange",
        "textDocument/didClose",
        "surehand/reviewed",
        "$/cancelRequest",
        "initialize",
    ]
)


@st.composite
def messages(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["command", "message", "bytes"]))
    if kind == "bytes":
        return frame(draw(st.binary(max_size=200)))
    message: dict[str, Any] = {"jsonrpc": draw(st.sampled_from(["2.0", "2.0", "1.0", None]))}
    message["id"] = draw(
        st.none() | st.integers(min_value=10**6) | st.text(max_size=8) | json_values
    )
    if kind == "command":
        message["method"] = "workspace/executeCommand"
        message["params"] = {
            "command": draw(st.sampled_from(COMMANDS)),
            "arguments": draw(st.lists(json_values, max_size=3) | json_values),
        }
    else:
        message["method"] = draw(methods)
        message["params"] = draw(json_values)
    return encode(message)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(attack=messages())
def test_fuzzed_messages_never_stop_the_server(server: RawServer, attack: bytes):
    server.write(attack)
    server.send(STATUS)
    answer = server.expect("after")
    assert answer["result"]["busy"] in (True, False), answer
