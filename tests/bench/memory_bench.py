"""Memory of one long-lived language server over many tasks, with and without resets.

What it measures
    The resident memory (``VmRSS`` of ``/proc/<pid>/status``) of a real
    ``python -m lsp_server`` on stdio, driven by pytest-lsp's client with VS
    Code's capabilities (``tests/lsp/editor.py``: it applies proposals to its
    buffers), on a generated git repository of ``FILES`` Python modules. The
    model is ``tests/support/openai_server.py``. Each task is four model
    turns: ``grep`` and ``view_file`` of one module, an ``edit`` of it,
    ``cat`` of it through ``run_command`` (sandboxed, in the shadow copy: the
    staged edit must be there), then ``finish``. Its proposal is accepted
    (odd tasks) or rejected (even tasks) whole, and the editor closes its
    buffers: the files on disk never change; task ``n`` edits module ``n mod
    FILES``. The repository has no tests, so no command runs but the task's.

    Two runs, each on a server of its own from its idle start:

    ``reset``: ``surehand.reset`` after every task (a new agent session each
    time): the memory after task ``n`` should be that after task 1.

    ``kept``: no reset; the session keeps its conversation from task to task,
    compacted past ``contextBudget`` (the default, ``BUDGET`` characters): old
    tool outputs stubbed, then the oldest whole tasks removed for one note.

    Read after task 1 and after each of ``--tasks`` (default 1,10,100; a run
    goes on to the largest and is read on the way): the RSS, its growth over
    task 1 (in all and per task since), and the conversation the session
    keeps: the messages of the task's last request to the model, as the model
    server received it (the server cannot be looked into from outside), their
    number and their characters (their text, thinking and calls' arguments,
    as ``Conversation.size`` counts them; ``budget`` says whether they are
    within ``contextBudget``). The baseline, measured in the same
    run, is the idle server after initialize, its settings taken and its
    background imports done (``surehand.status`` answered, then
    ``IDLE_SETTLE`` seconds). With ``--repeat N``, each run is made on N
    servers and every RSS is their median.

How
    Every task is checked before its memory is read: the ask must end
    ``applied`` with the edited file ``applied`` (accepted), or ``discarded``
    with it ``unchanged`` (rejected); the model's script must be used
    exactly, and its tool results (the last request's messages) must show the
    module found, read, edited and ``cat`` in the copy with the edit in it. A
    wrong result is reported and the script exits 1. Figures are printed,
    never asserted.

Run: ``.venv/bin/python tests/bench/memory_bench.py [--tasks 1,10,100] [--sections reset,kept]
[--repeat N]`` (about two minutes; ``--tasks 5,20``, about 20 s)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from lsprotocol import types
from pytest_lsp import LanguageClient

from agent.config.settings import Settings
from tests.bench.harness import WrongResult, expect, parser, positive, run
from tests.lsp.editor import (
    SERVER,
    Editor,
    command,
    make_client,
    server_pid,
    settings_for,
    start,
    stop,
)
from tests.support.openai_server import Call, Reply, ScriptedServer, Turn

FILES = 40  # modules in the generated repository
UNITS = 6  # functions per module
RUNS = ("reset", "kept")
DEFAULT_TASKS = "1,10,100"
IDLE_SETTLE = 2.0  # seconds after the settings are taken: the background imports are done
WAIT = 60.0  # seconds any one request of the run may take
TESTS = "surehand/tests"  # a notification the client takes and ignores
BUDGET = Settings().context_budget  # contextBudget: characters of conversation, the default


# -- the repository ----------------------------------------------------------------------


def module_path(f: int) -> str:
    return f"shop/mod_{f:02d}.py"


def module(f: int) -> str:
    lines = [f'"""Prices of shelf {f}."""', "", f"LIMIT_{f} = {100 + f}", "", ""]
    for u in range(UNITS):
        lines += [
            f"def price_{f}_{u}(amount: int, rate: float = {u}.5) -> float:",
            f'    """Price of {u} items on shelf {f}, capped at LIMIT_{f}."""',
            f"    total = amount * rate + {u}",
            f"    return min(total, LIMIT_{f})",
            "",
            "",
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


OLD_LINE = "    total = amount * rate + 3\n"
NEW_LINE = "    total = round(amount * rate + 3, 2)\n"


def write_project(root: Path) -> None:
    """``FILES`` modules committed to a fresh git repository; no tests, so no test command
    runs but the task's own (``agent.loop.project_tests`` finds none)."""
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "__init__.py").write_text("")
    for f in range(FILES):
        (root / module_path(f)).write_text(module(f), encoding="utf-8")
    (root / ".gitignore").write_text("__pycache__/\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "shop"]):
        subprocess.run([*git, *step], cwd=root, check=True, capture_output=True)


# -- one task ------------------------------------------------------------------------------


def task_script(f: int) -> list[Reply]:
    path = module_path(f)
    grep = {"pattern": f"LIMIT_{f} = ", "path": None, "glob": "*.py"}
    view = {"path": path, "start_line": None, "end_line": None}
    edit = {"path": path, "old": OLD_LINE, "new": NEW_LINE, "replace_all": None}
    return [
        Turn(
            tool_calls=[
                Call("grep", {**grep, "ignore_case": None, "context": None}),
                Call("view_file", view),
            ]
        ),
        Turn(tool_calls=[Call("edit", {**edit, "description": "round the price"})]),
        Turn(tool_calls=[Call("run_command", {"command": f"cat {path}", "timeout": None})]),
        Turn(tool_calls=[Call("finish", {"summary": f"Shelf {f} rounds its prices."})]),
    ]


def conversation_size(messages: list[dict[str, Any]]) -> int:
    """Characters of a request's messages, counted as ``Conversation.size`` counts them."""
    size = 0
    for message in messages:
        size += len(message.get("content") or "") + len(message.get("reasoning_content") or "")
        for call in message.get("tool_calls") or ():
            size += len(call["function"]["arguments"])
    return size


def check_task(
    result: dict[str, Any], accept: bool, f: int, model: ScriptedServer, sent: list[Any]
) -> None:
    path = module_path(f)
    wanted = ("applied", "applied") if accept else ("discarded", "unchanged")
    got = (result.get("outcome"), result.get("files", {}).get(path))
    expect(got == wanted, f"task on {path}: outcome and file {got}, expected {wanted}: {result}")
    expect(model.pending == 0 and not model.overruns, "the script was not used exactly")
    tools = [m["content"] for m in sent if m.get("role") == "tool"][-4:]
    expect(len(tools) == 4, f"{len(tools)} tool results in the last request, expected 4")
    grep, view, edit, cat = tools
    expect(path in grep, f"grep did not find {path}: {grep[:200]}")
    expect(f"LIMIT_{f} = " in view, f"view of {path}: {view[:200]}")
    expect(NEW_LINE.strip() in edit, f"edit of {path}: {edit[:200]}")
    ok = cat.startswith(f"$ cat {path}") and NEW_LINE.strip() in cat and "[exit code 0]" in cat
    expect(ok, f"cat did not show the staged edit in the copy: {cat[:300]}")


# -- the server ----------------------------------------------------------------------------


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise WrongResult(f"no VmRSS for process {pid}")


@dataclass
class Server:
    client: LanguageClient
    editor: Editor
    model: ScriptedServer

    @property
    def pid(self) -> int:
        return server_pid(self.client)

    async def command(self, name: str, *arguments: Any) -> Any:
        return await command(self.client, name, *arguments, timeout=WAIT)

    def close_buffers(self) -> None:
        for uri in list(self.editor.buffers):
            self.client.text_document_did_close(
                types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri))
            )
        self.editor.buffers.clear()
        self.editor.edits.clear()


