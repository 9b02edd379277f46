"""What sending a long conversation costs: a model request beside posting its JSON.

A conversation of ``--sizes`` messages (tasks of a request, a call, its
output and an answer, the shape a long editor session keeps within
``contextBudget``) is sent to the scripted server, which answers each with
one short streamed turn. Timed per request, median of ``--repeat``, one
client kept (as a session keeps it):

- ``post JSON`` (the baseline): the request's body, ``json.dumps`` of the
  payload, posted with the HTTP client the openai package uses, its answer
  read line by line up to ``data: [DONE]``;
- ``complete()``: ``OpenAIClient.complete``, the same request and answer;
- ``sdk create``: the openai package's ``create`` given the messages as its
  typed argument (it walks every message against its types first: what
  ``complete()`` did before it sent them as they are).

Each request is checked before it is timed: the server received every
message as sent. After the table, the growth per 10x messages.

Run: ``.venv/bin/python tests/bench/request_bench.py [--repeat N] [--sizes 10,100,1000]``
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import openai

from agent.config.settings import Settings
from agent.conversation import Message, ToolCall
from agent.models.openai_client import OpenAIClient, _payload
from tests.bench.harness import expect, parser, rounds_median_ns, run
from tests.support.openai_server import ScriptedServer, Turn

DEFAULT_REPEAT = 7
DEFAULT_SIZES = "10,100,1000"


def conversation(size: int) -> list[Message]:
    """``size`` messages: a system prompt, then tasks of four messages each."""
    messages = [Message("system", "You are a careful coding agent. " * 40)]
    task = 0
    while len(messages) < size:
        call = ToolCall(f"call_{task}", "view_file", json.dumps({"path": f"src/m{task}.py"}))
        messages += [
            Message("user", f"Task {task}: fix the bug in src/m{task}.py."),
            Message("assistant", "", (call,)),
            Message("tool", "\n".join(f"{i}: x = {i}" for i in range(30)), tool_call_id=call.id),
            Message("assistant", f"Fixed src/m{task}.py."),
        ]
        task += 1
    return messages[:size]


def measure(sizes: list[int], repeat: int) -> list[tuple[int, float, float, float]]:
    rows = []
    with ScriptedServer("bench") as server:
        settings = Settings(model="bench", base_url=server.base_url)
        url = f"{server.base_url.rstrip('/')}/chat/completions"

        async def timed(size: int) -> tuple[float, float, float]:
            messages = conversation(size)
            payload = [_payload(m) for m in messages]
            body: dict[str, Any] = {"model": "bench", "messages": payload, "stream": True}
            client = OpenAIClient(settings)
            sdk = openai.AsyncOpenAI(api_key="k", base_url=server.base_url, max_retries=0)
            http = openai.DefaultAsyncHttpxClient()

            async def post() -> None:
                server.add(Turn("ok"))
                headers = {"content-type": "application/json"}
                content = json.dumps(body).encode()
                request = http.stream("POST", url, content=content, headers=headers)
                async with request as response:
                    expect(response.status_code == 200, f"post: {response.status_code}")
                    async for line in response.aiter_lines():
                        if line == "data: [DONE]":  # where the SDK stops reading too
                            break

            async def complete() -> None:
                server.add(Turn("ok"))
                turn = await client.complete(messages, [], None)
                expect(turn.content == "ok", f"complete(): {turn.content!r}")

            async def create() -> None:
                server.add(Turn("ok"))
                stream: Any = await sdk.chat.completions.create(**body)
                async for _ in stream:
                    pass

            for call in (post, complete, create):
                await call()
                sent = server.completions[-1].body["messages"]
                expect(sent == payload, f"{call.__name__}: the server got other messages")
            loop = asyncio.get_running_loop()
            sync = lambda call: lambda: asyncio.run_coroutine_threadsafe(call(), loop).result()  # noqa: E731
            pairs = [(sync(complete), sync(post)), (sync(create), sync(post))]
            times = await asyncio.to_thread(rounds_median_ns, pairs, [repeat, repeat])
            await client.close()
            await sdk.close()
            await http.aclose()
            (ours, base), (theirs, _) = times
            return base / 1e6, ours / 1e6, theirs / 1e6

        for size in sizes:
            base, ours, theirs = asyncio.run(timed(size))
            rows.append((size, base, ours, theirs))
    return rows


def main(argv: list[str] | None = None) -> int:
    options = parser(__doc__, DEFAULT_REPEAT, "timed requests per figure")
    options.add_argument("--sizes", default=DEFAULT_SIZES, help="messages per conversation")
    args = options.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]

    def body() -> None:
        rows = measure(sizes, args.repeat)
        print(f"\none request and its short answer, median of {args.repeat}, ms")
        print(f"{'messages':>9}{'post JSON':>12}{'complete()':>18}{'sdk create':>18}")
        for size, base, ours, theirs in rows:
            print(
                f"{size:>9}{base:>12.1f}{ours:>11.1f} {ours / base:>5.2f}x"
                f"{theirs:>11.1f} {theirs / base:>5.2f}x"
            )
        print("\ngrowth per 10x messages")
        for (a, *fa), (b, *fb) in itertools.pairwise(rows):
            step = math.log10(b / a)
            cells = [f"x{(y / x) ** (1 / step):.1f}" for x, y in zip(fa, fb, strict=True)]
            print(f"{a:>6} -> {b:<6}" + "".join(f"{c:>14}" for c in cells))

    return run(body)


if __name__ == "__main__":
    sys.exit(main())
