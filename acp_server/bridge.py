"""Two event loops: the connection's, and the agent core's in a thread of its own.

The core reads files synchronously (``agent.staging.workspace.TextSource``), and
for an ACP client a read is a request to the editor (``fs/read_text_file``)
that must be answered while the reader waits. So each task runs on a
worker loop in its own thread, and everything it sends to the client goes
through one ``Outbox`` on the connection's loop, in the order it was sent:
a tool call is on the client's screen before the permission request about
it, and a read blocks only the worker.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
Call = tuple[Callable[[], Awaitable[Any]], "concurrent.futures.Future[Any]"]
READ_TIMEOUT = 30.0  # seconds a read through the editor may take before the disk is used


class Outbox:
    """Calls to the client, made one after the other on the connection's loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._queue: asyncio.Queue[
            tuple[Callable[[], Awaitable[Any]], concurrent.futures.Future[Any]]
        ]
        self._queue = asyncio.Queue()
        self._sender = loop.create_task(self._send())

    def call(self, make: Callable[[], Awaitable[T]]) -> concurrent.futures.Future[T]:
        """Queue ``make()`` (from any thread); the future of its result."""
        done: concurrent.futures.Future[T] = concurrent.futures.Future()
        self.loop.call_soon_threadsafe(self._queue.put_nowait, (make, done))
        return done

    async def ask(self, make: Callable[[], Awaitable[T]]) -> T:
        """``call`` from a coroutine of the worker loop, awaited there."""
        return await asyncio.wrap_future(self.call(make))

    def close(self) -> None:
        self._sender.cancel()

    async def _send(self) -> None:
        while True:
            make, done = await self._queue.get()
            if done.cancelled():
                continue
            try:
                result = await make()
            except Exception as error:  # the client's error, for the caller to read
                if not done.cancelled():
                    done.set_exception(error)
                continue
            if not done.cancelled():
                done.set_result(result)


class Worker:
    """A thread with an event loop of its own, where the agent core runs."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, work: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Start ``work`` on the worker loop; cancelling the future cancels it."""
        return asyncio.run_coroutine_threadsafe(work, self.loop)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
