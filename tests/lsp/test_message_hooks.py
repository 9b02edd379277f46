"""The warm-up has cattrs build, ahead of the first ask, the reading and writing of the
messages an ask brings and sends (``Protocol.compile_hooks``): cattrs builds each on
first use, and registers a mapping's hook as it builds it, which empties its cache."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import cattrs.gen
import pytest
from cattrs.dispatch import MultiStrategyDispatch
from lsprotocol import types
from pygls.protocol import JsonRPCResponseMessage

from lsp_server.server import Protocol, SurehandServer

ASK = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "workspace/executeCommand",
    "params": {"command": "surehand.ask", "arguments": [{"task": "Fix add."}]},
}


def sent(protocol: Protocol) -> list[Any]:
    """What an ask sends as it starts, written as pygls writes it."""
    token = "surehand-1"
    messages = [
        JsonRPCResponseMessage(id=7, jsonrpc="2.0", result={"outcome": "started", "ids": [1]}),
        types.LogMessageNotification(
            params=types.LogMessageParams(type=types.MessageType.Info, message="ask")
        ),
        types.ShowMessageNotification(
            params=types.ShowMessageParams(type=types.MessageType.Info, message="ask")
        ),
        types.WorkDoneProgressCreateRequest(
            id=1, params=types.WorkDoneProgressCreateParams(token=token)
        ),
        types.ProgressNotification(
            params=types.ProgressParams(token=token, value=types.WorkDoneProgressBegin("a"))
        ),
        types.ProgressNotification(
            params=types.ProgressParams(token=token, value=types.WorkDoneProgressEnd())
        ),
    ]
    return [protocol.converter.unstructure(message) for message in messages]


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Every hook cattrs builds, and every registration that empties its cache."""
    found: list[object] = []
    for name in ("make_dict_structure_fn", "make_dict_unstructure_fn"):
        monkeypatch.setattr(cattrs.gen, name, _spy(getattr(cattrs.gen, name), found))
    register = MultiStrategyDispatch.register_cls_list

    def registered(self: Any, pairs: Any, *args: Any, **kwargs: Any) -> Any:
        found.extend(kind for kind, _ in pairs)
        return register(self, pairs, *args, **kwargs)

    monkeypatch.setattr(MultiStrategyDispatch, "register_cls_list", registered)
    yield found


def _spy(make: Any, found: list[object]) -> Any:
    def spy(kind: object, /, *args: Any, **kwargs: Any) -> Any:  # kwargs: attribute names
        found.append(kind)
        return make(kind, *args, **kwargs)

    return spy


def test_without_the_warm_up_the_first_ask_builds_its_hooks(built: list[object]) -> None:
    protocol = SurehandServer().protocol
    assert isinstance(protocol, Protocol)
    protocol.structure_message(dict(ASK))
    sent(protocol)
    assert types.ExecuteCommandRequest in built and dict in built


def test_after_the_warm_up_an_ask_builds_none(built: list[object]) -> None:
    protocol = SurehandServer().protocol
    assert isinstance(protocol, Protocol)
    protocol.compile_hooks()
    built.clear()
    message = protocol.structure_message(dict(ASK))
    assert list(message.params.arguments) == [{"task": "Fix add."}]
    assert sent(protocol)[0] == {
        "id": 7,
        "jsonrpc": "2.0",
        "result": {"outcome": "started", "ids": [1]},
    }
    assert built == []
