"""The run_command tool: texts the model sees, the allowlist and the user's approval."""

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.config.command_line import BadCommand
from agent.config.settings import Settings
from agent.execution.runner import ShadowRunner
from agent.staging.workspace import Overlay
from agent.tools import run_command
from agent.tools.base import ToolResult
from agent.tools.context import Approval, CommandRequest, ToolContext
from agent.tools.run_command import CommandDeclined, CommandsUnavailable, OutsideWorkspace
from tests.agent.sandboxes import NONE, PYTHON, bubblewrap

PY = PYTHON
TOOL = run_command.TOOL


class Approver:
    """Answers every question with ``answer`` and remembers what was asked."""

    def __init__(self, answer: Approval) -> None:
        self.answer = answer
        self.requests: list[CommandRequest] = []

    @property
    def asked(self) -> list[list[str]]:
        return [request.argv for request in self.requests]

    async def __call__(self, request: CommandRequest) -> Approval:
        self.requests.append(request)
        return self.answer


def context(root: Path, sandboxed: bool) -> ToolContext:
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    overlay = Overlay(root)
    settings = Settings(command_allowlist=("cat", f"{PY} -c", "git diff"), command_timeout=30)
    runner = ShadowRunner(overlay, sandbox=bubblewrap() if sandboxed else NONE)
    return ToolContext(overlay, settings, runner=runner)


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[ToolContext]:
    """A context whose commands run in bubblewrap."""
    ctx = context(tmp_path, sandboxed=True)
    runner = ctx.runner
    assert runner is not None
    yield ctx
    runner.close()


@pytest.fixture
def bare(tmp_path: Path) -> Iterator[ToolContext]:
    """A context with no sandbox."""
    ctx = context(tmp_path, sandboxed=False)
    yield ctx
    assert ctx.runner is not None
    ctx.runner.close()


def run(ctx: ToolContext, command: str, timeout: int | None = None) -> ToolResult:
    return asyncio.run(TOOL.run({"command": command, "timeout": timeout}, ctx))


def test_allowed_command_sees_the_staged_text(ctx: ToolContext):
    ctx.overlay.stage("calc.py", "def add(a, b):\n    return a + b\n", "fix add")
    result = run(ctx, "cat calc.py")
    assert result.text == "$ cat calc.py\ndef add(a, b):\n    return a + b\n[exit code 0]"
    assert result.summary == "cat: return a + b"


def test_failing_command_shows_its_exit_code_and_last_line(ctx: ToolContext):
    result = run(ctx, f"{PY} -c 'import sys; print(\"== 1 failed in 0.1s ==\"); sys.exit(3)'")
    assert result.text.endswith("\n== 1 failed in 0.1s ==\n[exit code 3]")
    assert result.summary == f"{PY}: 1 failed in 0.1s"


def test_command_without_output(ctx: ToolContext):
    result = run(ctx, f"{PY} -c pass")
    assert result.text == f"$ {PY} -c pass\n[exit code 0]"
    assert result.summary == f"{PY}: exit code 0"


@pytest.mark.slow
def test_timeout_is_capped_by_the_settings(ctx: ToolContext):
    ctx.settings = ctx.settings.replace(command_timeout=1.0)
    result = run(ctx, f"{PY} -c 'import time; time.sleep(30)'", timeout=600)
    assert result.text.endswith("\n[stopped after 1 s: timeout]")
    assert result.summary == f"{PY}: timed out"


def test_allowlisted_command_does_not_ask(ctx: ToolContext):
    ctx.approve = Approver(Approval.DENY)
    run(ctx, "cat calc.py")
    assert ctx.approve.asked == []


def test_approved_once_runs_and_asks_again_next_time(ctx: ToolContext):
    ctx.approve = Approver(Approval.ONCE)
    assert run(ctx, "echo hello").text == "$ echo hello\nhello\n[exit code 0]"
    run(ctx, "echo hello")
    assert ctx.approve.asked == [["echo", "hello"], ["echo", "hello"]]
    assert ctx.always_allowed == set()


def test_approved_always_runs_and_is_not_asked_again(ctx: ToolContext):
    ctx.approve = Approver(Approval.ALWAYS)
    run(ctx, "echo hello")
    assert run(ctx, "echo hello").summary == "echo: hello"
    assert ctx.approve.asked == [["echo", "hello"]]
    assert ctx.always_allowed == {("echo", "hello")}
    run(ctx, "echo other")  # only that exact command
    assert ctx.approve.asked[-1] == ["echo", "other"]


