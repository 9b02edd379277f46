"""Fixtures shared by every test package, and the check that the suite leaves nothing behind.

The suite runs with a temporary directory of its own (``TMPDIR``, which the
servers and commands it starts inherit); when it ends, nothing of
surehand's (``surehand-*``) may be left in it: a leftover fails the run.
A run stopped by a signal cannot remove its directory: SIGTERM is turned
into an interrupt (so the run ends as after Ctrl-C), and each run removes
the directories of earlier runs whose process is gone (``owner`` names it).
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.openai_server import ScriptedServer

TEMP = pytest.StashKey[Path]()


PREFIX = "surehand-test-run-"


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _remove_abandoned(parent: Path) -> None:
    """Remove the directories of earlier runs whose process no longer exists."""
    for run in parent.glob(f"{PREFIX}*"):
        try:
            owner = int((run / "owner").read_text())
        except (OSError, ValueError):
            continue  # a run of another kind, or one still starting
        try:
            os.kill(owner, 0)
        except ProcessLookupError:
            shutil.rmtree(run, ignore_errors=True)
        except PermissionError:
            pass  # another user's live process


def pytest_configure(config: pytest.Config) -> None:
    _remove_abandoned(Path(tempfile.gettempdir()))
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupted)
    temp = Path(tempfile.mkdtemp(prefix=PREFIX)).resolve()
    (temp / "owner").write_text(str(os.getpid()))
    config.stash[TEMP] = temp
    os.environ["TMPDIR"] = str(temp)
    # Records a run keeps by default (traces, accepted tasks) stay in the run's folder.
    os.environ["XDG_STATE_HOME"] = str(temp / "state")
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again


# Folders whose every test drives a real editor or a real language server:
# all of them are in the slow tier, whether or not a module says so.
SLOW_FOLDERS = ("lsp", "nvim", "emacs", "vim")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        parts = item.path.relative_to(here).parts
        if parts and parts[0] in SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    temp = session.config.stash.get(TEMP, None)
    if temp is None:
        return
    from agent.execution.shadow import discard_kept

    discard_kept()  # the copy the last session kept for a next one
    left = sorted(p.name for p in temp.glob("surehand-*"))
    shutil.rmtree(temp, ignore_errors=True)
    if left:
        print(f"\nLEFT IN THE TEMPORARY DIRECTORY: {', '.join(left)}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


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
