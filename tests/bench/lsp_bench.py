"""Benchmark of the language server's edge: a big proposal built and sent, and memory.

Sections
    ``build``: ``lsp_server.workspace_edit.build`` (annotated, UTF-16) on the
    proposal of 50 generated files of ~300 lines, each changed by 4 ``edit``
    calls, one hunk each, under its own label: 200 hunks, 200 annotations.
    The proposal comes from the agent's own ``Overlay`` and ``proposal_of``,
    as in the server. Also timed: the same build without annotations, the
    hunks worked out from the two texts alone (``StagedText.change`` of the
    50 files, what a ``ProposedChange`` without staged hunks costs) and the WorkspaceEdit turned into JSON (lsprotocol's
    converter and ``json.dumps``, as pygls sends it). The baseline, timed in
    the same run, is ``difflib.unified_diff`` of the same 50 before/after
    pairs: what any diff view of the proposal costs.

    ``send``: the real server (``python -m lsp_server``) on stdio, driven by
    pytest-lsp's client with VS Code's capabilities, whose
    ``workspace/applyEdit`` is answered by the ``Editor`` of
    ``tests/lsp/editor.py``; the model is ``tests/support/openai_server.py``
    streaming each tool call in one chunk (it answers at once). The task's
    model makes the same 200 edits (one turn per file, 4 ``edit`` calls in
    it; ``maxSteps`` is raised to fit) and finishes; the editor applies the
    edit to its buffers. Both run in this
    process, so their ``time.monotonic`` stamps compare: when the scripted
    server hands out the ``finish`` reply, when the client receives the
    ``surehand/step`` notification of ``task_ended`` (the loop is over) and
    when the ``workspace/applyEdit`` request reaches the client's handler.
    Shown per ask, with the ask's wall time and the WorkspaceEdit's size as
    JSON. Between asks the client closes its buffers (the files on disk
    never change) and ``surehand.reset`` starts a fresh agent session.

    ``memory``: the resident memory (``VmRSS`` of ``/proc/<pid>/status``;
    ``VmHWM`` is its peak) of the server process idle after initialize, and
    after a task on a workspace of 5,000 small Python files: a ``grep``, 3
    ``view_file``, 3 ``edit``, ``ls`` through ``run_command`` (so the shadow
    copy is made) and ``finish``. Baselines in the same run: a bare
    interpreter sleeping, and one that imported ``lsp_server.server`` and
    ``agent.loop.session``.

How
    Every result is checked before it is reported: the built edit must have
    exactly 200 hunks over 50 files, each hunk under the label of the edit
    that made it, and turn each file's before text into its after text; an
    ask must end ``applied`` with every file applied and the client's buffers
    equal to the expected texts; the memory task must have found, read,
    edited and listed what it was scripted to. A wrong result is reported
    and the script exits 1. Timings are medians (``build``: of ``--repeat``
    runs after a warm-up, garbage collector off as ``timeit`` does), printed,
    never asserted.

Run: ``.venv/bin/python tests/bench/lsp_bench.py [--sections build,send,memory] [--repeat N]
[--asks N]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import difflib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# ``tests`` is not installed (the agent and server packages are): run as a
# script, this file needs the repository root on the path for its helpers.
REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lsprotocol import converters, types  # noqa: E402

from agent.conversation import Usage  # noqa: E402
from agent.staging.hunks import Hunk, StagedText  # noqa: E402
from agent.staging.proposal import Ending, Proposal, RunEnd, proposal_of  # noqa: E402
from agent.staging.workspace import Overlay  # noqa: E402
from lsp_server import positions, workspace_edit  # noqa: E402
from lsp_server.documents import uri_of  # noqa: E402
from lsp_server.progress import STEP_NOTIFICATION  # noqa: E402
from tests.bench.harness import WrongResult, expect, median_ns, parser, positive, run  # noqa: E402
from tests.lsp.editor import (  # noqa: E402
    SERVER,
    Editor,
    EditorClient,
    command,
    new_text,
    server_pid,
    settings_for,
    start,
    stop,
)
from tests.support.openai_server import Call, Reply, ScriptedServer, Turn  # noqa: E402

DEFAULT_REPEAT = 11
DEFAULT_ASKS = 3
FILES, UNITS = 50, 20  # 50 files of 20 units of 15 lines: 300 lines and a header
EDITED_UNITS = (2, 7, 12, 17)  # 4 hunks a file, spread through it
HUNKS = FILES * len(EDITED_UNITS)
UTF16 = types.PositionEncodingKind.Utf16
PACKAGES, MODULES = 50, 100  # the memory section's 5,000 files
WHOLE_CHUNKS = 1 << 20  # the scripted model's piece size: one chunk per tool call
SECTIONS = ("build", "send", "memory")


# -- the 50 files and their 200 edits -------------------------------------------------


def module_path(f: int) -> str:
    return f"ledgers/ledger_{f:02d}.py"


def _unit(f: int, u: int) -> list[str]:
    """15 lines: a class and a function, with identifiers of their own (and non-ASCII)."""
    return [
        f"class Ledger{f}x{u}:",
        f'    """Entries of ledger {f}.{u} — amounts in €."""',
        "",
        f"    def __init__(self, rate: float = {u}.5) -> None:",
        "        self.rate = rate",
        f"        self.entries_{u}: list[int] = []",
        "",
        f"    def total_{u}(self, extra: int) -> float:",
        f"        subtotal = sum(self.entries_{u}) + extra",
        "        return subtotal * self.rate",
        "",
        "",
        f"def ledger_{u}() -> Ledger{f}x{u}:",
        f"    return Ledger{f}x{u}()",
        "",
    ]


def module(f: int) -> str:
    lines = [f'"""Ledgers of book {f}."""', "", "from __future__ import annotations", "", ""]
    for u in range(UNITS):
        lines.extend(_unit(f, u))
    return "\n".join(lines) + "\n"


def file_edits(f: int) -> list[tuple[str, str, str]]:
    """``(old, new, description)`` of the 4 edits of file ``f``, in file order."""
    edits = []
    for u in EDITED_UNITS:
        old = f"        subtotal = sum(self.entries_{u}) + extra\n"
        new = (
            f"        subtotal = round(sum(self.entries_{u}) + extra, 2)  # cents 🙂\n"
            "        subtotal = max(subtotal, 0.0)\n"
        )
        edits.append((old, new, f"round ledger {f}.{u} to cents"))
    return edits


def edited(f: int) -> str:
    text = module(f)
    for old, new, _ in file_edits(f):
        expect(text.count(old) == 1, f"generator bug: {old!r} is not unique in file {f}")
        text = text.replace(old, new)
    return text


def write_ledgers(root: Path) -> None:
    (root / "ledgers").mkdir(parents=True)
    for f in range(FILES):
        (root / module_path(f)).write_text(module(f), encoding="utf-8")


def ledger_proposal(root: Path) -> Proposal:
    """The proposal the agent makes of the 200 edits, staged as its tools stage them."""
    overlay = Overlay(root)
    for f in range(FILES):
        path = module_path(f)
        for old, new, description in file_edits(f):
            text = overlay.text(path)
            assert text is not None
            overlay.stage(path, text.replace(old, new), description)
    end = RunEnd(Ending.FINISHED, "Ledgers round to cents.")
    return proposal_of(overlay, end, Usage(), FILES + 1, None)


def check_edit(edit: types.WorkspaceEdit, root: Path) -> None:
    """50 files, 4 hunks each under its edit's label, turning each before into its after."""
    changes = edit.document_changes or []
    documents = [c for c in changes if isinstance(c, types.TextDocumentEdit)]
    expect(len(changes) == FILES == len(documents), f"{len(changes)} changes, expected {FILES}")
    hunks = sum(len(d.edits) for d in documents)
    expect(hunks == HUNKS, f"{hunks} hunks over {len(documents)} files, expected {HUNKS}")
    annotations = edit.change_annotations or {}
    expect(len(annotations) == HUNKS, f"{len(annotations)} annotations, expected {HUNKS}")
    by_uri = {uri_of(root, module_path(f)): f for f in range(FILES)}
    for document in documents:
        f = by_uri.get(document.text_document.uri)
        expect(f is not None, f"an edit of an unknown file: {document.text_document.uri}")
        assert f is not None
        labels = [annotations[getattr(e, "annotation_id", "")].label for e in document.edits]
        wanted = [description for _, _, description in file_edits(f)]
        expect(labels == wanted, f"file {f}: hunk labels {labels}, expected {wanted}")
        expect(apply(module(f), document.edits) == edited(f), f"file {f}: wrong after text")


