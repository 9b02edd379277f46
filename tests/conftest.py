"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.openai_server import ScriptedServer


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory):
    """The developer's own ~/.config/surehand/config.toml must not reach the tests
    (servers and commands the tests start inherit this environment)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("no-user-config")))


@pytest.fixture
def openai_server() -> Iterator[ScriptedServer]:
    """A started scripted OpenAI-compatible server (model ``scripted``, no key required).

    Script it with ``openai_server.add(Turn(...), HttpError(429), ...)``. The test
    fails at teardown if a request found the script empty.
    """
    with ScriptedServer() as server:
        yield server
    assert not server.overruns, (
        f"requests {server.overruns} found the script empty: script more replies"
    )