def test_declined_command_does_not_run(ctx: ToolContext):
    ctx.approve = Approver(Approval.DENY)
    with pytest.raises(CommandDeclined) as caught:
        run(ctx, "touch 'new file'")
    assert caught.value.message == (
        "The user declined to run `touch 'new file'`. Continue without it, or ask the user "
        "to run it and tell you the result."
    )
    assert caught.value.reason == "declined"
    assert isinstance(ctx.runner, ShadowRunner)
    assert ctx.runner.shadow is None  # nothing ran: the copy was never made


def test_shell_operators_are_refused_before_asking(ctx: ToolContext):
    ctx.approve = Approver(Approval.ALWAYS)
    with pytest.raises(BadCommand) as caught:
        run(ctx, "pytest -x && rm -rf build")
    assert caught.value.message.startswith("Commands run without a shell, so '&&' does not work.")
    assert ctx.approve.asked == []


def test_without_a_runner_commands_cannot_run(ctx: ToolContext):
    ctx.runner = None
    with pytest.raises(CommandsUnavailable) as caught:
        run(ctx, "cat calc.py")
    assert caught.value.message == (
        "Commands cannot run here (there is no workspace copy to run them in); "
        "continue without running it."
    )


def test_describe_and_spec():
    assert TOOL.describe({"command": "pytest -x", "timeout": None}) == "Running pytest -x"
    long = TOOL.describe({"command": "pytest " + "tests/test_a_very_long_name.py " * 3})
    assert long == "Running pytest tests/test_a_very_long_name.py t…"
    params = TOOL.spec.parameters
    assert TOOL.spec.name == "run_command"
    assert params["additionalProperties"] is False
    assert params["required"] == list(params["properties"]) == ["command", "timeout"]
    assert params["properties"]["timeout"]["type"] == ["integer", "null"]
    assert 2 <= TOOL.spec.description.count(". ") + 1 <= 4


def test_the_question_says_why_and_how_contained(ctx: ToolContext):
    ctx.approve = Approver(Approval.DENY)
    with pytest.raises(CommandDeclined):
        run(ctx, "make build")
    (request,) = ctx.approve.requests
    assert (request.sandboxed, request.may_always) == (True, True)
    assert request.question().startswith(
        "surehand wants to run `make build` (it is not on the allowlist). It would run in a "
        "copy of the workspace, sandboxed (bubblewrap"
    )
    assert "no network" in request.question()


def test_a_reading_command_with_a_writing_option_is_asked(ctx: ToolContext):
    ctx.approve = Approver(Approval.DENY)
    with pytest.raises(CommandDeclined):
        run(ctx, "git diff --output=/tmp/anything")
    assert ctx.approve.requests[0].why == "--output=/tmp/anything makes it write a file"


def test_without_a_sandbox_every_command_is_asked_and_never_always(bare: ToolContext):
    bare.approve = Approver(Approval.ALWAYS)
    assert run(bare, "cat calc.py").text.endswith("return a - b\n[exit code 0]")
    run(bare, "cat calc.py")
    assert bare.approve.asked == [["cat", "calc.py"], ["cat", "calc.py"]]
    assert bare.always_allowed == set()
    request = bare.approve.requests[0]
    assert (request.sandboxed, request.may_always) == (False, False)
    assert request.question() == (
        "surehand wants to run `cat calc.py` (there is no sandbox: turned off for this test). "
        "It would run in a copy of the workspace, unsandboxed (turned off for this test), "
        "with your user's rights: it can read your files and secrets, use the network and "
        "change files outside the copy."
    )


@pytest.mark.parametrize(
    "command",
    [
        "cat /etc/hostname",
        "cat ../outside.txt",
        "head -n 3 ~/.netrc",
        "git diff --no-index /etc/hostname calc.py",
        "ls link-out",
    ],
)
def test_without_a_sandbox_reading_outside_the_workspace_is_refused(
    bare: ToolContext, command: str
):
    (bare.overlay.root / "link-out").symlink_to("/etc")
    bare.approve = Approver(Approval.ONCE)
    with pytest.raises(OutsideWorkspace) as caught:
        run(bare, command)
    assert "outside the workspace" in caught.value.message
    assert caught.value.reason == "outside_workspace"
    assert bare.approve.asked == []  # refused before asking
