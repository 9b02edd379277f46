"""The pygls server: each handler gets what it needs and hands over to ``Controller``.

Its size: it registers every handler the protocol has, each a few lines
handing over to ``Controller``, and the ``Protocol`` subclass that guards
pygls's own bookkeeping.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import functools
import logging
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Generator
from typing import Any, BinaryIO, NoReturn

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.progress import Progress
from pygls.protocol import JsonRPCResponseMessage, LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from agent.loop import warm_up

from . import __version__, task_undo, test_checks, transport
from . import arguments as arguments_
from . import code_actions as review_commands
from .ask import BadArguments, parse_ask
from .capabilities import reviews_itself
from .controller import Controller
from .diagnostics import GOVERNS_MARK

log = logging.getLogger(__name__)

CONFIG_SECTION = "surehand"
ASK, CANCEL, RESET, STATUS = "surehand.ask", "surehand.cancel", "surehand.reset", "surehand.status"
FIX_THIS = "Ask surehand to fix this"
REVIEWED = "surehand/reviewed"  # a rich client's per-hunk decisions on the last proposal
REVIEW_COMMANDS = frozenset(review_commands.COMMANDS)  # the non-modal review's


# What an ask reads, and what it sends as it starts (its log line, a plain client's
# message, the answer; a progress where the client shows one): see ``compile_hooks``.
ASK_READS: tuple[type, ...] = (types.ExecuteCommandRequest,)
ASK_SENDS: tuple[type, ...] = (
    types.LogMessageNotification,
    types.ShowMessageNotification,
    JsonRPCResponseMessage,
    types.WorkDoneProgressCreateRequest,
    types.ProgressNotification,
    types.WorkDoneProgressBegin,
    types.WorkDoneProgressReport,
    types.WorkDoneProgressEnd,
)


class Protocol(LanguageServerProtocol):
    """Stops a running ask on ``$/cancelRequest`` too, which pygls leaves running;
    shuts down without pygls's ``dictionary changed size during iteration``; and on
    ``exit`` (which may come while ``shutdown`` still waits for the asks to stop)
    stops every ask, releases the shadow copy and sends nothing more: pygls exits
    from inside the handler, and every unwinding ask would log a failed write to
    the closed output, each traceback chained onto the last.

    It also forgets what pygls keeps for as long as the server runs: the future
    of every notification and of every handler a built-in one hands over to
    (``workspace/executeCommand``'s command, with its result) stays in
    ``_request_futures`` under an id of pygls's making that no answer takes
    out, and each progress keeps its token's future after it ended."""

    exiting = False

    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.converter = converter  # pygls keeps it as its own
        self.progress = _Progress(self)

    def compile_hooks(self) -> None:
        """Have cattrs build the reading of the messages an ask brings and the writing of
        those it sends as it starts: it builds each on first use, which cost the first ask
        3-4 ms before its model request (measured). First an answer with an object and an
        array in it: cattrs registers the hook it builds for a mapping or a sequence found
        at run time, and a registration empties its cache of every other hook."""
        answer = JsonRPCResponseMessage(id=0, jsonrpc="2.0", result={"summary": ["started"]})
        self.converter.unstructure(answer)
        for kind in ASK_READS:
            self.converter.get_structure_hook(kind)
        for kind in ASK_SENDS:
            self.converter.get_unstructure_hook(kind)

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        """pygls's, the handler's future taken out of ``_request_futures`` once it is done
        (a request's is taken out by its answer already; another under the same id stays)."""
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        if (future := self._request_futures.get(msg_id)) is not None:
            future.add_done_callback(functools.partial(self._forget, msg_id))

    def _forget(self, msg_id: Any, future: Any) -> None:
        if self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        server = self._server
        if isinstance(server, SurehandServer):
            server.controller.tasks.cancel_request(msg_id)
        super()._handle_cancel_notification(msg_id)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        """pygls's initialize; a client that reviews proposals itself is not offered
        the non-modal review's commands, which it would never need and which the VS
        Code extension has commands of its own by the same names."""
        result = yield from super().lsp_initialize(params)
        provider = result.capabilities.execute_command_provider
        if provider is not None and reviews_itself(params.capabilities.experimental):
            provider.commands = [c for c in provider.commands if c not in REVIEW_COMMANDS]
        return result

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls's shutdown, cancelling the pending requests over a copy of their map:
        cancelling one runs its callback at once, which takes it out of the map."""
        self._shutdown = True  # an exit that comes meanwhile is a clean one
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        server = self._server
        if isinstance(server, SurehandServer):
            server.controller.exiting()
        self.exiting = True
        yield from super().lsp_exit(*args)

    def _run_generator(
        self,
        future: concurrent.futures.Future[Any] | None,
        *,
        gen: Generator[Any, Any, Any],
        result_future: concurrent.futures.Future[Any],
    ) -> None:
        """pygls's step of a built-in handler, ending it as cancelled when the handler it
        waited on was: an exit that comes while shutdown still waits closes the loop,
        which cancels that wait, and pygls would raise it out of a loop callback."""
        if future is not None and future.cancelled():
            gen.close()
            result_future.cancel()
            return
        super()._run_generator(future, gen=gen, result_future=result_future)

    def _send_data(self, data: Any) -> None:
        if not self.exiting:
            super()._send_data(data)


class _Progress(Progress):
    """pygls's work-done progress, which forgets a token once its progress ended."""

    def end(self, token: types.ProgressToken, value: types.WorkDoneProgressEnd) -> None:
        self.tokens.pop(token, None)
        super().end(token, value)


class SurehandServer(LanguageServer):
    """pygls's server with surehand's reader of the client's messages (``transport``)."""

    def __init__(self) -> None:
        super().__init__(
            "surehand",
            __version__,
            protocol_cls=Protocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.controller = Controller(self)
        self.initialization_options: dict[str, Any] = {}
        self.stopped_by: int | None = None  # the signal that stopped ``start_io``, if one did

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve on stdio until exit, the end of the input or SIGTERM / SIGHUP (an editor that
        stops its server without exit, as Vim's ALE does): every way out stops the task's
        commands and removes the shadow copy."""
        self._stop_event = threading.Event()
        reader = transport.stdin_reader(stdin or sys.stdin.buffer)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        for stop in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(stop, _exit_on_signal)
        try:
            asyncio.run(self._read(reader))
        except _Stopped as stopped:
            self.stopped_by = stopped.signum
        except BrokenPipeError:
            log.error("Connection to the client is lost! Shutting down the server.")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.controller.exiting()
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        self._stop_event = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)
            await self._read(reader.read)
            self.controller.exiting()
            self.shutdown()

        async def serve() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        with contextlib.suppress(asyncio.CancelledError):
            asyncio.run(serve())

    async def _read(self, read_some: transport.ReadSome) -> None:
        assert self._stop_event is not None
        await transport.run(
            self._stop_event, read_some, self.protocol, log, self.report_server_error
        )


class _Stopped(SystemExit):
    """The server was told to stop by a signal (``signum``)."""

    def __init__(self, signum: int) -> None:
        super().__init__(0)
        self.signum = signum


def _exit_on_signal(signum: int, frame: Any) -> None:
    """SIGTERM or SIGHUP: leave the event loop as ``exit`` does (``start_io`` cleans up)."""
    raise _Stopped(signum)


def end_process(stopped_by: int | None) -> NoReturn:
    """End the server's process once it has cleaned up, without the interpreter's own
    shutdown: the stdin reader may still be blocked in a read, and finalizing stdin under
    it aborts the process. A signal that stopped the server is raised again with its
    default action, so the editor sees the process ended by it. The exit functions
    (``atexit``) still run."""
    atexit._run_exitfuncs()  # what the interpreter's shutdown would run, without the rest
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if stopped_by is not None:
        signal.signal(stopped_by, signal.SIG_DFL)
        os.kill(os.getpid(), stopped_by)
    os._exit(0)


def create_server() -> SurehandServer:
    server = SurehandServer()
    controller = server.controller

    @server.feature(types.INITIALIZE)
    def initialize(ls: SurehandServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        ls.initialization_options = options if isinstance(options, dict) else {}
        encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
        controller.initialize(params, encoding)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: SurehandServer, params: types.InitializedParams) -> None:
        loop = asyncio.get_running_loop()  # the first ask should not wait for imports
        warm_up.start(lambda: _ignore(loop.call_soon_threadsafe(_prepare, ls)))
        await _load_settings(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(
        ls: SurehandServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await _load_settings(ls)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: SurehandServer, params: types.DidOpenTextDocumentParams) -> None:
        document = params.text_document
        controller.documents.open(document.uri, document.text, document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SurehandServer, params: types.DidChangeTextDocumentParams) -> None:
        document = params.text_document
        controller.documents.change(document.uri, document.version, params.content_changes)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SurehandServer, params: types.DidCloseTextDocumentParams) -> None:
        controller.documents.close(params.text_document.uri)

    @server.feature(REVIEWED)
    def reviewed(ls: SurehandServer, params: Any) -> None:
        controller.reviewed(params)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: SurehandServer, params: Any) -> None:
        # An exit that comes meanwhile cancels this wait; end quietly, not with an error.
        with contextlib.suppress(asyncio.CancelledError):
            await controller.shutdown()

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancelled(ls: SurehandServer, params: types.WorkDoneProgressCancelParams) -> None:
        controller.tasks.cancel_token(params.token)

    @server.command(ASK)
    async def ask(ls: SurehandServer, *arguments: Any) -> dict[str, Any]:
        try:
            request = parse_ask(list(arguments))
            if request.uri is not None:
                arguments_.in_workspace(ASK, request.uri, controller.root)
        except BadArguments as error:
            raise JsonRpcInvalidParams(str(error)) from None
        return await controller.ask(request, ls.protocol.msg_id)

    @server.command(CANCEL)
    def cancel(ls: SurehandServer, *arguments: Any) -> dict[str, Any]:
        _takes_nothing(CANCEL, arguments)
        return controller.cancel()

    @server.command(RESET)
    async def reset(ls: SurehandServer, *arguments: Any) -> dict[str, Any]:
        _takes_nothing(RESET, arguments)
        return await controller.reset()

    @server.command(STATUS)
    def status(ls: SurehandServer, *arguments: Any) -> dict[str, Any]:
        _takes_nothing(STATUS, arguments)
        return controller.status()

    @server.command(task_undo.UNDO_TASK)
    async def undo_task(ls: SurehandServer, *arguments: Any) -> dict[str, Any]:
        try:
            task_id = arguments_.task_argument(task_undo.UNDO_TASK, list(arguments))
        except BadArguments as error:
            raise JsonRpcInvalidParams(str(error)) from None
        return await controller.undo_task(task_id)

    _after_task_commands(server, controller)

    for name in review_commands.COMMANDS:  # surehand.review.* and surehand.undo
        server.command(name)(_review_handler(controller, name))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[
                types.CodeActionKind.QuickFix,
                types.CodeActionKind.RefactorRewrite,
                types.CodeActionKind.SourceFixAll,
            ]
        ),
    )
    def code_actions(
        ls: SurehandServer, params: types.CodeActionParams
    ) -> list[types.CodeAction | types.Command]:
        return [
            *controller.review_actions(params),
            *controller.comment_actions(params),
            *fix_actions(params),
        ]

    return server


def _after_task_commands(server: SurehandServer, controller: Controller) -> None:
    """The commands about tasks that ended: their history, and their tests."""

    @server.command(test_checks.CHECK_TESTS)
    async def check_tests(ls: SurehandServer, *arguments: Any) -> dict[str, Any]:
        _takes_nothing(test_checks.CHECK_TESTS, arguments)
        return await controller.check_tests()

    @server.command(task_undo.HISTORY)
    def history(ls: SurehandServer, *arguments: Any) -> dict[str, Any]:
        _takes_nothing(task_undo.HISTORY, arguments)
        if controller.task_undo is None:
            return {"tasks": []}
        return controller.task_undo.listing()


def _prepare(ls: SurehandServer) -> None:
    """Once the task machinery is loaded: the session made, the messages' hooks built."""
    ls.controller.prepare()
    if isinstance(ls.protocol, Protocol):
        ls.protocol.compile_hooks()


def _ignore(value: object) -> None:
    """What a callback returns, dropped."""


def _takes_nothing(name: str, arguments: tuple[Any, ...]) -> None:
    try:
        arguments_.no_arguments(name, list(arguments))
    except BadArguments as error:
        raise JsonRpcInvalidParams(str(error)) from None


def _review_handler(controller: Controller, name: str) -> Callable[..., Awaitable[dict[str, Any]]]:
    """A ``surehand.review.*`` command (or ``surehand.undo``), its argument checked first."""

    async def handle(ls: SurehandServer, *arguments: Any) -> dict[str, Any]:
        try:
            if name == review_commands.UNDO:
                arguments_.no_arguments(name, list(arguments))
                argument: dict[str, Any] = {}
            else:
                argument = arguments_.review_argument(name, list(arguments), controller.root)
        except BadArguments as error:
            raise JsonRpcInvalidParams(str(error)) from None
        return await controller.review_command(name, [argument])

    return handle


def fix_actions(params: types.CodeActionParams) -> list[types.CodeAction]:
    """ "Ask surehand to fix this" for each diagnostic, or for a selection."""
    uri = params.text_document.uri
    actions = []
    review_here = False  # a review item or approval at the cursor: its own actions are offered
    for diagnostic in params.context.diagnostics:
        if diagnostic.source == "surehand" or _ours(diagnostic.message):
            review_here = True
            continue
        task = f"Fix this problem: {diagnostic.message}"
        actions.append(
            _action(task, uri, diagnostic.range, types.CodeActionKind.QuickFix, [diagnostic])
        )
    selection = params.range
    # Vim's ALE sends a one-character range with the cursor's diagnostics: not a selection.
    if not actions and not review_here and selection.start != selection.end:
        actions.append(
            _action(
                "Fix the selected code.", uri, selection, types.CodeActionKind.RefactorRewrite, None
            )
        )
    return actions


def _ours(message: str) -> bool:
    """Whether a diagnostic's message is one of the review's (Vim's ALE sends a diagnostic
    back without its ``source``)."""
    return message.startswith(("surehand ", "surehand:", GOVERNS_MARK))


def _action(
    task: str,
    uri: str,
    text_range: types.Range,
    kind: types.CodeActionKind,
    diagnostics: list[types.Diagnostic] | None,
) -> types.CodeAction:
    argument = {
        "task": task,
        "uri": uri,
        "range": {
            "start": {"line": text_range.start.line, "character": text_range.start.character},
            "end": {"line": text_range.end.line, "character": text_range.end.character},
        },
    }
    return types.CodeAction(
        title=FIX_THIS,
        kind=kind,
        diagnostics=diagnostics,
        command=types.Command(title=FIX_THIS, command=ASK, arguments=[argument]),
    )


async def _load_settings(ls: SurehandServer) -> None:
    """Settings from ``initializationOptions``, then the client's ``surehand`` section."""
    data = dict(ls.initialization_options)
    workspace = ls.client_capabilities.workspace
    if workspace and workspace.configuration:
        try:
            sections = await ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=CONFIG_SECTION)])
            )
        except Exception:  # a client that fails the request keeps the options it gave
            log.warning("workspace/configuration failed", exc_info=True)
            sections = []
        if sections and isinstance(sections[0], dict):
            data.update(sections[0])
    for problem in ls.controller.configure(data):
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=f"surehand: {problem}")
        )
