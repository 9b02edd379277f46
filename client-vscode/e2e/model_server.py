"""The models for the end-to-end test: scripted OpenAI-compatible servers.

Serves two of the repository's ``ScriptedServer`` (tests/support/openai_server.py):

- ``a``, which wants the API key given as the first argument, with two
  tasks' scripts: a multi-file proposal (two edits of ``calc.py``, each with
  its own description; ``util.py`` renamed to ``helpers.py`` with a change
  of its first line; a new ``notes.md``), then the project's tests
  (``python3 -m unittest``: the halving edit fails one), then ``finish``;
  and a task whose model request hangs (the test kills the language server
  meanwhile);
- ``b``, another endpoint, which takes any key: a command that needs
  approval (``rm -rf build``), then ``finish``; then a spoofing task: an
  edit of ``add`` whose description and added line carry ``ESC[2K ESC[1G``
  and U+202E, an honest edit of ``halve``, a new file whose content carries
  them, and a command carrying the same characters (all to be shown
  escaped), then ``finish`` with a summary carrying them too.

Both answer ``GET /v1/models`` (``a`` only with its key, 401 without):
``a`` lists ``LISTED_A``, the scripted model among others, so that the setup
has a real choice to make; ``b`` lists the scripted model alone. A request
for a model not scripted gets a 404 ``model_not_found``, using no reply.

Also a closed port (``closed``), for an unreachable endpoint. Prints one
JSON line ``{"a": url, "b": url, "closed": url, "model", "listed_a"}`` when
it listens; when its standard input closes, prints a JSON report of what
each received and exits.

Usage: python model_server.py API_KEY
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support import openai_server
from tests.support.openai_server import Call, Hang, ScriptedServer, Turn
from tests.support.scripted_task import FIX, edit

MODEL = "e2e-scripted"
LISTED_A = ["e2e-other", MODEL, "e2e-third"]
FLOOR_HALVE = edit("    return x / 2\n", "    return x // 2\n", "halve floors")
RENAME = Call(
    "apply_patch",
    {
        "patch": (
            "*** Begin Patch\n*** Update File: util.py\n*** Move to: helpers.py\n@@\n"
            "-def shout(s):\n+def shout(s: str) -> str:\n     return s.upper()\n*** End Patch"
        ),
        "description": "move the string helpers next to calc and give shout its types",
    },
)
NOTES = Call(
    "create_file",
    {"path": "notes.md", "content": "# Notes\n\nadd adds.\n", "description": "notes"},
)
# The workspace's tests_calc.py: after the edits above, test_add passes and test_halve fails.
RUN_TESTS = Call("run_command", {"command": "python3 -m unittest", "timeout": None})
FINISH = Call("finish", {"summary": "add adds; halve floors; helpers moved."})
SCRIPT_A = [
    Turn(tool_calls=[FIX, FLOOR_HALVE, RENAME, NOTES, RUN_TESTS]),
    Turn(tool_calls=[FINISH]),
    Hang(seconds=60),  # the second task: the server is killed while it waits
]
RM = Call("run_command", {"command": "rm -rf build", "timeout": None})
ERASE = "\x1b[2K\x1b[1G"  # erase the line, back to column 1
RLO = "\u202e"  # right-to-left override
SPOOF_EDIT = edit(
    "def add(a, b):\n    return a + b\n",
    f"def add(a, b):\n    __import__('os').system('id')  # {ERASE}+    return a + b\n",
    f"keep add{ERASE} {RLO}safe",
)
HONEST_EDIT = edit("    return x / 2\n", "    return x // 2\n", "halve floors")
SPOOF_FILE = Call(
    "create_file",
    {"path": "spoof.md", "content": f"ok{ERASE}fine {RLO}evil\n", "description": "spoof notes"},
)
SPOOF_COMMAND = Call("run_command", {"command": f"touch pwned {ERASE}pytest -q", "timeout": None})
SCRIPT_B = [
    Turn(tool_calls=[RM]),
    Turn(tool_calls=[Call("finish", {"summary": "Left build alone."})]),
    Turn(tool_calls=[SPOOF_EDIT, HONEST_EDIT, SPOOF_FILE, SPOOF_COMMAND]),
    Turn(tool_calls=[Call("finish", {"summary": f"done{ERASE} {RLO}ok"})]),
]


class ListingServer(ScriptedServer):
    """A scripted server whose ``GET /v1/models`` lists ``listed``."""

    def __init__(self, *args: Any, listed: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.listed = listed


_served_get = openai_server._Handler.do_GET


def _do_get(handler: Any) -> None:
    """``GET /v1/models`` of a ``ListingServer``: its list, behind its key like the rest."""
    owner = handler.server.owner
    if not isinstance(owner, ListingServer) or handler.path.rstrip("/") != "/v1/models":
        _served_get(handler)
        return
    owner._record(openai_server.Request("GET", handler.path, handler._headers(), None))
    if handler._authorized():
        data = [{"id": m, "object": "model", "owned_by": "e2e"} for m in owner.listed]
        handler._json(200, {"object": "list", "data": data})


openai_server._Handler.do_GET = _do_get  # type: ignore[method-assign]


def report(server: ScriptedServer, secret: str) -> dict[str, object]:
    completions = server.completions
    keys = [r.headers.get("authorization") for r in server.requests]
    listings = [r for r in server.requests if r.path.rstrip("/") == "/v1/models"]
    return {
        "requests": len(server.requests),
        "completions": len(completions),
        "models_asked": len(listings),
        "models_keys": [r.headers.get("authorization") == f"Bearer {secret}" for r in listings],
        "wrong_model": sum(1 for r in completions if _model(r.body) != server.model),
        "pending": server.pending,
        "overruns": server.overruns,
        "authorized": bool(completions)
        and all(r.headers.get("authorization") == f"Bearer {secret}" for r in completions),
        "saw_secret": any(k == f"Bearer {secret}" for k in keys),
        "first_user_message": _first_user_message(completions[0].body) if completions else None,
    }


def _model(body: object) -> object:
    return body.get("model") if isinstance(body, dict) else None


def _first_user_message(body: object) -> str | None:
    messages = body.get("messages", []) if isinstance(body, dict) else []
    for message in messages:
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return None


def _closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def main() -> None:
    api_key = sys.argv[1]
    a = ListingServer(MODEL, SCRIPT_A, api_key=api_key, listed=LISTED_A)
    b = ScriptedServer(MODEL, SCRIPT_B)
    with a, b:
        info = {
            "a": a.base_url,
            "b": b.base_url,
            "closed": _closed_url(),
            "model": MODEL,
            "listed_a": LISTED_A,
        }
        print(json.dumps(info), flush=True)
        sys.stdin.read()  # until the test closes it
        print(json.dumps({"a": report(a, api_key), "b": report(b, api_key)}), flush=True)


if __name__ == "__main__":
    main()