@contextlib.asynccontextmanager
async def connect(root: Path, scratch: Path) -> AsyncIterator[Server]:
    """``python -m lsp_server`` on ``root`` as VS Code starts it, its settings taken."""
    with ScriptedServer(piece_size=1 << 20) as model:  # one chunk per tool call
        client = make_client("vscode")()

        @client.feature(TESTS)
        def tests(params: Any) -> None:
            """The proposal's test verdicts: not this run's business."""

        await client.start_io(*SERVER)
        try:
            settings = settings_for(
                model.base_url, model.model, scratch / "traces", contextBudget=BUDGET
            )
            editor = await asyncio.wait_for(start(client, "vscode", root, settings), WAIT)
            server = Server(client, editor, model)
            for _ in range(200):  # settings arrive after initialized: wait for them
                if (await server.command("surehand.status"))["model"] == model.model:
                    break
                await asyncio.sleep(0.05)
            else:
                raise WrongResult("the server never took the settings")
            yield server
        finally:
            with contextlib.suppress(Exception):  # a slow exit must not hide the run's result
                await stop(client)


@dataclass(frozen=True)
class Row:
    tasks: int
    rss: int  # KiB, the median over the run's servers
    messages: int  # of the conversation the task's last request sent
    characters: int  # of those messages


async def one_server(
    name: str, sizes: Sequence[int], scratch: Path, root: Path
) -> tuple[int, list[Row]]:
    """The idle RSS of a new server and a row for each of ``sizes``, with a reset between
    tasks (``reset``) or without (``kept``)."""
    rows: list[Row] = []
    async with connect(root, scratch) as server:
        await asyncio.sleep(IDLE_SETTLE)
        idle = rss_kib(server.pid)
        for n in range(1, max(sizes) + 1):
            f, accept = n % FILES, n % 2 == 1
            server.editor.accept = accept
            server.model.add(*task_script(f))
            result = await server.command("surehand.ask", {"task": f"Round shelf {f}'s prices."})
            sent = server.model.completions[-1].body["messages"]
            check_task(result, accept, f, server.model, sent)
            server.model.requests.clear()  # this process's memory stays flat
            server.close_buffers()
            if name == "reset":
                expect((await server.command("surehand.reset")) == {"reset": True}, "no reset")
            if n in sizes:
                rows.append(Row(n, rss_kib(server.pid), len(sent), conversation_size(sent)))
    return idle, rows


