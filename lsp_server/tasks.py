"""Running asks, and stopping them however the editor asks.

pygls does not stop a running ``workspace/executeCommand`` when the client
cancels it, so every ask is registered here with the ids it can be stopped
by: its work-done progress token (the Cancel button), the JSON-RPC id of its
request (``$/cancelRequest``) and ``surehand.cancel``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field


@dataclass
class Running:
    task: asyncio.Task[object]
    token: str | None = None
    request_id: object = None


@dataclass
class TaskRegistry:
    _running: list[Running] = field(default_factory=list)

    def add(self, task: asyncio.Task[object], *, token: str | None, request_id: object) -> None:
        entry = Running(task, token, request_id)
        self._running.append(entry)
        task.add_done_callback(lambda _: self._running.remove(entry))

    def cancel_token(self, token: object) -> bool:
        return self._cancel([r for r in self._running if r.token == token])

    def cancel_request(self, request_id: object) -> bool:
        return self._cancel(
            [r for r in self._running if r.request_id is not None and r.request_id == request_id]
        )

    def cancel_all(self) -> bool:
        return self._cancel(list(self._running))

    async def stop_all(self, timeout: float = 5.0) -> None:
        """Cancel every ask and wait (up to ``timeout``) until they have unwound."""
        tasks = [entry.task for entry in self._running]
        self.cancel_all()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    @property
    def busy(self) -> bool:
        return bool(self._running)

    @staticmethod
    def _cancel(entries: list[Running]) -> bool:
        for entry in entries:
            entry.task.cancel()
        return bool(entries)
