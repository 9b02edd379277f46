"""A test editor on pytest-lsp's client: buffers, and the quirks of real editors.

It keeps its buffers (text and version) and tells the server about every
change, answers ``workspace/applyEdit`` the way VS Code or Neovim do, and
answers ``window/showMessageRequest`` from a queue of choices:

- ``vscode``: a ``TextDocumentEdit`` for an older buffer version fails the
  whole edit (``applied: false``); annotated changes need confirmation,
  which ``accept`` gives or withholds (``reject_labels`` unticks some).
- ``neovim``: an edit for an older buffer version is skipped silently and
  the answer is still ``applied: true``; annotations are ignored.

Files the edit touches that are not open are opened first (both editors
load them into buffers), so the result is in the buffers, not on disk.

``Editors`` (``launch`` / ``stop``) starts and stops servers for a test
without pytest-lsp's fixture, so a test can be parametrised over both
editors (``FLAVOURS``); ``steps`` holds the ``surehand/step`` notifications; ``ask`` /
``command`` / ``wait_until`` keep every await of a test bounded. Code action
results are read as editors read them (a ``Command`` is the one whose
``command`` is a string), which lsprotocol's converter gets wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path, to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features
from pytest_lsp.protocol import LanguageClientProtocol

from lsp_server import positions

PRESETS = {"vscode": "visual-studio-code", "neovim": "neovim@v0.11", "emacs": "emacs"}
FLAVOURS = ["vscode", "neovim"]
# The VS Code extension reviews proposals itself and says so (docs/review.md).
REVIEWS_ITSELF = {"vscode": {"surehand": {"review": 1}}}
# The others take surehand's notifications (``surehand/step``, ``surehand/outcome``), which a
# test reads; a client that does not announce them gets none (test_plain_client.py).
NOTIFICATIONS = {"surehand": {"notifications": 1}}
OUTCOME = "surehand/outcome"
SERVER = [sys.executable, "-m", "lsp_server"]
STEP = "surehand/step"
TIMEOUT = 15.0  # seconds any one await of a test may take


@dataclass
class Buffer:
    text: str
    version: int


@dataclass
class Editor:
    client: EditorClient
    flavour: str
    root: Path
    buffers: dict[str, Buffer] = field(default_factory=dict)
    choices: list[str] = field(default_factory=list)
    asked: list[types.ShowMessageRequestParams] = field(default_factory=list)
    edits: list[types.ApplyWorkspaceEditParams] = field(default_factory=list)
    accept: bool = True
    reject_labels: set[str] = field(default_factory=set)
    hold_questions: bool = False  # leave window/showMessageRequest unanswered ...
    hold_edits: bool = False  # ... or workspace/applyEdit ...
    closing: asyncio.Event = field(default_factory=asyncio.Event)  # ... until the editor closes
    before_apply: list[Any] = field(default_factory=list)  # callbacks run as an edit arrives
    encoding: str = types.PositionEncodingKind.Utf16
    server_capabilities: types.ServerCapabilities | None = None  # the initialize answer's
    steps: list[dict[str, Any]] = field(default_factory=list)  # surehand/step notifications
    told: list[dict[str, Any]] = field(default_factory=list)  # every surehand/outcome
    outcomes: list[dict[str, Any]] = field(default_factory=list)  # those that end a task

    # -- buffers -----------------------------------------------------------------

    def uri(self, relative: str) -> str:
        return from_fs_path(str(self.root / relative)) or ""

    def open(self, relative: str, text: str | None = None) -> str:
        uri = self.uri(relative)
        if text is None:
            text = (self.root / relative).read_bytes().decode("utf-8")
        self.buffers[uri] = Buffer(text, 1)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )
        return uri

    def text(self, relative: str) -> str:
        return self.buffers[self.uri(relative)].text

    def type(self, relative: str, old: str, new: str) -> None:
        """The user replaces ``old`` by ``new`` in a buffer (an incremental change)."""
        uri = self.uri(relative)
        buffer = self.buffers[uri]
        start = buffer.text.index(old)
        self._change(uri, start, start + len(old), new)

    def _change(self, uri: str, start: int, end: int, new: str) -> None:
        buffer = self.buffers[uri]
        starts = positions.line_starts(buffer.text)
        text_range = types.Range(
            start=positions.position(buffer.text, start, self.encoding, starts),
            end=positions.position(buffer.text, end, self.encoding, starts),
        )
        buffer.text = buffer.text[:start] + new + buffer.text[end:]
        buffer.version += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=buffer.version
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=text_range, text=new)
                ],
            )
        )

    # -- answering the server -------------------------------------------------------

    def apply(self, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        self.edits.append(params)
        for callback in self.before_apply:
            callback(self)
        self.before_apply.clear()
        changes = params.edit.document_changes or []
        if self.flavour == "emacs" and (
            not self.accept
            or any(isinstance(c, types.TextDocumentEdit) and self._stale(c) for c in changes)
        ):  # eglot's own "Proceed?" answered no, or an edit for another version
            return types.ApplyWorkspaceEditResult(applied=False)
        if self.flavour == "vscode":
            if not self.accept:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason="cancelled")
            stale = [c for c in changes if isinstance(c, types.TextDocumentEdit) and self._stale(c)]
            if stale:
                return types.ApplyWorkspaceEditResult(
                    applied=False, failure_reason="version mismatch"
                )
        for change in changes:
            if isinstance(change, types.TextDocumentEdit):
                if self.flavour == "neovim" and self._stale(change):
                    continue  # Neovim skips it and still answers applied: true
                self._edit(change, params.edit.change_annotations or {})
            else:
                self._resource(change)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _stale(self, edit: types.TextDocumentEdit) -> bool:
        version = edit.text_document.version
        buffer = self.buffers.get(edit.text_document.uri)
        return version is not None and buffer is not None and buffer.version != version

    def _edit(
        self, edit: types.TextDocumentEdit, annotations: Mapping[str, types.ChangeAnnotation]
    ) -> None:
        uri = edit.text_document.uri
        if uri not in self.buffers:
            path = Path(to_fs_path(uri) or "")
            self.open(
                path.relative_to(self.root).as_posix(),
                path.read_bytes().decode() if path.exists() else "",
            )
        text = self.buffers[uri].text
        starts = positions.line_starts(text)
        spans = []
        for text_edit in edit.edits:
            label = getattr(text_edit, "annotation_id", None)
            if label and annotations.get(label) and annotations[label].label in self.reject_labels:
                continue
            start = positions.offset(text, text_edit.range.start, self.encoding, starts)
            end = positions.offset(text, text_edit.range.end, self.encoding, starts)
            spans.append((start, end, new_text(text_edit)))
        for start, end, new in sorted(spans, reverse=True):
            self._change(uri, start, end, new)

    def _resource(self, change: Any) -> None:
        if isinstance(change, types.CreateFile):
            path = Path(to_fs_path(change.uri) or "")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("")
        elif isinstance(change, types.DeleteFile):
            Path(to_fs_path(change.uri) or "").unlink()
            self.buffers.pop(change.uri, None)
        elif isinstance(change, types.RenameFile):
            old, new = (
                Path(to_fs_path(change.old_uri) or ""),
                Path(to_fs_path(change.new_uri) or ""),
            )
            new.parent.mkdir(parents=True, exist_ok=True)
            old.rename(new)
            if change.old_uri in self.buffers:
                buffer = self.buffers.pop(change.old_uri)
                self.client.text_document_did_close(
                    types.DidCloseTextDocumentParams(
                        text_document=types.TextDocumentIdentifier(uri=change.old_uri)
                    )
                )
                self.open(new.relative_to(self.root).as_posix(), buffer.text)

    def choose(self, params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        self.asked.append(params)
        if not self.choices:
            return None
        title = self.choices.pop(0)
        return next((a for a in params.actions or [] if a.title == title), None)


class _OutcomeKeepingProtocol(LanguageClientProtocol):
    """pytest-lsp's protocol, keeping each ``surehand/outcome`` as the JSON it came in: pygls
    hands a notification's params over as named tuples, which rename keys such as paths
    (``files``)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        client = self._server
        if (
            isinstance(client, EditorClient)
            and isinstance(data, dict)
            and data.get("method") == OUTCOME
            and client.editor
        ):
            params = copy.deepcopy(data.get("params"))
            assert isinstance(params, dict), data
            client.editor.told.append(params)
            if params.get("outcome") != "reviewing":
                client.editor.outcomes.append(params)
        return super().structure_message(data)