def one_run(name: str, sizes: Sequence[int], repeat: int, scratch: Path, root: Path) -> None:
    began = time.perf_counter()
    idles, runs = [], []
    for _ in range(repeat):
        idle, rows = asyncio.run(one_server(name, sizes, scratch, root))
        idles.append(idle)
        runs.append(rows)
    rows = [
        replace(row, rss=int(statistics.median(r[i].rss for r in runs)))
        for i, row in enumerate(runs[0])
    ]
    idle = int(statistics.median(idles))
    seconds = time.perf_counter() - began
    reset = "surehand.reset after every task" if name == "reset" else "no reset"
    print(f"\n{name}: {reset}; idle server after initialize {idle / 1024:.1f} MiB (baseline)")
    print(
        f"{'tasks':>6}{'RSS MiB':>9}{'over idle':>11}{'over task 1':>13}{'KiB/task':>10}"
        f"{'messages':>10}{'characters':>12}{'chars/task':>12}{'budget':>8}"
    )
    first = rows[0]
    for row in rows:
        since = row.tasks - first.tasks
        rss_per_task = f"{(row.rss - first.rss) / since:>10.1f}" if since else f"{'':>10}"
        chars_per_task = (
            f"{(row.characters - first.characters) / since:>12,.0f}" if since else f"{'':>12}"
        )
        print(
            f"{row.tasks:>6}{row.rss / 1024:>9.1f}{(row.rss - idle) / 1024:>+7.1f} MiB"
            f"{(row.rss - first.rss) / first.rss * 100:>+12.1f}%{rss_per_task}"
            f"{row.messages:>10,}{row.characters:>12,}{chars_per_task}"
            f"{'within' if row.characters <= BUDGET else 'OVER':>8}"
        )
    print(
        f"({repeat} x {max(sizes)} tasks in {seconds:.1f} s; contextBudget {BUDGET:,} characters)"
    )


def body(sizes: Sequence[int], runs: Sequence[str], repeat: int) -> None:
    with tempfile.TemporaryDirectory(prefix="surehand-memory-bench-") as folder:
        scratch = Path(folder).resolve()
        # What the server keeps on disk (accepted tasks, traces) stays in the scratch folder.
        os.environ["XDG_STATE_HOME"] = str(scratch / "state")
        root = scratch / "project"
        write_project(root)
        print(
            f"the server's RSS; a {FILES}-module git repository; a task: grep + view_file, "
            "edit, run_command (cat), finish; odd tasks accepted, even rejected"
        )
        for name in runs:
            one_run(name, sizes, repeat, scratch, root)


def task_counts(value: str) -> list[int]:
    """An ``argparse`` type: comma-separated task counts, each at least 1, sorted; task 1
    is always read (the runs are measured against it)."""
    return sorted({1, *(positive(v) for v in value.split(",") if v)})


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    arguments = parser(__doc__ or "", 1, "servers started for each run, medians shown", RUNS)
    arguments.add_argument(
        "--tasks",
        type=task_counts,
        default=DEFAULT_TASKS,
        help=f"after which tasks to read the memory (default: {DEFAULT_TASKS})",
    )
    return arguments.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return run(lambda: body(args.tasks, args.sections, args.repeat))


if __name__ == "__main__":
    sys.exit(main())
