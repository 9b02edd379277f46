"""``surehand acp`` driven by the official SDK's client side, as an editor would.

The real agent process on stdio, the real OpenAI client against a scripted
server, the SDK's ``ClientSideConnection`` (every message parsed by its
schema models). The client holds its own buffers (unsaved text the agent
must read through ``fs/read_text_file``), answers each permission request
from a script, and writes through ``fs/write_text_file`` into its buffers:
nothing reaches the disk before the person accepts, and only what they
accept is written.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest
from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    ToolCallUpdate,
    WriteTextFileResponse,
)
from acp.stdio import spawn_agent_process

from tests.agent.sandboxes import bubblewrap
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, SUB_NOTE

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

UTIL = "def double(x):\n    return 2 * x\n"
CREATE = Call("create_file", {"path": "util.py", "content": UTIL, "description": "new util"})
DELETE = Call("delete_file", {"path": "old.py", "description": "old goes"})
TIMEOUT = 60


@dataclass
class Editor:
    """The client: buffers over the disk, scripted answers, and everything it was sent."""

    root: Path
    answers: list[str]  # option ids, in order ("allow_once", "reject_once", ...)
    buffers: dict[str, str] = field(default_factory=dict)  # absolute path -> unsaved text
    updates: list[Any] = field(default_factory=list)
    asked: list[tuple[ToolCallUpdate, list[PermissionOption]]] = field(default_factory=list)
    written: list[tuple[str, str]] = field(default_factory=list)
    before_answer: Callable[[Editor], None] | None = None  # the person types meanwhile
    hold: asyncio.Event | None = None  # set: permission requests wait for it (cancel tests)
    quick: bool = False  # answers at once, as an "always allow" setting does
    disk_when_asked: list[dict[str, str]] = field(default_factory=list)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kw: Any
    ) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        self.disk_when_asked.append(on_disk(self.root))
        if self.hold is not None:
            await self.hold.wait()
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        if not self.quick:
            await asyncio.sleep(0.3)  # a person reads the question
        if self.before_answer is not None:
            self.before_answer(self)
            self.before_answer = None
        choice = self.answers.pop(0)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=choice)
        )

    async def read_text_file(
        self, session_id: str, path: str, **kwargs: Any
    ) -> ReadTextFileResponse:
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.buffers[path] = content
        self.written.append((path, content))
        return WriteTextFileResponse()

    def on_connect(self, conn: Any) -> None:
        pass

    def kinds(self) -> list[str]:
        return [u.session_update for u in self.updates]

    def said(self) -> str:
        return "".join(
            u.content.text for u in self.updates if u.session_update == "agent_message_chunk"
        )


def as_client(editor: Editor) -> Client:
    """The editor as the SDK's ``Client``. The SDK answers a request the client has no method
    for with its default or "method not found"; its Protocol lists every method, of which this
    client, like an editor, has those it announces."""
    return cast(Client, editor)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC)
    (root / "old.py").write_text("OLD = 1\n")
    return root


def environment(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "OPENAI_API_KEY": "sk-test",
    }


def on_disk(root: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(root.iterdir()) if p.is_file()}


async def run_task(
    editor: Editor,
    server: ScriptedServer,
    tmp_path: Path,
    *,
    cancel_after: float | None = None,
    fs: bool = True,
) -> tuple[str, Any]:
    """Start the agent, run one prompt; (its stop reason, the process)."""
    argv = ["-m", "surehand", "acp", "--base-url", server.base_url, "--model", server.model]
    async with spawn_agent_process(
        as_client(editor), sys.executable, *argv, env=environment(tmp_path), cwd=str(editor.root)
    ) as (conn, process):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs)
            ),
        )
        assert init.agent_info is not None and init.agent_info.name == "surehand"
        session = await conn.new_session(cwd=str(editor.root), mcp_servers=[])
        prompt = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Fix add.")])
        )
        if cancel_after is not None:
            await asyncio.sleep(cancel_after)
            await conn.cancel(session_id=session.session_id)
            assert editor.hold is not None
            editor.hold.set()
        answer = await asyncio.wait_for(prompt, TIMEOUT)
        return answer.stop_reason, process


async def test_hunks_are_asked_one_by_one_and_only_the_accepted_reach_the_editor(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    bubblewrap()
    calc = str(project / "calc.py")
    editor = Editor(project, answers=["allow_once", "reject_once", "allow_once", "reject_once"])
    editor.buffers[calc] = CALC + "# unsaved\n"  # the person's unsaved line, read by the agent
    openai_server.add(
        Turn("Fixing it.", [FIX, SUB_NOTE, CREATE, DELETE]),
        Turn(tool_calls=[FINISH]),
    )

    stop, _ = await run_task(editor, openai_server, tmp_path)

    assert stop == "end_turn"
    titles = [call.title for call, _ in editor.asked]
    assert titles == [
        "surehand proposes (1 of 4): calc.py: add adds",
        "surehand proposes (2 of 4): calc.py: sub noted",
        "surehand proposes (3 of 4): create util.py",
        "surehand proposes (4 of 4): delete old.py",
    ]
    kinds = [[o.kind for o in options] for _, options in editor.asked]
    assert kinds[0] == ["allow_once", "reject_once", "allow_always", "reject_always"]
    assert kinds[2] == ["allow_once", "reject_once"]
    review_calls = [u for u in editor.updates if getattr(u, "tool_call_id", "") == "review-1"]
    diff = review_calls[0].content[0]
    assert (diff.type, diff.path) == ("diff", calc)
    assert diff.old_text == CALC + "# unsaved\n"
    assert diff.new_text == FIXED + "# unsaved\n", "the hunk alone, on the editor's text"
    assert editor.buffers[calc] == FIXED + "# unsaved\n"
    assert (project / "calc.py").read_text() == CALC, "written through the editor, not saved"
    assert editor.buffers[str(project / "util.py")] == UTIL, "a new file, in the editor"
    assert not (project / "util.py").exists()
    assert (project / "old.py").exists(), "its deletion was rejected"
    said = editor.said()
    assert "Partly applied." in said and "rejected: sub noted" in said
    assert "util.py: created." in said, "read back through the editor, where it was written"
    assert "answered sooner than a person" not in said
    asked = editor.asked[0][0]
    assert asked.content is not None and asked.locations is not None
    assert (asked.kind, asked.content[0].type, asked.locations[0].line) == ("edit", "diff", 1)
    assert {"tool_call", "tool_call_update", "agent_message_chunk", "plan"} <= set(editor.kinds())
    plans = [u for u in editor.updates if u.session_update == "plan"]
    assert [e.status for e in plans[0].entries] == ["pending"] * 4
    assert [e.content for e in plans[-1].entries] == [
        "Accepted: calc.py: add adds",
        "Rejected: calc.py: sub noted",
        "Accepted: util.py: new util",
        "Rejected: old.py: old goes",
    ]


async def test_typing_during_the_review_is_kept_and_answers_at_once_are_told(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    bubblewrap()
    calc = str(project / "calc.py")
    editor = Editor(project, answers=["allow_always"])

    def typed(editor: Editor) -> None:  # the person adds a line at the end while asked
        editor.buffers[calc] = CALC + "# typed\n"

    editor.before_answer = typed
    openai_server.add(Turn(tool_calls=[FIX, SUB_NOTE]), Turn(tool_calls=[FINISH]))

    stop, _ = await run_task(editor, openai_server, tmp_path)

    assert stop == "end_turn" and len(editor.asked) == 1, "the rest of the file went with it"
    both = FIXED.replace("return a - b\n", "return a - b  # sub\n")
    assert editor.written == [(calc, both + "# typed\n")], "rebased onto the typing"
    assert "rebased onto your changes" in editor.said()


async def test_a_command_asked_first_and_answers_given_at_once_are_told(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    bubblewrap()
    editor = Editor(project, answers=["allow_once", "allow_once", "allow_once"], quick=True)
    script = Call("run_command", {"command": "python3 -c 'print(6 * 7)'", "timeout": None})
    openai_server.add(
        Turn("Checking \x1b[2J\u202eit.", [script]), Turn(tool_calls=[FIX, SUB_NOTE, FINISH])
    )

    stop, _ = await run_task(editor, openai_server, tmp_path)

    assert stop == "end_turn"
    command, options = editor.asked[0]
    assert command.title == "Run `python3 -c 'print(6 * 7)'`?"
    assert [o.kind for o in options] == ["allow_once", "reject_once", "allow_always"]
    ran = [u for u in editor.updates if getattr(u, "kind", None) == "execute"]
    assert ran, "the command is an execute tool call"
    outputs = [
        c.content.text
        for u in editor.updates
        if u.session_update == "tool_call_update" and u.content
        for c in u.content
        if c.type == "content"
    ]
    assert any("42" in text or "python3" in text for text in outputs), outputs
    said = editor.said()
    assert "Checking \\x1b[2J\\u202eit." in said and "\x1b" not in said
    assert "2 of 2 questions were answered sooner than a person reads one" in said
    assert "Accepted that way: add adds; sub noted." in said


async def test_a_cancel_during_the_review_writes_nothing(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    bubblewrap()
    editor = Editor(project, answers=[], hold=asyncio.Event())
    openai_server.add(Turn(tool_calls=[FIX, CREATE]), Turn(tool_calls=[FINISH]))

    stop, _ = await run_task(editor, openai_server, tmp_path, cancel_after=3)

    assert stop == "cancelled"
    assert editor.written == [] and not (project / "util.py").exists()
    assert (project / "calc.py").read_text() == CALC


async def test_the_root_and_the_home_folder_are_refused(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    editor = Editor(project, answers=[])
    argv = ["-m", "surehand", "acp", "--base-url", openai_server.base_url]
    env = {**environment(tmp_path), "HOME": str(project)}
    async with spawn_agent_process(as_client(editor), sys.executable, *argv, env=env) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        for cwd in ("/", str(project), "relative/path"):
            with pytest.raises(RequestError) as refused:
                await conn.new_session(cwd=cwd, mcp_servers=[])
            assert refused.value.code == -32602, cwd


async def test_without_the_editors_files_the_disk_changes_only_after_the_last_answer(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    bubblewrap()
    editor = Editor(project, answers=["allow_once", "reject_once", "allow_once", "allow_once"])
    editor.buffers[str(project / "calc.py")] = "never read: the client offers no fs\n"
    openai_server.add(Turn(tool_calls=[FIX, SUB_NOTE, CREATE, DELETE]), Turn(tool_calls=[FINISH]))
    before = on_disk(project)

    stop, _ = await run_task(editor, openai_server, tmp_path, fs=False)

    assert stop == "end_turn" and len(editor.asked) == 4
    assert all(seen == before for seen in editor.disk_when_asked), "nothing before the answers"
    assert on_disk(project) == {"calc.py": FIXED, "util.py": UTIL}
    assert editor.written == []


async def test_the_messages_of_one_task_come_in_the_order_the_protocol_needs(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    """Read from the wire: each permission request after the tool call it is about, every
    write after the last answer, the prompt's answer last."""
    bubblewrap()
    wire = tmp_path / "wire.jsonl"
    editor = Editor(project, answers=["allow_once", "reject_once"])
    openai_server.add(Turn("On it.", [FIX, SUB_NOTE]), Turn(tool_calls=[FINISH]))
    agent = (
        f"{sys.executable} -m surehand acp --base-url {openai_server.base_url} "
        f"--model {openai_server.model} | tee {wire}"
    )
    async with spawn_agent_process(
        as_client(editor), "sh", "-c", agent, env=environment(tmp_path), cwd=str(project)
    ) as (conn, _):
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True)
            ),
        )
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        answer = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Fix add.")]), TIMEOUT
        )
    assert answer.stop_reason == "end_turn"
    sent = [json.loads(line) for line in wire.read_text().splitlines()]
    flow = [
        m.get("method") or "response"
        if "update" not in m.get("params", {})
        else f"update:{m['params']['update']['sessionUpdate']}"
        for m in sent
    ]
    asks = [i for i, m in enumerate(flow) if m == "session/request_permission"]
    writes = [i for i, m in enumerate(flow) if m == "fs/write_text_file"]
    assert len(asks) == 2 and len(writes) == 1, flow
    for ask in asks:
        about = sent[ask]["params"]["toolCall"]["toolCallId"]
        started = next(
            i
            for i, m in enumerate(sent)
            if m.get("params", {}).get("update", {}).get("toolCallId") == about
        )
        assert started < ask, f"the tool call {about} is on screen before its question"
    assert writes[0] > asks[-1], "nothing is written before the last answer"
    assert "fs/read_text_file" in flow[: asks[0]], "the task read through the editor"
    assert flow[-1] == "response" and sent[-1]["result"]["stopReason"] == "end_turn"


