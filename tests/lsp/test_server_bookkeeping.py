"""What the server keeps of the messages it handled: nothing, once each is done.

In process, without timing: the real server's protocol (``create_server``)
handles what an editor sends between tasks (a document opened, changed and
closed; ``surehand.status``, ``surehand.reset`` and ``surehand.cancel``)
round after round, its output going nowhere. The futures alive afterwards
(asyncio's and ``concurrent.futures``', counted among every live object) are
as many after the last round as after the first: pygls alone would keep one
for every notification and every command, with its result, for as long as
the server runs. A work-done progress that ended leaves no token behind.
A reset frees the session it drops at once, not at the cyclic collector's
next pass, and hands its model client (connections, TLS context) on to the
next session: a client made anew for each session left the old one, TLS
context and all, in openai's own reference cycles until a full collection.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import weakref
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path

from lsp_server.server import SurehandServer, create_server

pytestmark = pytest.mark.asyncio

ROUNDS = 20


class Nowhere:
    """A writer that drops what the server sends."""

    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass


async def handled(server: SurehandServer, message: dict[str, Any]) -> None:
    """``message`` handled as if read from the client, and what it started run to its end."""
    protocol = server.protocol
    protocol.handle_message(protocol.structure_message({"jsonrpc": "2.0", **message}))
    for _ in range(10):
        await asyncio.sleep(0)


def live_futures() -> int:
    gc.collect()
    kinds = (asyncio.Future, concurrent.futures.Future)
    return sum(1 for o in gc.get_objects() if issubclass(type(o), kinds))


async def one_round(server: SurehandServer, uri: str, request_id: int) -> None:
    document = {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"}
    await handled(server, {"method": "textDocument/didOpen", "params": {"textDocument": document}})
    change = {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "x = 2\n"}]}
    await handled(server, {"method": "textDocument/didChange", "params": change})
    closed = {"textDocument": {"uri": uri}}
    await handled(server, {"method": "textDocument/didClose", "params": closed})
    for offset, name in enumerate(("surehand.status", "surehand.reset", "surehand.cancel")):
        params = {"command": name, "arguments": []}
        request = {"id": request_id + offset, "method": "workspace/executeCommand"}
        await handled(server, {**request, "params": params})


async def initialized(root: Path) -> SurehandServer:
    """The real server, initialized on ``root`` (which it makes), its output going nowhere."""
    server = create_server()
    server.protocol.set_writer(Nowhere())
    root.mkdir()
    initialize = {"processId": None, "rootUri": from_fs_path(str(root)), "capabilities": {}}
    await handled(server, {"id": 1, "method": "initialize", "params": initialize})
    return server


async def test_handled_messages_leave_no_future_behind(tmp_path: Path):
    root = tmp_path / "project"
    server = await initialized(root)
    uri = from_fs_path(str(root / "a.py")) or ""

    await one_round(server, uri, 10)
    first = live_futures()
    for number in range(1, ROUNDS):
        await one_round(server, uri, 10 + 10 * number)

    assert live_futures() == first


async def test_an_ended_progress_leaves_no_token_behind():
    server = create_server()
    server.protocol.set_writer(Nowhere())
    progress = server.work_done_progress
    for number in range(ROUNDS):
        token = f"surehand-task-{number}"
        progress.begin(token, types.WorkDoneProgressBegin(title="surehand"))
        progress.end(token, types.WorkDoneProgressEnd(message="done"))

    assert progress.tokens == {}


async def test_a_reset_frees_its_session_at_once_and_keeps_the_model_client(tmp_path: Path):
    server = await initialized(tmp_path / "project")
    controller = server.controller
    settings = {"model": "scripted", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "sk-test"}
    controller.configure(settings)
    controller.prepare()  # the session, as the first ask makes it
    assert controller.session is not None
    client = controller.session.client
    dropped = weakref.ref(controller.session)

    gc.disable()
    try:
        reset = {"command": "surehand.reset", "arguments": []}
        await handled(server, {"id": 2, "method": "workspace/executeCommand", "params": reset})
        assert controller.session is None
        assert dropped() is None
    finally:
        gc.enable()
    controller.prepare()
    assert controller.session is not None and controller.session.client is client
    await controller.shutdown()