def apply(
    text: str, edits: Sequence[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit]
) -> str:
    starts = positions.line_starts(text)
    spans = [
        (
            positions.offset(text, e.range.start, UTF16, starts),
            positions.offset(text, e.range.end, UTF16, starts),
            new_text(e),
        )
        for e in edits
    ]
    for begin, end, new in sorted(spans, reverse=True):
        text = text[:begin] + new + text[end:]
    return text


def json_size(edit: types.WorkspaceEdit) -> int:
    """Bytes of the edit as JSON, as pygls writes it (lsprotocol's converter, ``json.dumps``)."""
    return len(json.dumps(converters.get_converter().unstructure(edit)).encode("utf-8"))


# -- build ----------------------------------------------------------------------------


def line_hunks(proposal: Proposal) -> list[list[Hunk]]:
    """Every file's hunks worked out from its before and after texts."""
    hunks = []
    for change in proposal.changes:
        staged = StagedText(change.before or "")
        staged.change(change.after or "", "bench")
        hunks.append(staged.hunks)
    return hunks


def unified_diffs(pairs: list[tuple[list[str], list[str]]]) -> list[str]:
    return ["".join(difflib.unified_diff(a, b, "a", "b")) for a, b in pairs]


def build_section(args: argparse.Namespace) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="surehand-bench-") as scratch:
        root = Path(scratch).resolve()
        write_ledgers(root)
        proposal = ledger_proposal(root)

        def build(annotate: bool) -> types.WorkspaceEdit:
            return workspace_edit.build(proposal, root, UTF16, lambda *_: None, annotate=annotate)

        edit = build(True)
        check_edit(edit, root)
        plain = build(False)
        expect(not plain.change_annotations, "annotations without annotate")
        converter = converters.get_converter()
        pairs = [
            ((c.before or "").splitlines(keepends=True), (c.after or "").splitlines(keepends=True))
            for c in proposal.changes
        ]
        hunked = [d.count("\n@@ ") for d in unified_diffs(pairs)]
        expect(hunked == [len(EDITED_UNITS)] * FILES, f"unified_diff hunks {hunked}")
        calls = {
            "build, annotated (200 labels)": lambda: build(True),
            "build, no annotations": lambda: build(False),
            "hunks from texts (x 50)": lambda: line_hunks(proposal),
            "WorkspaceEdit to JSON": lambda: json.dumps(converter.unstructure(edit)),
            "baseline: unified_diff x 50": lambda: unified_diffs(pairs),
        }
        rows = {case: median_ns(call, args.repeat) / 1e6 for case, call in calls.items()}
        size = json_size(edit)
    lines = sum(module(f).count("\n") for f in range(FILES)) // FILES
    print(
        f"\nbuild: WorkspaceEdit of {FILES} files of {lines} lines, {HUNKS} hunks, UTF-16 "
        f"({size / 1024:.0f} KiB as JSON); median of {args.repeat} runs, ms"
    )
    baseline = rows["baseline: unified_diff x 50"]
    print(f"{'case':<34}{'ms':>9}{'/ diff':>9}")
    for case, ms in rows.items():
        print(f"{case:<34}{ms:>9.2f}{ms / baseline:>8.1f}x")
    return rows