async def test_a_closed_session_is_gone_and_the_others_stay(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    """``session/close`` (advertised): the session's prompt is cancelled and nothing is
    written, later prompts to it are refused, another session goes on."""
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))
    editor = Editor(project, answers=[], hold=asyncio.Event())
    argv = ["-m", "surehand", "acp", "--base-url", openai_server.base_url]
    argv += ["--model", openai_server.model]
    env = environment(tmp_path)
    async with spawn_agent_process(as_client(editor), sys.executable, *argv, env=env) as (conn, _):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True)
            ),
        )
        capabilities = init.agent_capabilities
        assert capabilities is not None and capabilities.session_capabilities is not None
        assert capabilities.session_capabilities.close is not None
        closed = await conn.new_session(cwd=str(project), mcp_servers=[])
        other = await conn.new_session(cwd=str(project), mcp_servers=[])
        prompt = asyncio.ensure_future(
            conn.prompt(session_id=closed.session_id, prompt=[text_block("Fix add.")])
        )
        while not editor.asked:  # the review asks about the first hunk, and waits
            await asyncio.sleep(0.05)
        await asyncio.wait_for(conn.close_session(session_id=closed.session_id), TIMEOUT)
        assert editor.hold is not None
        editor.hold.set()
        assert (await asyncio.wait_for(prompt, TIMEOUT)).stop_reason == "cancelled"
        assert editor.written == [] and (project / "calc.py").read_text() == CALC
        for ask in (
            conn.prompt(session_id=closed.session_id, prompt=[text_block("Again.")]),
            conn.close_session(session_id=closed.session_id),
        ):
            with pytest.raises(RequestError) as refused:
                await asyncio.wait_for(ask, TIMEOUT)
            assert refused.value.code == -32602
        openai_server.add(Turn(tool_calls=[FINISH]))
        answer = conn.prompt(session_id=other.session_id, prompt=[text_block("Look.")])
        assert (await asyncio.wait_for(answer, TIMEOUT)).stop_reason == "end_turn"
