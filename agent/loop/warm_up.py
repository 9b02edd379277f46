"""The task machinery, imported in the background once the editor has its answer.

The model client's package (openai, httpx, pydantic), the tool loop and the
edit engine take a second or more to import: a front end's start must not
pay it (the language server answers ``initialize`` before any of it loads,
the ACP agent its ``initialize``), and neither should the first task. So
once the editor is answered, a thread imports them (the first task finds
them loaded, or waits only for what is left: Python's import locks let it
take over half-loaded modules) and sends one request through the model
adapter to an answer made on this machine (a server of its own on the
loopback address, for that one request: the openai package builds its
types' hints and validators on first use, the HTTP stack its connection's
parts; nothing leaves the machine), then calls
the front end back (the language server makes the session then: the model
client, its TLS context), so that the first task starts as quickly as a
later one. Before all that, it removes the shadow copies that processes
which were killed left behind (``shadow_owner.sweep``: a killed process
cannot remove its own).
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

# What a first task imports, heaviest first: the model client and the loop, the HTTP
# stack its first request loads (the openai package loads it lazily), the engine.
MODULES = (
    "agent.models.openai_client",
    "agent.loop.session",
    "anyio._backends._asyncio",
    "httpcore2",
    "h11",
    "jiter",
    "editing.matcher",
    "editing.report",
    "editing.patch",
    "agent.execution.runner",
    "agent.checks.verdicts",
)


def start(then: Callable[[], None] = lambda: None) -> threading.Thread:
    """Import ``MODULES`` in a daemon thread, then call ``then`` (from that thread)."""
    thread = threading.Thread(target=_warm_up, args=(then,), name="surehand-warm-up", daemon=True)
    thread.start()
    return thread


def _warm_up(then: Callable[[], None]) -> None:
    _sweep()
    _import_all()
    _rehearse()
    then()


def _sweep() -> None:
    """The shadow copies a process that was killed left behind, removed now: once a front
    end starts, not when a command of it first makes a copy (one may never)."""
    try:
        from agent.execution import shadow_owner  # noqa: PLC0415 - the standard library's only

        shadow_owner.sweep()
    except Exception:
        log.info("removing the shadow copies of ended processes failed", exc_info=True)


def _import_all() -> None:
    for name in MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # a broken install is reported by the first task, in the editor
            log.info("importing %s ahead of the first task failed", name, exc_info=True)
    try:
        from agent.tools import default_tools  # noqa: PLC0415 - the tools' modules and specs

        default_tools()
    except Exception:
        log.info("loading the tools ahead of the first task failed", exc_info=True)


def _rehearse() -> None:
    try:
        from agent.models.openai_client import rehearse  # noqa: PLC0415

        rehearse()
    except Exception:
        log.info("rehearsing a request ahead of the first task failed", exc_info=True)