# -- driving the real server ------------------------------------------------------------


class TimedModel(ScriptedServer):
    """The scripted model, stamping when it hands out each reply (``time.monotonic``)."""

    def __init__(self) -> None:
        super().__init__(piece_size=WHOLE_CHUNKS)
        self.replied: list[float] = []

    def _next_reply(self, index: int) -> Reply | None:
        reply = super()._next_reply(index)
        self.replied.append(time.monotonic())
        return reply


@dataclass
class Stamps:
    """When the client got ``task_ended`` and ``workspace/applyEdit`` (``time.monotonic``)."""

    task_ended: list[float] = field(default_factory=list)
    applied: list[float] = field(default_factory=list)

    def clear(self) -> None:
        self.task_ended.clear()
        self.applied.clear()


def stamping_client(stamps: Stamps) -> EditorClient:
    """pytest-lsp's client answering applyEdit with the ``Editor``, stamping what arrives.

    Its own handlers rather than ``make_client``'s: the stamp is taken as the
    request reaches the handler, before the editor applies anything.
    """
    client = EditorClient()  # ``start`` sets its editor

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        stamps.applied.append(time.monotonic())
        assert client.editor is not None, "``start`` sets it before anything is asked"
        return client.editor.apply(params)

    @client.feature(STEP_NOTIFICATION)
    def step(params: Any) -> None:
        if getattr(params, "kind", None) == "task_ended":
            stamps.task_ended.append(time.monotonic())

    return client


