"""Running the model's commands in the shadow copy (parsed by ``command_line``).

``ShadowRunner`` syncs the overlay into the shadow copy (``ShadowCopy``,
or, in a sandbox that can mount one, ``ShadowOverlay``: an overlay of the
workspace where only the staged texts are written), then runs the
command at the copy's root (always: there is no ``cd``) in the sandbox
(``agent.execution.sandbox``), without stdin, with stdout and stderr merged, with an
environment built from an allowlist (``agent.execution.command_env``), in a process
group of its own so a timeout kills everything it started. An executable
that cannot be started is an ordinary result (exit code 127 or 126, as a
shell would give), so the model reads it like any failure.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections import deque
from collections.abc import Mapping
from pathlib import Path

from agent import messages
from agent.config.settings import CEILINGS, Settings
from agent.execution.command_env import command_environment
from agent.execution.command_layout import command_layout
from agent.execution.command_result import CommandResult
from agent.execution.sandbox import Layout, Sandbox, choose
from agent.execution.shadow import ShadowCopy, SyncReport
from agent.execution.shadow_overlay import OverlayUnavailable, ShadowOverlay
from agent.staging.workspace import Overlay, ToolError

Shadow = ShadowCopy | ShadowOverlay
HEAD_SHARE = 0.4  # of the output kept at its start when it is cut; the rest is its end
READ_GRACE = 1.0  # seconds to collect the last output once the process is gone
# The most output a command may keep, whatever it is asked to keep.
MAX_OUTPUT_CHARS = int(CEILINGS["output_max_chars"])


class CopyFailed(ToolError):
    reason = "copy_failed"


class OutputBuffer:
    """The start and end of a command's output, in bounded memory however much it prints.

    The start is filled once; the end is a queue of the pieces read, the
    oldest dropped as soon as the rest hold the end's share. Each piece is
    kept or dropped whole, never copied again, so reading costs time in
    proportion to the output and memory in proportion to the cap (at most
    the cap's end share twice over, a piece larger than that is cut as it
    comes). The cap is held to ``MAX_OUTPUT_CHARS``.
    """

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars = max(0, min(max_chars, MAX_OUTPUT_CHARS))
        self.head_chars = int(max_chars * HEAD_SHARE)
        self.tail_chars = max_chars - self.head_chars
        self._head: list[str] = []  # the first head_chars characters
        self._head_size = 0
        self._tail: deque[str] = deque()  # what came after them, its end at least tail_chars
        self._tail_size = 0
        self.total = 0

    def add(self, text: str) -> None:
        self.total += len(text)
        if self._head_size < self.head_chars:
            room = self.head_chars - self._head_size
            piece, text = text[:room], text[room:]
            self._head.append(piece)
            self._head_size += len(piece)
        if not text or not self.tail_chars:
            return
        if len(text) >= self.tail_chars:  # this piece alone is the whole end
            self._tail.clear()
            self._tail_size = 0
            text = text[-self.tail_chars :]
        self._tail.append(text)
        self._tail_size += len(text)
        while self._tail_size - len(self._tail[0]) >= self.tail_chars:
            self._tail_size -= len(self._tail.popleft())

    def text(self) -> str:
        head = "".join(self._head)
        if self.total <= self.max_chars:
            return head + "".join(self._tail)
        end = "".join(self._tail)[-self.tail_chars :] if self.tail_chars else ""
        cut = self.total - self.head_chars - self.tail_chars
        return f"{head}\n[... {cut} characters cut ...]\n{end}"


class ShadowRunner:
    """The ``CommandRunner`` of a session: commands run in a shadow copy of its overlay.

    The copy is made on the first command (``shadow`` may be given) and
    removed by ``close``; commands run one at a time, in the sandbox that
    the ``sandbox`` setting chooses (or the one given). Setting up and
    syncing run in a thread, shielded: a command cancelled meanwhile leaves
    the sync to finish, and the next command waits for it, so syncs never
    overlap and the copy is not lost half made.
    """

    def __init__(
        self, overlay: Overlay, shadow: Shadow | None = None, sandbox: Sandbox | None = None
    ) -> None:
        self.overlay = overlay
        self.shadow = shadow
        self._sandbox = sandbox
        self._no_overlay = False  # this workspace could not be mounted as one: the copy
        self._lock = asyncio.Lock()
        self._syncing: asyncio.Future[SyncReport] | None = None

    def sandbox(self, settings: Settings) -> Sandbox:
        return self._sandbox or choose(settings.sandbox)

    async def run(
        self,
        argv: list[str],
        timeout: float,
        settings: Settings,
        texts: Mapping[str, str | None] | None = None,
    ) -> CommandResult:
        """Run ``argv`` in the copy synced to the overlay, or to ``texts`` over the disk."""
        sandbox = self.sandbox(settings)
        async with self._lock:
            if self._syncing is not None and not self._syncing.done():
                await asyncio.wait([self._syncing])  # a cancelled command's sync
            if texts is None:
                texts = self.overlay.overlaid()  # read here: the editor changes it on this thread
            self._syncing = asyncio.ensure_future(asyncio.to_thread(self._sync, texts, sandbox))
            try:
                report = await asyncio.shield(self._syncing)
            except OSError as error:
                raise CopyFailed(messages.COPY_FAILED.format(error=error)) from None
            shadow = self.shadow
            assert shadow is not None
            layout = command_layout(shadow, settings, contained=sandbox.contained)
            env = self.environment(layout, settings, contained=sandbox.contained)
            stopped = True
            try:
                result = await run_process(
                    sandbox.wrap(argv, layout), layout.root, env, timeout, settings.output_max_chars
                )
                stopped = result.exit_code is None
            finally:
                if self.shadow is shadow:  # not closed meanwhile (the server is exiting)
                    shadow.command_ended(contained=sandbox.contained, stopped=stopped)
        result = _not_started(sandbox, argv, result)
        if not report.refused:
            return result
        note = (
            f"[not in the copy: {', '.join(sorted(report.refused))}: staged inside a folder "
            "that is linked to the real one (or outside the workspace)]\n"
        )
        return CommandResult(result.argv, result.exit_code, note + result.output, result.seconds)

    def environment(self, layout: Layout, settings: Settings, *, contained: bool) -> dict[str, str]:
        """The command's environment: an allowlist of variables, never the key's."""
        extra = set(settings.command_environment) - {settings.api_key_env}
        return command_environment(
            os.environ,
            workspace=self.overlay.root,
            root=layout.root,
            home=layout.home,
            tmp="/tmp" if contained else tempfile.gettempdir(),
            extra=extra,
        )

    def _sync(self, texts: Mapping[str, str | None], sandbox: Sandbox) -> SyncReport:
        contained = sandbox.contained
        mounter = sandbox.overlay if contained and not self._no_overlay else None
        kind = "overlay" if mounter is not None else "copy"
        if self.shadow is not None and (
            self.shadow.mount_points != contained or self.shadow.kind != kind
        ):
            self.shadow.close()  # the sandbox setting changed: links become mounts, or back
            self.shadow = None
        if self.shadow is None and mounter is not None:
            try:
                self.shadow = ShadowOverlay(self.overlay.root, mounter, texts)
                return self.shadow.setup
            except OverlayUnavailable:
                self._no_overlay = True  # e.g. a workspace on a file system overlayfs refuses
        if self.shadow is None:
            self.shadow = ShadowCopy.open(self.overlay.root, texts, mount_points=contained)
            return self.shadow.setup
        return self.shadow.write(texts)

    def close(self) -> None:
        """Remove the copy (when a sync for a cancelled command is done, if one runs).

        A copy (not an overlay) is kept for the next session of this workspace
        in this process (``ShadowCopy.open``): copying a big tree again costs
        seconds, bringing the copy up to date about one ``git status``.
        """
        if self._syncing is not None and not self._syncing.done():
            self._syncing.add_done_callback(lambda _: self.close())
            return
        if isinstance(self.shadow, ShadowCopy):
            self.shadow.close(keep=True)
        elif self.shadow is not None:
            self.shadow.close()
        self.shadow = None


def _not_started(sandbox: Sandbox, argv: list[str], result: CommandResult) -> CommandResult:
    """The result as the model should read it: the original argv, and a missing program as 127."""
    why = sandbox.not_started(result.exit_code, result.output)
    if why is None:
        return CommandResult(argv, result.exit_code, result.output, result.seconds)
    if why.startswith("bwrap: execvp "):  # as run_process words a failed start
        error = why.rpartition(": ")[2]
        if error == "No such file or directory":
            message = f"{argv[0]}: command not found (it is not installed, or not on PATH)."
            return CommandResult(argv, 127, message, result.seconds)
        return CommandResult(argv, 126, f"{argv[0]}: cannot be run ({error}).", result.seconds)
    message = f"The sandbox could not start the command: {why}"
    return CommandResult(argv, 126, message, result.seconds)


async def run_process(
    argv: list[str], cwd: Path, env: Mapping[str, str], timeout: float, max_chars: int
) -> CommandResult:
    """Run ``argv`` in ``cwd``; at ``timeout`` (or cancellation) its process group is killed.

    When the process ends, what it left running in its group is killed too,
    and its output is collected for at most ``READ_GRACE`` more seconds (a
    process that left the group may hold the pipe open).
    """
    began = time.monotonic()
    loop = asyncio.get_running_loop()
    collector = _Collector(OutputBuffer(max_chars), loop)
    try:
        transport, _ = await loop.subprocess_exec(
            lambda: collector,
            *argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except FileNotFoundError:
        message = f"{argv[0]}: command not found (it is not installed, or not on PATH)."
        return CommandResult(argv, 127, message, time.monotonic() - began)
    except OSError as error:  # not executable, a folder, not a program
        message = f"{argv[0]}: cannot be run ({error.strerror or error})."
        return CommandResult(argv, 126, message, time.monotonic() - began)
    _running.add(transport)
    try:
        return await _finish(argv, transport, collector, timeout, began)
    finally:
        _running.discard(transport)


# Commands running now, so that a server that exits at once can stop them
# before its event loop closes (a transport closed after that prints a
# traceback when it is collected).
_running: set[asyncio.SubprocessTransport] = set()


def stop_all() -> None:
    """Kill every running command's process group and close its pipes, now."""
    for transport in list(_running):
        _kill_group(transport.get_pid())
        transport.close()
    _running.clear()


