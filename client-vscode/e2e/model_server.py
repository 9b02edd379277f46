"""The model for the end-to-end test: a scripted OpenAI-compatible server.

Serves the repository's ``ScriptedServer`` (tests/support/openai_server.py)
with one task's script: two ``edit`` calls on ``calc.py`` in one turn (two
hunks, each with its own description: ``FIX`` of tests/support/scripted_task.py
for ``add``, and one for ``halve``), then ``finish``. Prints one JSON line
``{"base_url", "model"}`` when it listens; when its standard input closes,
prints a JSON report of what it received and exits.

Usage: python model_server.py API_KEY
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import FIX, edit

MODEL = "e2e-scripted"
FLOOR_HALVE = edit("    return x / 2\n", "    return x // 2\n", "halve floors")
FINISH = Call("finish", {"summary": "add adds; halve floors."})
SCRIPT = [Turn(tool_calls=[FIX, FLOOR_HALVE]), Turn(tool_calls=[FINISH])]


def report(server: ScriptedServer) -> dict[str, object]:
    completions = server.completions
    return {
        "requests": len(server.requests),
        "completions": len(completions),
        "pending": server.pending,
        "overruns": server.overruns,
        "authorized": all(
            r.headers.get("authorization") == f"Bearer {server.api_key}" for r in completions
        ),
        "first_user_message": _first_user_message(completions[0].body) if completions else None,
    }


def _first_user_message(body: object) -> str | None:
    messages = body.get("messages", []) if isinstance(body, dict) else []
    for message in messages:
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return None


def main() -> None:
    api_key = sys.argv[1]
    with ScriptedServer(MODEL, SCRIPT, api_key=api_key) as server:
        print(json.dumps({"base_url": server.base_url, "model": MODEL}), flush=True)
        sys.stdin.read()  # until the test closes it
        print(json.dumps(report(server)), flush=True)


if __name__ == "__main__":
    main()