@dataclass
class Connection:
    """A server process, the client driving it as an editor, and the model it uses."""

    client: EditorClient
    editor: Editor
    model: TimedModel
    stamps: Stamps

    @property
    def pid(self) -> int:
        return server_pid(self.client)

    async def command(self, name: str, *arguments: Any) -> Any:
        return await command(self.client, name, *arguments, timeout=60)

    async def ask(self, task: str) -> tuple[float, float, dict[str, Any]]:
        """When ``surehand.ask`` was sent and answered, and its result."""
        began = time.monotonic()
        result = await self.command("surehand.ask", {"task": task})
        return began, time.monotonic(), result

    def close_buffers(self) -> None:
        for uri in list(self.editor.buffers):
            self.client.text_document_did_close(
                types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri))
            )
        self.editor.buffers.clear()


@contextlib.asynccontextmanager
async def connect(root: Path, scratch: Path) -> AsyncIterator[Connection]:
    """``python -m lsp_server`` on ``root`` with VS Code's capabilities, settings taken."""
    with TimedModel() as model:
        stamps = Stamps()
        client = stamping_client(stamps)
        await client.start_io(*SERVER)
        try:
            settings = settings_for(
                model.base_url,
                model.model,
                scratch / "traces",
                requestTimeout=30,
                maxSteps=FILES + 10,  # one turn a file; the default is 40
            )
            editor = await asyncio.wait_for(start(client, "vscode", root, settings), 30)
            server = Connection(client, editor, model, stamps)
            for _ in range(100):  # settings arrive after initialized: wait for them
                if (await server.command("surehand.status"))["model"] == model.model:
                    break
                await asyncio.sleep(0.05)
            else:
                raise WrongResult("the server never took the settings")
            yield server
        finally:
            with contextlib.suppress(Exception):  # a slow exit must not hide the run's result
                await stop(client)


def ledger_script() -> list[Reply]:
    turns: list[Reply] = []
    for f in range(FILES):
        calls = [
            Call(
                "edit",
                {
                    "path": module_path(f),
                    "old": old,
                    "new": new,
                    "replace_all": None,
                    "description": description,
                },
            )
            for old, new, description in file_edits(f)
        ]
        turns.append(Turn(tool_calls=calls))
    turns.append(Turn(tool_calls=[Call("finish", {"summary": "Ledgers round to cents."})]))
    return turns


# The columns of the send table: each a span between two stamps, in seconds.
SPANS = ("ask wall", "finish>ended", "ended>apply", "finish>apply", "apply>done")


def check_ask(server: Connection, result: dict[str, Any], root: Path) -> None:
    expect(result.get("outcome") == "applied", f"ask outcome {result.get('outcome')!r}: {result}")
    expect(result.get("ending") == "finished", f"ask ending {result.get('ending')!r}")
    files = result.get("files", {})
    statuses = set(files.values())
    ok = len(files) == FILES and statuses == {"applied"}
    expect(ok, f"{len(files)} files in the result, statuses {sorted(statuses)}")
    for f in range(FILES):
        expect(server.editor.text(module_path(f)) == edited(f), f"buffer {f} is not as expected")
    model = server.model
    expect(model.pending == 0 and not model.overruns, "the script was not used exactly")
    expect(len(server.editor.edits) == 1, f"{len(server.editor.edits)} applyEdit requests")
    check_edit(server.editor.edits[0].edit, root)


async def one_ask(server: Connection, root: Path) -> tuple[dict[str, float], int]:
    """One checked ask: its spans (``SPANS``) and the WorkspaceEdit's bytes as JSON."""
    server.model.add(*ledger_script())
    server.editor.edits.clear()
    server.stamps.clear()
    began, done, result = await server.ask("Round every ledger total to cents.")
    check_ask(server, result, root)
    stamps = server.stamps
    expect(len(stamps.task_ended) == 1, f"{len(stamps.task_ended)} task_ended notifications")
    finish, ended, applied = server.model.replied[-1], stamps.task_ended[0], stamps.applied[0]
    spans = (done - began, ended - finish, applied - ended, applied - finish, done - applied)
    return dict(zip(SPANS, spans, strict=True)), json_size(server.editor.edits[0].edit)


