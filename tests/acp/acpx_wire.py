"""acpx, a headless command-line ACP client, run against ``surehand acp``; its JSON-RPC wire.

acpx (npm ``acpx``, pinned in ``tests/acp/clients``) spawns ``surehand acp`` in a
temporary project, as ``acpx --agent 'surehand acp ...' exec TASK``, and answers each
``session/request_permission`` as its mode says (its ``src/permissions.ts``):
``--approve-all`` picks the first ``allow_once`` option, ``--deny-all`` the first
``reject_once``; its default mode, ``--approve-reads``, asks ``(y/N)`` on a terminal
(``y`` is ``allow_once``, anything else ``reject_once``) and, without one, rejects (or,
with ``--non-interactive-permissions fail``, answers ``cancelled``). It offers
``fs/read_text_file`` and ``fs/write_text_file`` unless ``--no-fs``, refuses both under
``--deny-all``, and in its default mode asks again before each write (refused without
a terminal). ``--format json`` prints every JSON-RPC message both ways, one a line:
``Wire`` reads them.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from acp_server.messages import ANSWERED_AT_ONCE
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.processes import gone
from tests.support.scripted_task import (
    CALC,
    CREATE,
    DELETE,
    FINISH,
    FIX,
    FIXED,
    OLD,
    SUB_DONE,
    SUB_NOTE,
    UTIL,
)

CLIENTS = Path(__file__).parent / "clients"
ACPX = CLIENTS / "node_modules" / ".bin" / "acpx"
TASK = "Fix add."
TIMEOUT = 90  # seconds for one acpx run

COMMAND = Call("run_command", {"command": "python3 -c 'print(6*7)'", "timeout": None})
ASKED_TO_RUN = "Run `python3 -c 'print(6*7)'`?"
SCRIPT = (
    Turn("Fixing it.", [COMMAND]),
    Turn(tool_calls=[FIX, SUB_NOTE, CREATE, DELETE]),
    Turn(tool_calls=[FINISH]),
)
TITLES = [
    "surehand proposes (1 of 4): calc.py: add adds",
    "surehand proposes (2 of 4): calc.py: sub noted",
    "surehand proposes (3 of 4): create util.py",
    "surehand proposes (4 of 4): delete old.py",
]
BOTH = FIXED.replace("def sub(a, b):\n    return a - b\n", SUB_DONE)
BEFORE = {"calc.py": CALC.encode(), "old.py": OLD.encode()}
ALL_ACCEPTED = {"calc.py": BOTH.encode(), "util.py": UTIL.encode()}


def acpx() -> Path:
    """acpx as ``npm ci`` installs it in tests/acp/clients; CI must have it."""
    why = ""
    if shutil.which("node") is None or shutil.which("npm") is None:
        why = "acpx needs node and npm"
    elif not ACPX.exists():
        why = "acpx is not installed: run `npm ci` in tests/acp/clients"
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"acpx must be tested in CI: {why}")
        pytest.skip(why)
    return ACPX


def make_project(tmp_path: Path) -> Path:
    """A project with calc.py and old.py (``BEFORE``)."""
    root = tmp_path / "project"
    root.mkdir()
    for name, data in BEFORE.items():
        (root / name).write_bytes(data)
    return root


def on_disk(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def environment(tmp_path: Path) -> dict[str, str]:
    """acpx's and surehand's: a home of their own (acpx keeps its config and sessions there)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "OPENAI_API_KEY": "sk-test",
    }


def agent(server: ScriptedServer) -> str:
    """The agent command acpx spawns: this checkout's ``surehand acp``."""
    surehand = Path(sys.executable).with_name("surehand")
    argv = [str(surehand), "acp", "--base-url", server.base_url, "--model", server.model]
    return shlex.join([*argv, "--log-level", "INFO"])


def acpx_argv(project: Path, server: ScriptedServer, *flags: str) -> list[str]:
    where = ["--agent", agent(server), "--cwd", str(project), "--timeout", str(TIMEOUT)]
    return [str(acpx()), *where, *flags, "exec", TASK]


@dataclass
class Wire:
    """acpx's ``--format json`` output: the JSON-RPC messages both ways, in order."""

    messages: list[dict[str, Any]]

    @classmethod
    def parse(cls, out: str) -> Wire:
        return cls([json.loads(line) for line in out.splitlines() if line.strip()])

    def asked(self, method: str) -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
        """Each request of ``method``: (its place, its params, its response).

        Both sides number their requests from 0, so a response goes with the latest
        request of its id still open: the agent's requests are answered before the
        prompt that they belong to.
        """
        open_: dict[Any, list[int]] = {}
        replies: dict[int, dict[str, Any]] = {}
        for index, message in enumerate(self.messages):
            if "method" in message and "id" in message:
                open_.setdefault(message["id"], []).append(index)
            elif "method" not in message and open_.get(message.get("id")):
                replies[open_[message["id"]].pop()] = message
        return [
            (index, message["params"], replies.get(index, {}))
            for index, message in enumerate(self.messages)
            if message.get("method") == method and "id" in message
        ]

    def updates(self) -> list[dict[str, Any]]:
        return [m["params"]["update"] for m in self.messages if m.get("method") == "session/update"]

    def said(self) -> str:
        return "".join(
            u["content"]["text"]
            for u in self.updates()
            if u["sessionUpdate"] == "agent_message_chunk"
        )

    def tool_texts(self, call_id: str) -> str:
        """The text contents the agent sent with tool call ``call_id``."""
        return "\n".join(
            c["content"]["text"]
            for u in self.updates()
            if u.get("toolCallId") == call_id
            for c in u.get("content") or []
            if c.get("type") == "content"
        )

    def answers(self) -> list[tuple[str, str]]:
        """Each permission request: (its tool call's title, the kind of the option chosen,
        or the outcome when none was)."""
        return [
            (params["toolCall"]["title"], _chosen(params, reply))
            for _, params, reply in self.asked("session/request_permission")
        ]

    def prompt_reply(self) -> dict[str, Any]:
        (_, _, reply), *_ = self.asked("session/prompt")
        return reply


def _chosen(params: dict[str, Any], reply: dict[str, Any]) -> str:
    outcome = reply.get("result", {}).get("outcome", {})
    kinds = {option["optionId"]: option["kind"] for option in params["options"]}
    if "optionId" in outcome:
        return kinds.get(outcome["optionId"], f"not an option: {outcome['optionId']}")
    return outcome.get("outcome") or f"no answer: {reply}"


def at_once(accepted: str) -> str:
    """surehand's words when all four hunks were answered at once."""
    return ANSWERED_AT_ONCE.format(quick=len(TITLES), asked=len(TITLES), accepted=accepted)


@dataclass
class Ran:
    status: int
    out: str
    err: str

    @property
    def wire(self) -> Wire:
        return Wire.parse(self.out)

    def __str__(self) -> str:
        return f"acpx exited with {self.status}\nstdout:\n{self.out}\nstderr:\n{self.err}"


def run_acpx(project: Path, server: ScriptedServer, tmp_path: Path, *flags: str) -> Ran:
    """acpx without a terminal, ``--format json`` (``--verbose``: surehand's log on stderr)."""
    done = subprocess.run(
        acpx_argv(project, server, "--format", "json", "--verbose", *flags),
        check=False,
        env=environment(tmp_path),
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT + 30,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def no_surehand_left(server: ScriptedServer) -> bool:
    """Whether every ``surehand acp`` started for ``server`` has exited."""
    return gone(server.base_url, wait=10)
