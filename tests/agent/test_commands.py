"""Commands: parsing, the allowlist, the environment, and real processes in the shadow copy."""

import asyncio
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.config.command_line import BadCommand, is_allowed, parse_command
from agent.config.settings import DEFAULT_ALLOWLIST, Settings
from agent.execution.command_env import command_environment
from agent.execution.command_result import CommandResult
from agent.execution.runner import OutputBuffer, ShadowRunner
from agent.execution.sandbox import Sandbox
from agent.execution.shadow import discard_kept
from agent.staging.workspace import Overlay
from tests.agent.sandboxes import PYTHON, sandbox
from tests.support.processes import gone, marker, running

__all__ = ["sandbox"]  # the fixture

PY = PYTHON
SETTINGS = Settings(output_max_chars=2_000)


def truncate(text: str, max_chars: int) -> str:
    """``text`` as an ``OutputBuffer`` of ``max_chars`` keeps it, fed at once."""
    buffer = OutputBuffer(max_chars)
    buffer.add(text)
    return buffer.text()


# -- parsing -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        ("pytest -x tests/test_dates.py", ["pytest", "-x", "tests/test_dates.py"]),
        ("grep 'two words' \"a b.txt\"", ["grep", "two words", "a b.txt"]),
        ("echo a&&b", ["echo", "a&&b"]),
        ("echo $(rm -rf /)", ["echo", "$(rm", "-rf", "/)"]),
        ("echo 'a | b'", ["echo", "a | b"]),
    ],
    ids=["plain", "quotes", "operator-inside-token", "substitution-is-text", "quoted-pipe"],
)
def test_parse_command_splits_without_a_shell(text: str, argv: list[str]):
    assert parse_command(text) == argv


@pytest.mark.parametrize(
    "text",
    [
        "pytest && rm -rf x",
        "cat a | grep b",
        "ls ; ls",
        "cat a > b",
        "cat >> b",
        "cat < a",
        "sleep 1 &",
        "pytest || true",
        "pytest 2>&1",
    ],
)
def test_shell_operators_are_refused(text: str):
    with pytest.raises(BadCommand) as caught:
        parse_command(text)
    assert "run one command at a time" in caught.value.message.lower()
    assert caught.value.reason == "bad_command"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "echo 'unclosed",
            "The command cannot be parsed (No closing quotation): close every "
            "quote, or escape a lone quote with a backslash.",
        ),
        ("   ", "The command is empty: give a command line such as `pytest -x`."),
        (
            "pytest | tail",
            "Commands run without a shell, so '|' does not work. Run one command at "
            "a time, without pipes or redirections; output and errors are both returned.",
        ),
        (
            "cd tests",
            "Commands always run at the workspace root, so cd does not work: give "
            "paths relative to the root instead.",
        ),
        (
            "DEBUG=1 pytest",
            "Commands run without a shell, so a leading VAR=value does not set "
            "the environment: run the command alone.",
        ),
    ],
    ids=["unbalanced-quote", "empty", "pipe", "cd", "assignment"],
)
def test_parse_errors_tell_the_model_what_to_do(text: str, message: str):
    with pytest.raises(BadCommand) as caught:
        parse_command(text)
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("command", "allowed"),
    [
        ("python -m pytest -x tests/", True),
        ("python -m pytest", True),
        ("python script.py", False),
        ("python -m pip install x", False),
        ("pytest", True),
        ("/usr/bin/pytest", False),
        ("git status --short", True),
        ("git push", False),
        ("gitstatus", False),
        ("catalog", False),
    ],
)
def test_allowlist_matches_leading_tokens_exactly(command: str, allowed: bool):
    assert is_allowed(parse_command(command), DEFAULT_ALLOWLIST) is allowed