def send_section(args: argparse.Namespace, build: dict[str, float]) -> None:
    asyncio.run(_send(args, build))


async def _send(args: argparse.Namespace, build: dict[str, float]) -> None:
    runs: list[tuple[dict[str, float], int]] = []
    with tempfile.TemporaryDirectory(prefix="surehand-bench-") as scratch:
        root = Path(scratch, "project").resolve()
        write_ledgers(root)
        async with connect(root, Path(scratch)) as server:
            for _ in range(args.asks):
                runs.append(await one_ask(server, root))
                server.close_buffers()
                await server.command("surehand.reset")
    print(
        f"\nsend: the server over stdio, a task of {FILES + 1} model turns making {HUNKS} edits "
        f"in {FILES} files, then finish; applied by a VS Code-like client; ms"
    )
    print(f"{'ask':<8}" + "".join(f"{c:>14}" for c in SPANS) + f"{'edit JSON':>12}")
    for number, (spans, size) in enumerate(runs, 1):
        print(_ask_row(str(number), spans, size))
    median = {c: statistics.median(spans[c] for spans, _ in runs) for c in SPANS}
    print(_ask_row("median", median, int(statistics.median(size for _, size in runs))))
    built = build.get("build, annotated (200 labels)")
    if built is not None:
        print(
            f"finish>apply is {median['finish>apply'] * 1000 / built:.2f}x the build alone "
            f"({built:.1f} ms, build section)"
        )
    print(
        "finish: the scripted model hands out the finish reply; ended: task_ended reaches the "
        "client;\napply: workspace/applyEdit reaches the client; done: the ask's response"
    )


def _ask_row(label: str, spans: dict[str, float], size: int) -> str:
    cells = "".join(f"{spans[c] * 1000:>14.1f}" for c in SPANS)
    return f"{label:<8}{cells}{size / 1024:>8.0f} KiB"


# -- memory ---------------------------------------------------------------------------------


