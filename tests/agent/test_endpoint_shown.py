"""The endpoint a task really sends to, named with why by ``surehand config`` and ``surehand run``.

What is said is held to the client itself (the URL it was made with, the key
it sends), the default included; a variable in the environment that
overrides your own file is a warning naming both; the key is never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent.config.endpoint import OPENAI_DEFAULT_URL, resolve_endpoint
from agent.config.flags import add_endpoint_flags, effective_from_flags
from agent.models.openai_client import NO_KEY, OpenAIClient
from surehand.terminal import commands as cli
from tests.support.openai_server import Call, Request, ScriptedServer, Turn

USER_FILE = "~/.config/surehand/config.toml"
OLLAMA_HIDDEN = (
    'warning: OPENAI_BASE_URL in the environment overrides provider "ollama" in '
    f"{USER_FILE}; unset it or pass --base-url"
)
CLIENT_VARIABLES = (
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "SUREHAND_MODEL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_CUSTOM_HEADERS",
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own with an empty config folder, and no endpoint variables."""
    home = tmp_path / "home"
    (home / ".config" / "surehand").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for name in CLIENT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    return root


def user_file(home: Path, text: str) -> None:
    (home / ".config" / "surehand" / "config.toml").write_text(text, encoding="utf-8")


def config(project: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> list[str]:
    """``surehand config``'s lines."""
    assert cli.main(["config", "--workspace", str(project), *flags]) == 0
    return capsys.readouterr().out.splitlines()


# What is said is what the client does


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_endpoint_flags(parser)
    return parser.parse_args(argv)


@dataclass(frozen=True)
class Case:
    file: str  # the user's config file
    env: dict[str, str]
    flags: tuple[str, ...]
    url: str | None  # the URL expected, when the case pins it
    key: str  # the key the client sends


CASES = {
    "nothing set": Case("", {}, (), OPENAI_DEFAULT_URL, "sk-env-1"),
    "OPENAI_BASE_URL": Case("", {"OPENAI_BASE_URL": "http://env.example/v1"}, (), None, "sk-env-1"),
    "provider in the user file": Case('provider = "ollama"\n', {}, (), None, NO_KEY),
    "the flag over everything": Case(
        'provider = "ollama"\n',
        {"OPENAI_BASE_URL": "http://env.example/v1"},
        ("--base-url", "http://flag.example/v1"),
        "http://flag.example/v1",
        NO_KEY,  # the file's preset still names no key variable
    ),
    "an empty --base-url leaves it to the client": Case(
        "",
        {"OPENAI_BASE_URL": "http://env.example/v1"},
        ("--base-url", ""),
        "http://env.example/v1",
        "sk-env-1",
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_the_endpoint_said_is_the_one_the_client_sends_to_with_the_key_said(
    home: Path, project: Path, monkeypatch: pytest.MonkeyPatch, case: Case
):
    user_file(home, case.file)
    for name, value in {**case.env, "OPENAI_API_KEY": "sk-env-1"}.items():
        monkeypatch.setenv(name, value)
    effective = effective_from_flags(parse(*case.flags, "--model", "m"), project)

    endpoint = resolve_endpoint(effective)

    client = OpenAIClient(effective.settings)
    try:
        assert endpoint.url == client.endpoint.rstrip("/")
        assert client._client.api_key == case.key  # what the key line says is what is sent
    finally:
        asyncio.run(client.close())
    if case.url is not None:
        assert endpoint.url == case.url
    said = {"sk-env-1": "$OPENAI_API_KEY (set; not shown)", NO_KEY: "none (no apiKeyEnv)"}
    assert endpoint.key == said[case.key]
    assert "sk-env-1" not in endpoint.line() + "".join(endpoint.notes())


# surehand config


def test_config_with_nothing_set_names_the_openai_default_and_the_key_variable(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-shown-314")
    lines = config(project, capsys)
    assert lines[1] == (
        "Endpoint https://api.openai.com/v1 from the openai package's default: no baseUrl is "
        "set · model (not set) from default · key $OPENAI_API_KEY (set; not shown) from default"
    )
    assert not any(line.startswith("warning:") for line in lines)
    base_url = next(line for line in lines if line.startswith("baseUrl "))
    assert base_url.split()[1] == "https://api.openai.com/v1"
    assert base_url.endswith("the openai package's default: no baseUrl is set")
    assert "sk-never-shown-314" not in "\n".join(lines)


def test_config_names_a_provider_preset_in_the_user_file(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch
):
    user_file(home, 'provider = "ollama"\nmodel = "qwen2.5-coder:7b"\n')
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-shown-314")
    lines = config(project, capsys)
    assert lines[1] == (
        f"Endpoint http://localhost:11434/v1 from {USER_FILE} (provider ollama) · model "
        f"qwen2.5-coder:7b from {USER_FILE} · key none (no apiKeyEnv) from {USER_FILE} "
        "(provider ollama)"
    )
    assert not any(line.startswith("warning:") for line in lines)
    assert "sk-never-shown-314" not in "\n".join(lines)


def test_config_warns_when_the_environment_overrides_the_users_file(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch
):
    user_file(home, 'provider = "ollama"\nmodel = "qwen2.5-coder:7b"\n')
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    monkeypatch.setenv("SUREHAND_MODEL", "gpt-4o")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-shown-314")
    lines = config(project, capsys)
    assert lines[1].startswith(
        "Endpoint https://api.openai.com/v1 from environment (OPENAI_BASE_URL) · model gpt-4o "
        "from environment (SUREHAND_MODEL) · "
    )
    assert lines[2:4] == [
        OLLAMA_HIDDEN,
        'warning: SUREHAND_MODEL in the environment overrides model "qwen2.5-coder:7b" in '
        f"{USER_FILE}; unset it or pass --model",
    ]
    assert "sk-never-shown-314" not in "\n".join(lines)


def test_config_names_a_base_url_of_the_file_that_the_environment_overrides(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch
):
    user_file(home, 'baseUrl = "http://gpu-box:8000/v1"\n')
    monkeypatch.setenv("OPENAI_BASE_URL", "http://other:8000/v1")
    assert config(project, capsys)[2] == (
        'warning: OPENAI_BASE_URL in the environment overrides baseUrl "http://gpu-box:8000/v1" '
        f"in {USER_FILE}; unset it or pass --base-url"
    )


def test_config_does_not_warn_when_the_environment_says_what_the_file_says(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch
):
    user_file(home, 'provider = "ollama"\nmodel = "qwen2.5-coder:7b"\n')
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    monkeypatch.setenv("SUREHAND_MODEL", "qwen2.5-coder:7b")
    lines = config(project, capsys)
    assert lines[1].startswith("Endpoint http://localhost:11434/v1 from environment")
    assert not any(line.startswith("warning:") for line in lines)


def test_config_with_a_flag_over_everything_warns_of_nothing(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch
):
    user_file(home, 'provider = "ollama"\napiKey = "sk-in-the-file-271"\n')
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    monkeypatch.setenv("SUREHAND_MODEL", "gpt-4o")
    lines = config(project, capsys, "--base-url", "http://flag.example/v1", "--model", "mine")
    assert lines[1] == (
        "Endpoint http://flag.example/v1 from command line · model mine from command line · "
        f"key apiKey, given directly (not shown) from {USER_FILE}"
    )
    assert not any(line.startswith("warning:") for line in lines)
    assert "sk-in-the-file-271" not in "\n".join(lines)


def test_config_says_what_else_the_openai_client_sends_by_header_name_only(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch
):
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_CUSTOM_HEADERS", "X-Team: blue\nAuthorization: Bearer sk-hdr-9")
    lines = config(project, capsys)
    assert lines[2] == (
        "also sent by the openai client: OpenAI-Organization ($OPENAI_ORG_ID); the headers in "
        "$OPENAI_CUSTOM_HEADERS (X-Team, Authorization)"
    )
    assert "sk-hdr-9" not in "\n".join(lines)


# surehand run, as a real process against a scripted server


class WatchingServer(ScriptedServer):
    """A scripted server that keeps what the command had printed when each request came."""

    def __init__(self, printed: Path) -> None:
        super().__init__(replies=[Turn(tool_calls=[Call("finish", {"summary": "nothing to do"})])])
        self.printed = printed
        self.printed_then: list[str] = []

    def _record(self, request: Request) -> int:
        self.printed_then.append(self.printed.read_text("utf-8"))
        return super()._record(request)


def surehand_run(
    project: Path, printed: Path, env: dict[str, str], *flags: str
) -> subprocess.CompletedProcess[str]:
    home = project.parent / "home"
    base = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(project.parent / "state"),
        "NO_COLOR": "1",
    }
    argv = [
        sys.executable,
        "-m",
        "surehand.terminal.commands",
        "run",
        "Tidy up.",
        "--workspace",
        str(project),
    ]
    with printed.open("w", encoding="utf-8") as out:
        return subprocess.run(
            [*argv, *flags],
            stdout=out,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=base | env,
            timeout=120,
            check=False,
        )


def authorization(request: Request) -> str:
    return request.headers.get("authorization", "")


@pytest.mark.slow
def test_run_names_the_endpoint_and_the_warning_before_the_first_request(
    home: Path, project: Path, tmp_path: Path
):
    user_file(home, 'provider = "ollama"\nmodel = "scripted"\n')
    printed = tmp_path / "printed.txt"
    with WatchingServer(printed) as server:
        done = surehand_run(project, printed, {"OPENAI_BASE_URL": server.base_url})

    assert done.returncode == 0, printed.read_text("utf-8") + done.stderr
    line = (
        f"Endpoint {server.base_url} from environment (OPENAI_BASE_URL) · model scripted from "
        f"{USER_FILE} · key none (no apiKeyEnv) from {USER_FILE} (provider ollama)"
    )
    first = server.printed_then[0].splitlines()
    assert line in first and OLLAMA_HIDDEN in first  # both said before anything was sent
    assert first.index(line) + 1 == first.index(OLLAMA_HIDDEN)
    assert authorization(server.completions[0]) == f"Bearer {NO_KEY}"  # as the line says


@pytest.mark.slow
def test_run_with_flags_over_everything_names_them_and_never_the_key(
    home: Path, project: Path, tmp_path: Path
):
    user_file(home, 'provider = "ollama"\nmodel = "other"\n')
    printed = tmp_path / "printed.txt"
    env = {
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "SUREHAND_MODEL": "wrong",
        "SUREHAND_TEST_KEY": "sk-flag-secret-123",
    }
    with WatchingServer(printed) as server:
        flags = ("--base-url", server.base_url, "--model", server.model)
        done = surehand_run(project, printed, env, *flags, "--api-key-env", "SUREHAND_TEST_KEY")

    shown = printed.read_text("utf-8")
    assert done.returncode == 0, shown + done.stderr
    line = (
        f"Endpoint {server.base_url} from command line · model scripted from command line · "
        "key $SUREHAND_TEST_KEY (set; not shown) from command line"
    )
    assert line in server.printed_then[0].splitlines()
    assert "warning:" not in shown
    assert "sk-flag-secret-123" not in shown + done.stderr
    assert authorization(server.completions[0]) == "Bearer sk-flag-secret-123"


@pytest.mark.slow
def test_run_with_nothing_set_names_the_openai_default_before_refusing(
    home: Path, project: Path, tmp_path: Path
):
    printed = tmp_path / "printed.txt"
    done = surehand_run(project, printed, {}, "--model", "m")
    shown = printed.read_text("utf-8")
    assert done.returncode == 2
    lines = shown.splitlines()
    endpoint = lines.index(
        "Endpoint https://api.openai.com/v1 from the openai package's default: no baseUrl is "
        "set · model m from command line · key none ($OPENAI_API_KEY is not set) from default"
    )
    assert lines[endpoint + 1].startswith("surehand: No API key: set the environment variable")