class EditorClient(LanguageClient):
    """pytest-lsp's test client (as ``make_test_lsp_client`` makes it), with the ``Editor``
    that answers for it."""

    editor: Editor | None = None  # set by ``start`` once the root is known

    def __init__(self) -> None:
        super().__init__(protocol_cls=_OutcomeKeepingProtocol, converter_factory=default_converter)
        register_lsp_features(self)


def make_client(flavour: str) -> Callable[[], EditorClient]:
    """A pytest-lsp client factory for an editor of ``flavour`` (the Editor is ``client.editor``)."""

    def factory() -> EditorClient:
        client = EditorClient()
        _tell_commands_from_code_actions(client.protocol._converter)

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        async def apply_edit(
            params: types.ApplyWorkspaceEditParams,
        ) -> types.ApplyWorkspaceEditResult:
            editor = client.editor
            assert editor is not None, "started before the server asks anything"
            if editor.hold_edits:  # the user is still reviewing when the editor closes
                editor.edits.append(params)
                await editor.closing.wait()
                return types.ApplyWorkspaceEditResult(applied=False)
            return editor.apply(params)

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        async def show_message_request(
            params: types.ShowMessageRequestParams,
        ) -> types.MessageActionItem | None:
            editor = client.editor
            assert editor is not None, "started before the server asks anything"
            if editor.hold_questions:  # the user walked away: no answer until closed
                editor.asked.append(params)
                await editor.closing.wait()
                return None
            return editor.choose(params)

        @client.feature(STEP)
        def step(params: Any):
            if client.editor is not None:
                client.editor.steps.append(_plain(params))

        @client.feature(OUTCOME)
        def outcome(params: Any):
            """Kept as sent, before pygls turns it into tuples (``_OutcomeKeepingProtocol``)."""

        return client

    return factory