def status_kib(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` of ``pid``, in KiB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(value.split()[0])
    return values


def python_rss(code: str) -> dict[str, int]:
    """The memory of ``python -c code``, read once it printed ``ready`` (then it is killed)."""
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        expect(process.stdout.readline().strip() == "ready", f"{code!r} did not start")
        return status_kib(process.pid)
    finally:
        process.kill()
        process.wait()


def small_module(p: int, m: int) -> str:
    return (
        f'"""Module {m} of pkg_{p:02d}."""\n\nfrom __future__ import annotations\n\n'
        f"LIMIT_{p}_{m} = {p * m}\n\n\n"
        f"class Record{m}:\n    def __init__(self, name: str, size: int) -> None:\n"
        f"        self.name = name\n        self.size = size\n\n\n"
        f"def total_{m}(records: list[Record{m}]) -> int:\n"
        f"    return sum(r.size for r in records if r.size < LIMIT_{p}_{m})\n"
    )


def write_packages(root: Path) -> None:
    for p in range(PACKAGES):
        folder = root / "src" / f"pkg_{p:02d}"
        folder.mkdir(parents=True)
        for m in range(MODULES):
            (folder / f"mod_{m:03d}.py").write_text(small_module(p, m), encoding="utf-8")


MEMORY_FILES = [(7, 42), (21, 5), (48, 99)]  # (package, module) viewed and edited


def _src(p: int, m: int) -> str:
    return f"src/pkg_{p:02d}/mod_{m:03d}.py"


def _edit_old_new(p: int, m: int) -> tuple[str, str]:
    old = f"    return sum(r.size for r in records if r.size < LIMIT_{p}_{m})\n"
    return old, old.replace("r.size <", "0 <= r.size <")


def memory_script() -> list[Reply]:
    grep = {"pattern": "LIMIT_7_42 = ", "path": None, "glob": "*.py"}
    views = [Call("view_file", {"path": _src(p, m)}) for p, m in MEMORY_FILES]
    edits = []
    for p, m in MEMORY_FILES:
        old, new = _edit_old_new(p, m)
        edit = {"path": _src(p, m), "old": old, "new": new, "replace_all": None}
        edits.append(Call("edit", {**edit, "description": "ignore negative sizes"}))
    return [
        Turn(tool_calls=[Call("grep", {**grep, "ignore_case": None, "context": None})]),
        Turn(tool_calls=views),
        Turn(tool_calls=edits),
        Turn(tool_calls=[Call("run_command", {"command": "ls", "timeout": None})]),
        Turn(tool_calls=[Call("finish", {"summary": "Negative sizes are ignored."})]),
    ]


def check_memory_task(server: Connection, result: dict[str, Any]) -> None:
    expect(result.get("outcome") == "applied", f"task outcome {result.get('outcome')!r}: {result}")
    wanted = {_src(p, m): "applied" for p, m in MEMORY_FILES}
    expect(result.get("files") == wanted, f"files {result.get('files')}")
    for p, m in MEMORY_FILES:
        old, new = _edit_old_new(p, m)
        text = small_module(p, m).replace(old, new)
        expect(server.editor.text(_src(p, m)) == text, f"{_src(p, m)} is not as expected")
    model = server.model
    expect(model.pending == 0 and not model.overruns, "the script was not used exactly")
    tools = [
        m["content"] for m in model.completions[-1].body["messages"] if m.get("role") == "tool"
    ]
    expect(len(tools) == 8, f"{len(tools)} tool results, expected 8")
    expect(_src(7, 42) in tools[0], f"grep did not find {_src(7, 42)}: {tools[0][:200]}")
    for (p, m), text in zip(MEMORY_FILES, tools[1:4], strict=True):
        expect(f"LIMIT_{p}_{m} = " in text, f"view of {_src(p, m)}: {text[:200]}")
    listing = tools[7]
    ok = listing.startswith("$ ls") and "src" in listing and "[exit code 0]" in listing
    expect(ok, f"ls did not run in the copy: {listing[:200]}")


def memory_section(args: argparse.Namespace) -> None:
    rows: dict[str, dict[str, int]] = {
        "python, bare (sleeping)": python_rss(
            "import time; print('ready', flush=True); time.sleep(30)"
        ),
        "python, imports server+session": python_rss(
            "import time, lsp_server.server, agent.loop.session; print('ready', flush=True); "
            "time.sleep(30)"
        ),
    }
    asyncio.run(_memory_server(rows))
    print(f"\nmemory: resident set of the server process, {PACKAGES * MODULES:,}-file workspace")
    print(f"{'process':<38}{'VmRSS MiB':>11}{'VmHWM MiB':>11}")
    for name, values in rows.items():
        print(f"{name:<38}{values['VmRSS'] / 1024:>11.1f}{values['VmHWM'] / 1024:>11.1f}")
    idle, after = rows["server, idle after initialize"], rows["server, after the task"]
    imports = rows["python, imports server+session"]["VmRSS"]
    print(
        f"the task added {(after['VmRSS'] - idle['VmRSS']) / 1024:.1f} MiB; idle server is "
        f"{(idle['VmRSS'] - imports) / 1024:+.1f} MiB over its imports"
    )


async def _memory_server(rows: dict[str, dict[str, int]]) -> None:
    with tempfile.TemporaryDirectory(prefix="surehand-bench-") as scratch:
        root = Path(scratch, "project").resolve()
        write_packages(root)
        async with connect(root, Path(scratch)) as server:
            rows["server, idle after initialize"] = status_kib(server.pid)
            server.model.add(*memory_script())
            _, _, result = await server.ask("Ignore negative sizes in the totals.")
            check_memory_task(server, result)
            rows["server, after the task"] = status_kib(server.pid)


# -- running ------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    arguments = parser(
        __doc__, DEFAULT_REPEAT, "timed builds per case, after one warm-up", SECTIONS
    )
    arguments.add_argument(
        "--asks",
        type=positive,
        default=DEFAULT_ASKS,
        help=f"asks sent to the server in the send section (default: {DEFAULT_ASKS})",
    )
    return arguments.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def body() -> None:
        build = build_section(args) if "build" in args.sections else {}
        if "send" in args.sections:
            send_section(args, build)
        if "memory" in args.sections:
            memory_section(args)

    return run(body)


if __name__ == "__main__":
    sys.exit(main())