async def _finish(
    argv: list[str],
    transport: asyncio.SubprocessTransport,
    collector: _Collector,
    timeout: float,
    began: float,
) -> CommandResult:
    exit_code: int | None = None
    try:
        await asyncio.wait_for(asyncio.shield(collector.exited), timeout)
        exit_code = transport.get_returncode()
    except TimeoutError:
        pass
    except BaseException:  # cancelled: stop everything, and let it be reaped
        _kill_group(transport.get_pid())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(collector.exited), READ_GRACE)
        transport.close()
        raise
    _kill_group(transport.get_pid())
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(collector.closed), READ_GRACE)
    transport.close()
    return CommandResult(argv, exit_code, collector.buffer.text(), time.monotonic() - began)


class _Collector(asyncio.SubprocessProtocol):
    """Gathers the output and says when the process exited and when its pipe closed.

    (``asyncio.subprocess.Process.wait`` also waits for the pipe, which a
    process left running can hold open.)
    """

    def __init__(self, buffer: OutputBuffer, loop: asyncio.AbstractEventLoop) -> None:
        self.buffer = buffer
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.buffer.add(self.decoder.decode(data))

    def process_exited(self) -> None:
        self.exited.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self.buffer.add(self.decoder.decode(b"", final=True))
        self.closed.set_result(None)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