async def start(
    client: EditorClient,
    flavour: str,
    root: Path,
    settings: dict[str, Any],
    *,
    notifications: bool = True,
) -> Editor:
    """Initialize the session with the editor's capabilities; returns its ``Editor``.
    ``notifications=False``: the editor as it is, announcing nothing of surehand's."""
    editor = Editor(client, flavour, root)
    client.editor = editor
    client.set_configuration(settings, section="surehand")
    capabilities = client_capabilities(PRESETS[flavour])
    capabilities.experimental = REVIEWS_ITSELF.get(
        flavour, NOTIFICATIONS if notifications else None
    )
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=from_fs_path(str(root)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)) or "", name="w")],
        )
    )
    editor.encoding = result.capabilities.position_encoding or types.PositionEncodingKind.Utf16
    editor.server_capabilities = result.capabilities
    return editor


def _tell_commands_from_code_actions(converter: Any) -> None:
    """Read a code action result as editors do: a ``Command`` has a string ``command``.

    lsprotocol's converter tries ``Command`` first and turns a ``CodeAction``'s
    command object into a string.
    """

    def structure(value: Any, _: Any) -> types.Command | types.CodeAction:
        if isinstance(value, dict) and isinstance(value.get("command"), str):
            return converter.structure(value, types.Command)
        return converter.structure(value, types.CodeAction)

    converter.register_structure_hook(types.Command | types.CodeAction, structure)


