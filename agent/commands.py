"""Running the model's commands: parsed without a shell, in the shadow copy.

A command line is split like a shell would (``shlex``) but never given to
one: pipes, redirections and ``&&`` would not mean what the model expects,
so a token that is exactly such an operator is refused with a message to
run one command at a time; operators inside a token are plain text.

``ShadowRunner`` syncs the overlay into the shadow copy, then runs the
command at the copy's root (always: there is no ``cd``), without stdin,
with stdout and stderr merged, with the environment's secrets removed, in
a process group of its own so a timeout kills everything it started. An
executable that cannot be started is an ordinary result (exit code 127 or
126, as a shell would give), so the model reads it like any failure.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import fnmatch
import os
import re
import shlex
import signal
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .settings import Settings
from .shadow import ShadowCopy, SyncReport
from .tools.context import CommandResult
from .workspace import Overlay, ToolError

SHELL_OPERATORS = frozenset({"&&", "||", "|", ";", ">", ">>", "<", "&", "2>", "2>&1", "&>", "|&"})
SECRET_PATTERNS = ("*_KEY", "*_TOKEN", "*_SECRET", "*PASSWORD*", "*_API_KEY", "OPENAI_API_KEY")
HEAD_SHARE = 0.4  # of the output kept at its start when it is cut; the rest is its end
READ_GRACE = 1.0  # seconds to collect the last output once the process is gone


class BadCommand(ToolError):
    reason = "bad_command"


class CopyFailed(ToolError):
    reason = "copy_failed"


def parse_command(text: str) -> list[str]:
    """``text`` as an argv, or ``BadCommand`` saying how to write it."""
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise BadCommand(
            f"The command cannot be parsed ({error}): close every quote, "
            "or escape a lone quote with a backslash."
        ) from None
    if not argv:
        raise BadCommand("The command is empty: give a command line such as `pytest -x`.")
    operators = [token for token in argv if token in SHELL_OPERATORS]
    if operators:
        raise BadCommand(
            f"Commands run without a shell, so {operators[0]!r} does not work. Run one "
            "command at a time, without pipes or redirections; output and errors are "
            "both returned."
        )
    if argv[0] == "cd":
        raise BadCommand(
            "Commands always run at the workspace root, so cd does not work: give paths "
            "relative to the root instead."
        )
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", argv[0]):
        raise BadCommand(
            "Commands run without a shell, so a leading VAR=value does not set the "
            "environment: run the command alone."
        )
    return argv


def is_allowed(argv: Sequence[str], allowlist: Iterable[str]) -> bool:
    """Whether ``argv`` starts with the exact tokens of an allowlist entry.

    Exact tokens only: ``/usr/bin/pytest`` or ``python3`` does not match
    ``pytest`` or ``python``; the allowlist names each form it allows.
    """
    for entry in allowlist:
        tokens = shlex.split(entry)
        if tokens and list(argv[: len(tokens)]) == tokens:
            return True
    return False


def clean_environment(env: Mapping[str, str], also: Iterable[str] = ()) -> dict[str, str]:
    """``env`` without the variables that look like secrets, nor the names in ``also``."""
    drop = {name.upper() for name in also}
    return {
        name: value
        for name, value in env.items()
        if name.upper() not in drop
        and not any(fnmatch.fnmatchcase(name.upper(), p) for p in SECRET_PATTERNS)
    }


class OutputBuffer:
    """The start and end of a command's output, in bounded memory however much it prints."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.head_chars = int(max_chars * HEAD_SHARE)
        self.tail_chars = max_chars - self.head_chars
        self.start = ""  # the first max_chars characters
        self.end = ""  # the last tail_chars characters
        self.total = 0

    def add(self, text: str) -> None:
        if len(self.start) < self.max_chars:
            self.start += text[: self.max_chars - len(self.start)]
        self.end = (self.end + text)[-self.tail_chars :] if self.tail_chars else ""
        self.total += len(text)

    def text(self) -> str:
        if self.total <= self.max_chars:
            return self.start
        cut = self.total - self.head_chars - self.tail_chars
        return f"{self.start[: self.head_chars]}\n[... {cut} characters cut ...]\n{self.end}"


class ShadowRunner:
    """The ``CommandRunner`` of a session: commands run in a shadow copy of its overlay.

    The copy is made on the first command (``shadow`` may be given) and
    removed by ``close``; commands run one at a time. Setting up and syncing
    run in a thread, shielded: a command cancelled meanwhile leaves the sync
    to finish, and the next command waits for it, so syncs never overlap and
    the copy is not lost half made.
    """

    def __init__(self, overlay: Overlay, shadow: ShadowCopy | None = None) -> None:
        self.overlay = overlay
        self.shadow = shadow
        self._lock = asyncio.Lock()
        self._syncing: asyncio.Future[SyncReport] | None = None

    async def run(self, argv: list[str], timeout: float, settings: Settings) -> CommandResult:
        async with self._lock:
            if self._syncing is not None and not self._syncing.done():
                await asyncio.wait([self._syncing])  # a cancelled command's sync
            texts = self.overlay.overlaid()  # read here: the editor changes it on this thread
            self._syncing = asyncio.ensure_future(asyncio.to_thread(self._sync, texts))
            try:
                report = await asyncio.shield(self._syncing)
            except OSError as error:
                raise CopyFailed(
                    f"The workspace copy for commands could not be updated ({error}); "
                    "continue without running commands."
                ) from None
            assert self.shadow is not None
            env = self.environment(self.shadow.root, settings.api_key_env)
            result = await run_process(
                argv, self.shadow.root, env, timeout, settings.output_max_chars
            )
        if not report.refused:
            return result
        note = (
            f"[not in the copy: {', '.join(sorted(report.refused))}: staged inside a folder "
            "that is linked to the real one (or outside the workspace)]\n"
        )
        return CommandResult(result.argv, result.exit_code, note + result.output, result.seconds)

    def environment(self, root: Path, api_key_env: str) -> dict[str, str]:
        """The command's environment: no secrets, and the copy's packages first on ``sys.path``.

        ``PYTHONPATH`` puts the copy's root (and ``src/``) before an editable
        install of the project, which would import the user's files instead.
        """
        env = clean_environment(os.environ, also=[api_key_env])
        paths = [str(root), *([str(root / "src")] if (root / "src").is_dir() else [])]
        env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH")])])
        env["PWD"] = str(root)
        env["GIT_OPTIONAL_LOCKS"] = "0"  # git status must not rewrite the linked real index
        return env

    def _sync(self, texts: Mapping[str, str | None]) -> SyncReport:
        if self.shadow is None:
            self.shadow = ShadowCopy(self.overlay.root, texts)
            return self.shadow.setup
        return self.shadow.write(texts)

    def close(self) -> None:
        """Remove the copy (when a sync for a cancelled command is done, if one runs)."""
        if self._syncing is not None and not self._syncing.done():
            self._syncing.add_done_callback(lambda _: self.close())
            return
        if self.shadow is not None:
            self.shadow.close()
            self.shadow = None


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
