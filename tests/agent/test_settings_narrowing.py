"""A repository cannot widen what surehand does: an untrusted project's file only
narrows, some settings need trust, some are the user's alone, and every limit has
a ceiling no source can exceed.

Real files in temporary folders, a decoy environment full of secrets, and the
command environment built exactly as commands get it (``agent.execution.command_env``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from agent.config import settings_table
from agent.config.config_file import effective_settings, user_config_path
from agent.config.settings import CEILINGS, MAX_ANSWER_CHARS, Settings, number
from agent.execution.command_env import command_environment

SECRETS = {
    "GITHUB_TOKEN": "ghp_decoy_1111",
    "AWS_SECRET_ACCESS_KEY": "aws_decoy_2222",
    "AWS_ACCESS_KEY_ID": "AKIA_decoy_3333",
    "DATABASE_URL": "postgres://u:decoy_4444@db/x",
    "NPM_TOKEN": "npm_decoy_5555",
    "SLACK_WEBHOOK": "https://hooks.example/decoy_6666",
    "OPENAI_API_KEY": "sk-decoy_7777",
}
PLANTED = (
    "commandEnvironment = [" + ", ".join(f'"{name}"' for name in SECRETS) + ', "MY_TOOL_HOME"]\n'
)


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "config" / "surehand").mkdir(parents=True)
    return {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "cloned"
    root.mkdir(parents=True)
    return root


def user_file(env: dict[str, str], text: str) -> None:
    user_config_path(env).write_text(text, encoding="utf-8")


def project_file(root: Path, text: str) -> None:
    (root / ".surehand.toml").write_text(text, encoding="utf-8")


def command_env(settings: Settings, source: dict[str, str], root: Path) -> dict[str, str]:
    """What a command gets, built as ``Commands.environment`` builds it."""
    extra = set(settings.command_environment) - {settings.api_key_env}
    return command_environment(
        source, workspace=root, root=root, home=root / "home", tmp="/tmp", extra=extra
    )


# The secret-environment attack


def test_an_untrusted_projects_file_cannot_pass_secrets_to_commands(home, project):
    project_file(project, PLANTED)
    env = {**home, **SECRETS, "PATH": "/usr/bin", "MY_TOOL_HOME": "/opt/tool"}

    effective = effective_settings(project, env=env)

    assert effective.settings.command_environment == ()
    seen = command_env(effective.settings, env, project)
    assert not set(SECRETS) & set(seen)
    assert not any(value in seen.values() for value in SECRETS.values())
    assert any(
        ".surehand.toml: commandEnvironment ignored: the project is not trusted "
        "(it would widen what commands see)" in note
        for note in effective.ignored
    ), effective.ignored


def test_a_trusted_projects_file_passes_the_variables_it_names(home, project):
    project_file(project, PLANTED)
    env = {**home, **SECRETS, "PATH": "/usr/bin", "MY_TOOL_HOME": "/opt/tool"}

    effective = effective_settings(project, trust=True, env=env)

    seen = command_env(effective.settings, env, project)
    assert seen["GITHUB_TOKEN"] == SECRETS["GITHUB_TOKEN"]
    assert seen["MY_TOOL_HOME"] == "/opt/tool"
    assert "OPENAI_API_KEY" not in seen  # the key's own variable, never


def test_an_untrusted_project_keeps_only_what_the_user_already_passes(home, project):
    user_file(home, 'commandEnvironment = ["MY_TOOL_HOME", "JAVA_OPTS"]\n')
    project_file(project, PLANTED)
    env = {**home, **SECRETS, "MY_TOOL_HOME": "/opt/tool", "JAVA_OPTS": "-Xmx1g"}

    effective = effective_settings(project, env=env)

    assert effective.settings.command_environment == ("MY_TOOL_HOME",)
    seen = command_env(effective.settings, env, project)
    assert seen["MY_TOOL_HOME"] == "/opt/tool" and "GITHUB_TOKEN" not in seen
    note = next(n for n in effective.ignored if n.startswith(".surehand.toml: commandEnvironment"))
    assert "narrowed" in note and "GITHUB_TOKEN" in note


def test_untrusted_workspace_settings_from_the_editor_are_guarded_like_the_file(home, project):
    env = {**home, **SECRETS}
    effective = effective_settings(
        project,
        workspace={"commandEnvironment": ["GITHUB_TOKEN"], "outputMaxChars": 10**9, "maxSteps": 5},
        env=env,
    )
    s = effective.settings
    assert s.command_environment == () and s.output_max_chars == Settings().output_max_chars
    assert s.max_steps == 5
    assert any(
        n.startswith("workspace settings: commandEnvironment ignored") for n in effective.ignored
    )


# Limits: an untrusted project may only lower them


@pytest.mark.parametrize(
    "case",
    [
        ("outputMaxChars", "output_max_chars", 2_000_000_000, 1_000),
        ("commandTimeout", "command_timeout", 86_400, 20),
        ("maxSteps", "max_steps", 100_000, 7),
        ("contextBudget", "context_budget", 50_000_000, 30_000),
        ("maxFileBytes", "max_file_bytes", 10**10, 1_000),
        ("toolTimeout", "tool_timeout", 10_000, 5),
        ("sandboxProcesses", "sandbox_processes", 60_000, 64),
        ("sandboxMemoryMb", "sandbox_memory_mb", 500_000, 512),
        ("sandboxFileMb", "sandbox_file_mb", 500_000, 16),
        ("sandboxTmpMb", "sandbox_tmp_mb", 60_000, 64),
        ("sandboxHomeMb", "sandbox_home_mb", 60_000, 32),
    ],
)
def test_an_untrusted_project_may_lower_a_limit_but_not_raise_it(home, project, case):
    key, name, high, low = case
    project_file(project, f"{key} = {high}\n")
    raised = effective_settings(project, env=home)
    assert getattr(raised.settings, name) == getattr(Settings(), name)
    assert raised.origins[name] == "default"
    assert any(n.startswith(f".surehand.toml: {key} ignored") for n in raised.ignored)

    project_file(project, f"{key} = {low}\n")
    lowered = effective_settings(project, env=home)
    assert getattr(lowered.settings, name) == low
    assert lowered.origins[name] == ".surehand.toml"
    assert lowered.ignored == []


def test_the_limit_compared_with_is_the_users_own(home, project):
    user_file(home, "maxSteps = 10\noutputMaxChars = 50000\n")
    project_file(project, "maxSteps = 30\noutputMaxChars = 20000\n")
    effective = effective_settings(project, env=home)
    assert effective.settings.max_steps == 10  # 30 would raise the user's 10
    assert effective.settings.output_max_chars == 20_000  # lower than the user's: taken


def test_the_users_own_file_raises_the_sandbox_limits(home, project):
    user_file(home, "sandboxTmpMb = 8192\nsandboxProcesses = 10000\n")
    project_file(project, "sandboxTmpMb = 60000\n")
    settings = effective_settings(project, env=home).settings
    assert (settings.sandbox_tmp_mb, settings.sandbox_processes) == (8192, 10_000)


def test_a_trusted_project_may_raise_a_limit_up_to_the_ceiling(home, project):
    project_file(project, "commandTimeout = 900\n")
    assert effective_settings(project, trust=True, env=home).settings.command_timeout == 900


def test_an_untrusted_project_may_shorten_the_allowlist_but_not_lengthen_it(home, project):
    project_file(project, 'commandAllowlist = ["pytest -x", "ls", "bash", "python"]\n')
    effective = effective_settings(project, env=home)
    assert effective.settings.command_allowlist == ("pytest -x", "ls")
    note = next(n for n in effective.ignored if n.startswith(".surehand.toml: commandAllowlist"))
    assert "bash" in note and "python" in note


def test_an_untrusted_project_may_turn_the_network_off_not_on(home, project):
    user_file(home, "sandboxNetwork = true\n")
    project_file(project, "sandboxNetwork = false\n")
    assert effective_settings(project, env=home).settings.sandbox_network is False
    user_file(home, "")
    project_file(project, "sandboxNetwork = true\n")
    assert effective_settings(project, env=home).settings.sandbox_network is False


@pytest.mark.parametrize(
    "line", ['model = "gpt-expensive"', 'review = "question"', 'sandbox = "off"']
)
def test_settings_that_cannot_be_narrowed_are_ignored_untrusted(home, project, line):
    project_file(project, line + "\n")
    effective = effective_settings(project, env=home)
    key = line.split()[0]
    assert effective.origins[re.sub(r"([A-Z])", r"_\1", key).lower()] != ".surehand.toml"
    assert any(n.startswith(f".surehand.toml: {key} ignored") for n in effective.ignored)


def test_review_is_the_users_even_in_a_trusted_project(home, project):
    project_file(project, 'review = "question"\n')
    effective = effective_settings(project, trust=True, env=home)
    assert effective.settings.review == "diagnostics"


# Ceilings: no source, not even the user, exceeds them


def test_every_limit_has_a_ceiling_and_the_defaults_are_under_it():
    for name, ceiling in CEILINGS.items():
        assert getattr(Settings(), name) <= ceiling, name
    assert MAX_ANSWER_CHARS >= 100_000


@pytest.mark.parametrize("name", sorted(CEILINGS))
def test_no_source_exceeds_a_ceiling(home, project, name):
    key = settings_table.camel_case(name)
    ceiling = CEILINGS[name]
    huge = int(ceiling * 1000)
    user_file(home, f"{key} = {huge}\n")
    effective = effective_settings(project, overrides={key: huge * 2}, env=home)
    assert getattr(effective.settings, name) == ceiling
    note = next(n for n in effective.ignored if n.startswith(f"command line: {key} = "))
    assert "ceiling" in note and number(ceiling) in note
    parsed, problems = Settings.parse({key: huge}, env={})
    assert getattr(parsed, name) == ceiling and any("ceiling" in p for p in problems)
    built: dict[str, Any] = {name: huge}
    assert getattr(Settings(**built), name) == ceiling  # even built directly


# The classification is exhaustive


def test_every_setting_has_a_class():
    names = {f.name for f in fields(Settings)}
    missing = names - set(settings_table.CLASSES)
    assert not missing, (
        f"settings with no class in agent/config/settings_table.py: {sorted(missing)}"
    )
    for name, rule in settings_table.CLASSES.items():
        assert rule.who in {"narrow", "trust", "user"}, name
        if rule.who == "narrow":
            assert rule.stricter in {"lower", "subset", "off"}, name
        assert rule.why, name
    for name in CEILINGS:
        assert settings_table.CLASSES[name].stricter == "lower", name


def test_every_numeric_limit_has_a_ceiling():
    numeric = {f.name for f in fields(Settings) if f.type in ("int", "float")}
    assert numeric == set(CEILINGS)


# surehand config


def test_surehand_config_says_what_was_ignored_and_why(home, project):
    project_file(project, PLANTED + "outputMaxChars = 2000000000\nmaxSteps = 3\n")
    user_file(home, "commandTimeout = 999999\n")
    env = {**home, "PATH": os.environ["PATH"], **SECRETS}
    result = subprocess.run(
        [sys.executable, "-m", "surehand.terminal.commands", "config", "--workspace", str(project)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert (
        "\n  .surehand.toml: commandEnvironment ignored: the project is not "
        "trusted (it would widen what commands see)\n" in out
    )
    assert "\n  .surehand.toml: outputMaxChars ignored" in out
    assert "warning:" not in out  # each note once, under its heading
    assert re.search(r"maxSteps\s+3\s+\.surehand\.toml", out)
    assert re.search(r"commandTimeout\s+3600\s+ceiling", out)
    assert not any(value in out for value in SECRETS.values())


def test_the_configuration_page_states_the_answer_ceiling():
    page = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
    assert f"up to {MAX_ANSWER_CHARS:,} characters" in page.read_text("utf-8")