def _plain(value: Any) -> Any:
    """A notification's params (pygls hands over named tuples) as plain dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


Change = types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile


def document_changes(params: types.ApplyWorkspaceEditParams) -> Sequence[Change]:
    """The document changes of an edit (surehand sends them, never plain ``changes``)."""
    sent = params.edit.document_changes
    assert sent is not None, params
    return sent


def document_edit(params: types.ApplyWorkspaceEditParams, index: int = 0) -> types.TextDocumentEdit:
    """The ``index``-th document change of an edit, which is a text edit."""
    change = document_changes(params)[index]
    assert isinstance(change, types.TextDocumentEdit), change
    return change


def only_document_edit(params: types.ApplyWorkspaceEditParams) -> types.TextDocumentEdit:
    """The one document change of an edit, which is a text edit."""
    (change,) = document_changes(params)
    assert isinstance(change, types.TextDocumentEdit), change
    return change


def change_annotations(
    params: types.ApplyWorkspaceEditParams,
) -> Mapping[str, types.ChangeAnnotation]:
    """The change annotations of an edit (VS Code's are annotated)."""
    annotations = params.edit.change_annotations
    assert annotations is not None, params
    return annotations


Progress = types.WorkDoneProgressBegin | types.WorkDoneProgressReport | types.WorkDoneProgressEnd


def progress(client: EditorClient, token: types.ProgressToken) -> list[Progress]:
    """A work-done progress's reports, in order: pytest-lsp keeps each one's value (begin,
    report, end), though it annotates them as ``ProgressParams``."""
    values: list[Progress] = []
    for value in client.progress_reports[token]:
        assert isinstance(value, Progress), value
        values.append(value)
    return values


def new_text(edit: types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit) -> str:
    """A text edit's new text (surehand sends no snippets)."""
    assert not isinstance(edit, types.SnippetTextEdit), edit
    return edit.new_text


def config(flavour: str) -> ClientServerConfig:
    return ClientServerConfig(server_command=SERVER, client_factory=make_client(flavour))


async def launch(flavour: str) -> EditorClient:
    """A client connected to a fresh server (``start`` it with a root and settings)."""
    client = await asyncio.wait_for(config(flavour).start(devtools=None), TIMEOUT)
    assert isinstance(client, EditorClient)
    return client


async def stop(client: LanguageClient) -> None:
    """Shut the server down (unless it is gone); one that does not answer in time is killed."""
    try:
        if client._server is not None and client._server.returncode is None:
            await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
    finally:
        server = client._server
        if server is not None and server.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                server.kill()
        await asyncio.wait_for(client.stop(), TIMEOUT)


def server_pid(client: LanguageClient) -> int:
    """The process id of the server ``client`` started (pygls keeps it, with no accessor)."""
    process = client._server
    assert process is not None
    return process.pid


async def command(client: LanguageClient, name: str, *arguments: Any, timeout: float = TIMEOUT):
    """Run a ``surehand.*`` command and return its result."""
    params = types.ExecuteCommandParams(command=name, arguments=list(arguments) or None)
    return await asyncio.wait_for(client.workspace_execute_command_async(params), timeout)


async def ask(client: EditorClient, task: str, timeout: float = TIMEOUT, **extra: Any) -> dict:
    """The ask's answer; for an editor that is answered at once (``started``), what the task
    came to: its first ``surehand/outcome`` (under review, or its end)."""
    editor = client.editor
    told = len(editor.told) if editor is not None else 0
    result = await command(client, "surehand.ask", {"task": task, **extra}, timeout=timeout)
    if result.get("outcome") != "started" or editor is None:
        return result

    def outcome() -> dict[str, Any] | None:
        mine = [o for o in editor.told[told:] if o.get("task") == result["task"]]
        return mine[0] if mine else None

    return await wait_until(outcome, timeout, what="the task's outcome")


async def wait_until(check: Callable[[], Any], timeout: float = TIMEOUT, what: str = "") -> Any:
    """Poll ``check`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (result := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        await asyncio.sleep(0.02)
    return result


def settings_for(model_url: str, model: str, traces: Path, **overrides: Any) -> dict[str, Any]:
    """The ``surehand`` settings for a scripted model server, quick to give up."""
    return {
        "model": model,
        "baseUrl": model_url,
        "apiKey": "sk-test",
        "traceDir": str(traces),
        "requestTimeout": 5,
        "maxRetries": 0,
        **overrides,
    }


@dataclass
class Editors:
    """Opens editors (each with its own server) on one project; ``close`` stops them all."""

    root: Path
    settings: dict[str, Any]
    clients: list[EditorClient] = field(default_factory=list)

    async def open(
        self, flavour: str = "vscode", *, notifications: bool = True, **overrides: Any
    ) -> Editor:
        client = await launch(flavour)
        self.clients.append(client)
        settings = {**self.settings, **overrides}
        return await asyncio.wait_for(
            start(client, flavour, self.root, settings, notifications=notifications), TIMEOUT
        )

    async def applying(self, flavour: str) -> Editor:
        """An editor that applies every proposal (Neovim's user is asked, with the
        ``review: "question"`` setting, and answers Apply)."""
        overrides: dict[str, Any] = {"review": "question"} if flavour == "neovim" else {}
        editor = await self.open(flavour, **overrides)
        if flavour == "neovim":
            editor.choices = ["Apply"] * 4
        return editor

    async def close(self) -> None:
        for client in self.clients:
            if client.editor is not None:
                client.editor.closing.set()
                await asyncio.sleep(0.01)  # held questions answer before the client stops
            await stop(client)