def test_command_environment_is_an_allowlist(tmp_path: Path):
    workspace, root = tmp_path / "work", tmp_path / "copy"
    (workspace / ".venv").mkdir(parents=True)
    (workspace / ".venv/pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "src").mkdir(parents=True)
    env = {
        "PATH": f"/usr/bin:{workspace}/tools/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "OPENAI_API_KEY": "sk",
        "DATABASE_URL": "postgres://u:pw@db/app",
        "SMTP_PASSWD": "p",
        "GH_PAT": "t",
        "NPM_CONFIG__AUTH": "a",
        "AWS_ACCESS_KEY_ID": "AKIA",
        "SLACK_WEBHOOK_URL": "https://hooks.example/x",
        "PYTHONPATH": "/elsewhere",
        "MY_TOOL_HOME": "/opt/tool",
    }
    built = command_environment(
        env, workspace=workspace, root=root, home=Path("/h"), tmp="/t", extra=["MY_TOOL_HOME"]
    )
    assert built == {
        "PATH": f"{root}/.venv/bin:/usr/bin:{root}/tools/bin",
        "VIRTUAL_ENV": f"{root}/.venv",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "MY_TOOL_HOME": "/opt/tool",
        "PYTHONPATH": f"{root}:{root}/src",
        "HOME": "/h",
        "TMPDIR": "/t",
        "PWD": str(root),
        "GIT_OPTIONAL_LOCKS": "0",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def test_truncate_keeps_the_head_and_the_tail():
    text = "".join(f"line {i}\n" for i in range(1000))
    marker = f"\n[... {len(text) - 100} characters cut ...]\n"
    assert truncate(text, 100) == text[:40] + marker + text[-60:]
    assert truncate("short\n", 100) == "short\n"


def test_output_buffer_keeps_the_same_text_when_fed_in_pieces():
    text = "".join(f"línea {i} 🎉\n" for i in range(500))
    buffer = OutputBuffer(300)
    for start in range(0, len(text), 7):
        buffer.add(text[start : start + 7])
    assert buffer.text() == truncate(text, 300)


# -- running in the shadow copy ---------------------------------------------------


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg/__init__.py").write_text("VALUE = 1\n")
    (root / "checks").mkdir()
    (root / "checks/show.py").write_text("import pkg\n\nprint('value', pkg.VALUE)\n")
    return root


@pytest.fixture
def runner(workspace: Path, sandbox: Sandbox) -> Iterator[ShadowRunner]:
    runner = ShadowRunner(Overlay(workspace), sandbox=sandbox)
    yield runner
    runner.close()


def run(runner: ShadowRunner, *argv: str, timeout: float = 30) -> CommandResult:
    return asyncio.run(runner.run(list(argv), timeout, SETTINGS))


def test_staged_edit_is_seen_by_the_command_and_the_disk_is_untouched(
    runner: ShadowRunner, workspace: Path
):
    assert runner.shadow is None  # made on the first command
    runner.overlay.stage("pkg/__init__.py", "VALUE = 2\n", "bump")
    result = run(runner, PY, "checks/show.py")  # imports pkg through PYTHONPATH, not its folder
    assert (result.exit_code, result.output) == (0, "value 2\n")
    assert (workspace / "pkg/__init__.py").read_text() == "VALUE = 1\n"
    assert run(runner, "cat", "pkg/__init__.py").output == "VALUE = 2\n"


def test_staged_deletion_and_disk_changes_between_commands(runner: ShadowRunner, workspace: Path):
    (workspace / "notes.txt").write_text("first\n")
    assert run(runner, "cat", "notes.txt").output == "first\n"
    (workspace / "notes.txt").write_text("second, longer\n")
    assert run(runner, "cat", "notes.txt").output == "second, longer\n"
    runner.overlay.stage("notes.txt", None, "remove")
    result = run(runner, "cat", "notes.txt")
    assert result.exit_code == 1
    assert "No such file" in result.output
    runner.overlay.discard("notes.txt")
    assert run(runner, "cat", "notes.txt").output == "second, longer\n"


def test_output_is_cut_in_the_middle(runner: ShadowRunner):
    code = "import sys\nfor i in range(5000): print(f'line {i}')\nprint('boom', file=sys.stderr)"
    result = run(runner, PY, "-c", code)
    assert result.output.startswith("line 0\nline 1\n")
    assert result.output.endswith("line 4999\nboom\n")
    assert "characters cut ...]\n" in result.output
    assert len(result.output) < 2_100


@pytest.mark.slow
def test_timeout_kills_the_whole_process_tree(runner: ShadowRunner):
    mark = marker()
    code = (
        "import subprocess, time\n"
        f"subprocess.Popen(['sleep', '{mark}'])\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )
    began = time.monotonic()
    result = run(runner, PY, "-c", code, timeout=1)
    assert (result.exit_code, result.output) == (None, "started\n")
    assert time.monotonic() - began < 15
    assert gone(mark)


def test_processes_left_behind_are_stopped_when_the_command_ends(runner: ShadowRunner):
    mark = marker()
    code = f"import subprocess\nsubprocess.Popen(['sleep', '{mark}'])\nprint('left')\n"
    began = time.monotonic()
    result = run(runner, PY, "-c", code)
    assert (result.exit_code, result.output) == (0, "left\n")
    assert time.monotonic() - began < 15
    assert gone(mark)


def test_only_allowlisted_variables_reach_commands(runner: ShadowRunner, monkeypatch):
    monkeypatch.setenv("SUREHAND_TEST_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "sk")
    monkeypatch.setenv("SUREHAND_TEST_PLAIN", "not passed either")
    monkeypatch.setenv("SUREHAND_TEST_ADDED", "passed")
    settings = SETTINGS.replace(
        command_environment=("SUREHAND_TEST_ADDED", "OPENAI_API_KEY"), api_key_env="OPENAI_API_KEY"
    )
    code = "import json, os; print(json.dumps(dict(os.environ)))"
    result = asyncio.run(runner.run([PY, "-c", code], 30, settings))
    env = json.loads(result.output)
    assert not {"SUREHAND_TEST_API_KEY", "OPENAI_API_KEY", "SUREHAND_TEST_PLAIN"} & set(env)
    assert env["SUREHAND_TEST_ADDED"] == "passed"  # the key's variable never, even when named
    assert env["PATH"]
    assert runner.shadow is not None
    assert env["PWD"] == str(runner.shadow.root)


def test_commands_run_at_the_copys_root_without_stdin(runner: ShadowRunner):
    result = run(
        runner, PY, "-c", "import os, sys; print(os.getcwd()); print(repr(sys.stdin.read()))"
    )
    assert runner.shadow is not None
    assert result.output == f"{runner.shadow.root}\n''\n"


def test_missing_executable_is_exit_code_127(runner: ShadowRunner):
    result = run(runner, "surehand-no-such-program", "-x")
    assert result.exit_code == 127
    assert result.output == (
        "surehand-no-such-program: command not found (it is not installed, or not on PATH)."
    )


def test_staged_change_in_a_linked_folder_is_noted(runner: ShadowRunner, workspace: Path):
    (workspace / "node_modules/dep").mkdir(parents=True)
    (workspace / "node_modules/dep/index.js").write_text("real\n")
    runner.overlay.stage("node_modules/dep/index.js", "staged\n", "patch a dependency")
    result = run(runner, "cat", "node_modules/dep/index.js")
    assert result.output == (
        "[not in the copy: node_modules/dep/index.js: staged inside a folder that is linked "
        "to the real one (or outside the workspace)]\nreal\n"
    )
    assert (workspace / "node_modules/dep/index.js").read_text() == "real\n"


def test_git_in_the_copy_shows_staged_changes_and_leaves_the_real_index(
    runner: ShadowRunner, workspace: Path
):
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *identity, *args], cwd=workspace, check=True)
    index = workspace / ".git/index"
    before = index.read_bytes(), index.stat().st_mtime_ns
    runner.overlay.stage("pkg/__init__.py", "VALUE = 2\n", "bump")
    result = run(runner, "git", "diff", "--", "pkg")
    assert "-VALUE = 1\n+VALUE = 2\n" in result.output
    assert run(runner, "git", "status", "--short", "--", "pkg").output == " M pkg/__init__.py\n"
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before


def test_close_keeps_a_copy_for_the_next_session_until_discarded(runner: ShadowRunner):
    run(runner, "ls")
    assert runner.shadow is not None
    root, kind = runner.shadow.root, runner.shadow.kind
    runner.close()
    assert runner.shadow is None
    assert root.exists() == (kind == "copy")  # an overlay is not kept
    discard_kept()
    assert not root.exists()


def test_cancelling_a_command_kills_its_processes(runner: ShadowRunner):
    mark = marker()

    async def start_then_cancel() -> None:
        task = asyncio.create_task(runner.run(["sleep", mark], 60, SETTINGS))
        deadline = time.monotonic() + 10
        while not running(mark) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert running(mark)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(start_then_cancel())
    assert gone(mark)


def test_a_command_cancelled_while_the_copy_is_made_leaves_it_to_the_next(runner: ShadowRunner):
    async def cancel_then_run() -> CommandResult:
        first = asyncio.create_task(runner.run(["cat", "pkg/__init__.py"], 30, SETTINGS))
        await asyncio.sleep(0)  # now waiting for the set-up thread
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        return await runner.run(["cat", "pkg/__init__.py"], 30, SETTINGS)

    assert asyncio.run(cancel_then_run()).output == "VALUE = 1\n"


def test_a_file_that_is_not_executable_is_exit_code_126(runner: ShadowRunner):
    result = run(runner, "./checks/show.py")
    assert (result.exit_code, result.output) == (
        126,
        "./checks/show.py: cannot be run (Permission denied).",
    )
