"""Reading an answer line from stdin without a thread, so Ctrl-C can always cancel.

A thread blocked in ``input()`` cannot be stopped: the interpreter would wait
for it, or abort at exit holding stdin's lock. Instead the event loop
watches the descriptor and reads what is there; lines that come together
(piped answers) are kept for the next question.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import termios


class LineReader:
    def __init__(self, fd: int | None = None) -> None:
        self.fd = sys.stdin.fileno() if fd is None else fd
        self._buffer = b""
        self._eof = False

    async def line(self) -> str:
        """The next line without its newline; "" at the end of input."""
        while b"\n" not in self._buffer and not self._eof:
            await self._readable()
            data = os.read(self.fd, 4096)
            if data:
                self._buffer += data
            else:
                self._eof = True
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace")

    @property
    def ended(self) -> bool:
        """Whether the input has ended (Ctrl-D on a terminal) and every line was read."""
        return self._eof and not self._buffer

    def drop_typed_ahead(self) -> None:
        """Forget what was typed on a terminal before the question was asked: keys meant
        for something else must not answer it. Piped input is kept."""
        if not os.isatty(self.fd):
            return
        self._buffer = b""
        with contextlib.suppress(termios.error, OSError):
            termios.tcflush(self.fd, termios.TCIFLUSH)

    async def _readable(self) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(self.fd, wake)
        except (OSError, NotImplementedError):
            return  # a regular file (never blocks) or a loop that cannot watch it
        try:
            await ready
        finally:
            loop.remove_reader(self.fd)
