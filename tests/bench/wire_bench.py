"""What reading an answer costs: the client's turn assembly beside the bare SDK stream.

A long streamed answer (a ``create_file`` call whose arguments arrive in
many small pieces, with reasoning before it) is served by the scripted
server from one recorded body. Timed per answer, median of ``--repeat``:

- ``sdk stream``: the bare ``openai`` stream iterated to the end, nothing
  assembled (the baseline: HTTP, SSE decoding and the SDK's chunk objects);
- ``complete()``: ``OpenAIClient.complete``, the same stream read into a
  ``ModelTurn`` (chunks as dicts, calls keyed, text and thinking split);
- ``builder only``: ``TurnBuilder`` fed the already-parsed chunks, no HTTP.

Each result is checked (the call and its arguments as sent) before it is
timed.

Run: ``.venv/bin/python tests/bench/wire_bench.py [--repeat N] [--pieces N]``
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import openai

from agent.config.settings import Settings
from agent.models.model import ToolSpec
from agent.models.openai_client import OpenAIClient
from agent.models.turn_builder import TurnBuilder
from tests.bench.harness import expect, median_ns, parser, positive, run
from tests.support.openai_server import Recorded, ScriptedServer

DEFAULT_REPEAT = 7
CREATE = ToolSpec("create_file", "Create a file.", {"type": "object", "properties": {}})


def answer_chunks(pieces: int) -> tuple[list[dict], str]:
    """A streamed answer: reasoning, then create_file with its arguments in ``pieces`` parts."""
    content = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(pieces // 4 + 1))
    arguments = json.dumps({"path": "big.py", "content": content, "description": "big"})
    size = max(1, len(arguments) // pieces)

    def chunk(delta: dict, finish: str | None = None) -> dict:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "c", "object": "chat.completion.chunk", "model": "bench", "choices": [choice]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"reasoning_content": f"step {i} of the plan. "}) for i in range(pieces // 10)]
    first = {"index": 0, "id": "call_1", "type": "function"}
    chunks.append(chunk({"tool_calls": [{**first, "function": {"name": "create_file"}}]}))
    for start in range(0, len(arguments), size):
        piece = arguments[start : start + size]
        chunks.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
    chunks.append(chunk({}, "tool_calls"))
    chunks.append(
        {**chunks[0], "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 9}}
    )
    return chunks, arguments


def sse_body(chunks: list[dict]) -> bytes:
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def main(argv: list[str] | None = None) -> int:
    options = parser(__doc__, DEFAULT_REPEAT, "timed answers per figure")
    options.add_argument("--pieces", type=positive, default=4000, help="argument pieces")
    args = options.parse_args(argv)
    chunks, arguments = answer_chunks(args.pieces)
    body = sse_body(chunks)

    def measure() -> None:
        with ScriptedServer("bench") as server:
            settings = Settings(model="bench", base_url=server.base_url)

            async def sdk_stream() -> int:
                sdk = openai.AsyncOpenAI(api_key="k", base_url=server.base_url, max_retries=0)
                server.add(Recorded(body))
                stream = await sdk.chat.completions.create(model="bench", messages=[], stream=True)
                count = sum([1 async for _ in stream])
                await sdk.close()
                return count

            async def client_complete() -> str:
                client = OpenAIClient(settings)
                server.add(Recorded(body))
                turn = await client.complete([], [CREATE], None)
                await client.close()
                return turn.tool_calls[0].arguments

            def builder_only() -> str:
                builder = TurnBuilder({"create_file"})
                for data in chunks:
                    builder.chunk(data)
                return builder.turn().tool_calls[0].arguments

            expect(asyncio.run(sdk_stream()) == len(chunks), "the SDK saw another number of chunks")
            expect(
                asyncio.run(client_complete()) == arguments, "complete() assembled other arguments"
            )
            expect(builder_only() == arguments, "the builder assembled other arguments")
            sdk_ms = median_ns(lambda: asyncio.run(sdk_stream()), args.repeat) / 1e6
            client_ms = median_ns(lambda: asyncio.run(client_complete()), args.repeat) / 1e6
            builder_ms = median_ns(builder_only, args.repeat) / 1e6

        print(
            f"\none answer: {len(chunks)} chunks, {len(body) / 1000:.0f} kB on the wire, "
            f"{len(arguments) / 1000:.0f} kB of arguments; median of {args.repeat}, ms"
        )
        print(f"{'sdk stream (baseline)':<24}{sdk_ms:>10.1f}")
        print(f"{'complete()':<24}{client_ms:>10.1f}{client_ms / sdk_ms:>8.2f}x")
        print(f"{'builder only':<24}{builder_ms:>10.1f}{builder_ms / sdk_ms:>8.2f}x")
        print(f"{'builder per chunk':<24}{builder_ms / len(chunks) * 1000:>10.1f} µs")

    return run(measure)


if __name__ == "__main__":
    sys.exit(main())
