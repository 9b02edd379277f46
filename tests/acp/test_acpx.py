"""``surehand acp`` driven by acpx without a terminal, each of its permission modes in turn.

acpx answers every question by itself (``tests/acp/acpx_wire.py`` says how); its
``--format json`` output is the wire the assertions read. Each test compares the
project's files byte for byte before and after, and checks that no ``surehand acp``
is left running.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.acp.acpx_wire import (
    ALL_ACCEPTED,
    ASKED_TO_RUN,
    BEFORE,
    BOTH,
    SCRIPT,
    TIMEOUT,
    TITLES,
    Ran,
    acpx_argv,
    at_once,
    environment,
    make_project,
    no_surehand_left,
    on_disk,
    run_acpx,
)
from tests.agent.sandboxes import bubblewrap
from tests.support.openai_server import Hang, ScriptedServer, Turn
from tests.support.processes import running
from tests.support.scripted_task import CALC, CREATE, DELETE, FIX, FIXED, UTIL

pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.mark.parametrize("fs", [True, False], ids=["through-acpx", "no-fs"])
def test_approve_all_accepts_everything_and_surehand_says_the_answers_came_at_once(
    project: Path, openai_server: ScriptedServer, tmp_path: Path, fs: bool
):
    bubblewrap()
    openai_server.add(*SCRIPT)

    ran = run_acpx(project, openai_server, tmp_path, "--approve-all", *([] if fs else ["--no-fs"]))

    assert ran.status == 0, ran
    wire = ran.wire
    assert wire.answers() == [
        (ASKED_TO_RUN, "allow_once"),
        *((title, "allow_once") for title in TITLES),
    ], ran
    assert "python3: 42" in wire.tool_texts("call-1"), "the command ran once allowed"
    first = next(u for u in wire.updates() if u.get("toolCallId") == "review-1")
    diff = first["content"][0]
    assert (diff["type"], diff["oldText"], diff["newText"]) == ("diff", CALC, FIXED)
    writes = wire.asked("fs/write_text_file")
    if fs:
        assert [(p["path"], p["content"], r.get("result")) for _, p, r in writes] == [
            (str(project / "calc.py"), BOTH, {}),
            (str(project / "util.py"), UTIL, {}),
        ]
        last_answer = wire.asked("session/request_permission")[-1][0]
        assert all(index > last_answer for index, _, _ in writes), "written after the answers"
    else:
        assert not writes and not wire.asked("fs/read_text_file"), "written by surehand itself"
    assert on_disk(project) == ALL_ACCEPTED
    said = wire.said()
    assert "Applied." in said
    assert "answered sooner than a person reads one" in said
    assert at_once("add adds; sub noted; new util; old goes") in said
    assert wire.prompt_reply()["result"] == {"stopReason": "end_turn"}
    assert no_surehand_left(openai_server)


@pytest.mark.parametrize(
    "flags", [("--deny-all",), ()], ids=["deny-all", "default-mode-without-a-terminal"]
)
def test_a_refusing_mode_rejects_every_question_and_nothing_is_written(
    project: Path, openai_server: ScriptedServer, tmp_path: Path, flags: tuple[str, ...]
):
    bubblewrap()
    openai_server.add(*SCRIPT)

    ran = run_acpx(project, openai_server, tmp_path, *flags)

    assert ran.status == 5, ran  # acpx: every permission request was denied
    wire = ran.wire
    assert wire.answers() == [
        (ASKED_TO_RUN, "reject_once"),
        *((title, "reject_once") for title in TITLES),
    ], ran
    assert "The user declined to run" in wire.tool_texts("call-1")
    assert not wire.asked("fs/write_text_file")
    reads = wire.asked("fs/read_text_file")
    if flags == ("--deny-all",):  # acpx refuses even reads: surehand reads the disk instead
        assert reads and all("Permission denied" in str(r.get("error")) for _, _, r in reads)
    first = next(u for u in wire.updates() if u.get("toolCallId") == "review-1")
    assert first["content"][0]["oldText"] == CALC
    assert on_disk(project) == BEFORE
    said = wire.said()
    assert "Discarded." in said
    assert at_once("nothing") in said
    assert wire.prompt_reply()["result"] == {"stopReason": "end_turn"}
    assert no_surehand_left(openai_server)


def test_a_client_that_cannot_ask_cancels_the_turn_and_nothing_is_written(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    bubblewrap()
    openai_server.add(*SCRIPT)

    ran = run_acpx(project, openai_server, tmp_path, "--non-interactive-permissions", "fail")

    assert ran.status == 5, ran
    wire = ran.wire
    assert wire.answers() == [(ASKED_TO_RUN, "cancelled"), (TITLES[0], "cancelled")], ran
    assert "The user declined to run" in wire.tool_texts("call-1")
    assert wire.prompt_reply()["result"] == {"stopReason": "cancelled"}
    assert not wire.asked("fs/write_text_file")
    assert on_disk(project) == BEFORE
    assert no_surehand_left(openai_server)


def test_an_interrupt_cancels_the_task_and_nothing_is_written(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    openai_server.add(Turn(tool_calls=[FIX, CREATE, DELETE]), Hang(TIMEOUT))
    process = subprocess.Popen(
        acpx_argv(project, openai_server, "--approve-all", "--format", "json", "--verbose"),
        env=environment(tmp_path),
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while len(openai_server.completions) < 2:  # the edits are staged; the model thinks
            assert time.monotonic() < deadline and process.poll() is None, "no second turn"
            time.sleep(0.05)
        assert on_disk(project) == BEFORE
        assert running(openai_server.base_url), "surehand acp is found by its --base-url"
        process.send_signal(signal.SIGINT)  # Ctrl-C in acpx's terminal
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    ran = Ran(process.returncode, out, err)
    wire = ran.wire
    assert any(m.get("method") == "session/cancel" for m in wire.messages), ran
    assert wire.prompt_reply()["result"] == {"stopReason": "cancelled"}, ran
    assert not wire.asked("session/request_permission") and not wire.asked("fs/write_text_file")
    assert on_disk(project) == BEFORE
    assert no_surehand_left(openai_server)


# acpx's --permission-policy answers questions by kind (a hunk's is edit; a command's,
# guessed from "Run", execute); without a terminal its default mode then refuses each
# fs/write_text_file.
ACCEPT_BY_POLICY = ("--permission-policy", json.dumps({"autoApprove": ["edit", "execute"]}))


def test_writes_acpx_refuses_leave_the_disk_untouched(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    bubblewrap()
    openai_server.add(*SCRIPT)

    ran = run_acpx(project, openai_server, tmp_path, *ACCEPT_BY_POLICY)

    wire = ran.wire
    assert wire.answers() == [
        (ASKED_TO_RUN, "allow_once"),
        *((title, "allow_once") for title in TITLES),
    ], ran
    writes = wire.asked("fs/write_text_file")
    assert [params["path"] for _, params, _ in writes] == [
        str(project / "calc.py"),
        str(project / "util.py"),
    ]
    assert all("Permission denied" in str(reply.get("error")) for _, _, reply in writes), ran
    assert on_disk(project) == BEFORE, "nothing written, old.py kept: no way round the editor"
    assert no_surehand_left(openai_server)


def test_a_write_acpx_refuses_is_reported_and_the_turn_ends(
    project: Path, openai_server: ScriptedServer, tmp_path: Path
):
    bubblewrap()
    openai_server.add(*SCRIPT)

    ran = run_acpx(project, openai_server, tmp_path, *ACCEPT_BY_POLICY)

    wire = ran.wire
    assert "result" in wire.prompt_reply(), wire.prompt_reply()
    report = wire.said().split("Fixing it.", 1)[1]
    assert "The editor refused to write calc.py (Permission denied for fs/write_text_file)" in (
        report
    ), report
    assert "The editor refused to write old.py (not made: the editor refused" in report
