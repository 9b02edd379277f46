"""Command-line flags: one per setting (``maxSteps`` is ``--max-steps``), and ``--provider``.

Shared by ``run``, ``config`` and ``eval-tasks``. A flag not given leaves the
setting to the files, the environment or the default (see ``config_file``).
The API key has no flag (a command line is visible to every process); it is
read from the variable ``--api-key-env`` names.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

from agent.config.config_file import PROVIDERS, Effective, camel_case, effective_settings
from agent.config.settings import Settings

NO_FLAG = frozenset({"api_key"})

HELP = {
    "model": "model name at the endpoint (default: $SUREHAND_MODEL)",
    "base_url": "OpenAI-compatible endpoint, the openai package's default otherwise "
    "(default: $OPENAI_BASE_URL)",
    "api_key_env": "environment variable that holds the API key; the key itself is never "
    "logged or shown, and has no flag (default: OPENAI_API_KEY)",
    "max_steps": "model turns per task",
    "request_timeout": "seconds to the first byte of each answer",
    "stream_timeout": "seconds an answer may pause while it streams",
    "max_retries": "retries per model request",
    "command_timeout": "seconds a command may run",
    "command_allowlist": "a command that runs without asking, matched on its first words "
    "(e.g. 'python -m pytest'); repeat it; it replaces the list "
    "(default: tests and read-only commands)",
    "context_budget": "characters of conversation kept: past it old tool outputs are "
    "stubbed, then the oldest tasks removed",
    "view_max_lines": "lines per view_file",
    "max_file_bytes": "largest file read",
    "output_max_chars": "characters of command output kept (head and tail)",
    "trace_dir": "where traces go, under $XDG_STATE_HOME when it is set "
    "(default: ~/.local/state/surehand/traces)",
    "tool_timeout": "seconds any tool call but a command may take",
    "sandbox": "how commands are contained: auto (bubblewrap where it works, else none), "
    "bubblewrap, off; without a sandbox every command is asked first",
    "sandbox_network": "let sandboxed commands use the network",
    "sandbox_read_only_paths": "a folder (absolute path) sandboxed commands may read (repeat)",
    "sandbox_writable_paths": "a folder (absolute path) sandboxed commands may change (repeat)",
    "command_environment": "an environment variable commands get, never the key's (repeat)",
    "sandbox_processes": "processes and threads a sandboxed command may run at once",
    "sandbox_memory_mb": "MiB of memory one process of a sandboxed command may allocate",
    "sandbox_file_mb": "MiB: the largest file a sandboxed command may write",
    "sandbox_tmp_mb": "MiB of the sandbox's private /tmp (RAM-backed), and of /var/tmp",
    "sandbox_home_mb": "MiB of the sandbox's private HOME (RAM-backed)",
    "review": "how editors without their own review review a proposal: diagnostics "
    "(each hunk a diagnostic with code actions) or question (one Apply / Discard question)",
    "test_commands": "the project's test command, whose verdict a proposal carries "
    "(e.g. 'pytest -q'); repeat it (default: the test commands the model ran, else the ones "
    "the project's layout names)",
    "tests_before_review": "run the test commands (sandboxed, allowlisted) on the proposed "
    "change before it is offered, when their last run was on an earlier state",
    "tests_on_accepted": "when you reject some hunks, run the tests on what you accepted at "
    "once (run) or offer it (offer)",
}

# What a repeated flag's value is (``--sandbox-read-only-paths DIR``).
METAVARS = {
    "command_allowlist": "CMD",
    "sandbox_read_only_paths": "DIR",
    "sandbox_writable_paths": "DIR",
    "command_environment": "NAME",
    "test_commands": "CMD",
}

_TYPES: dict[str, Any] = {"str": str, "int": int, "float": float}


def flag_name(setting: str) -> str:
    """``max_steps`` -> ``--max-steps``."""
    return "--" + setting.replace("_", "-")


def add_endpoint_flags(parser: argparse.ArgumentParser) -> None:
    """The flags for every setting, ``--provider`` and ``--trust-project``."""
    group = parser.add_argument_group("settings (each also a config-file key)")
    group.add_argument(
        "--provider",
        choices=sorted(PROVIDERS),
        help="a preset endpoint: sets --base-url and --api-key-env",
    )
    group.add_argument(
        "--trust-project",
        action="store_true",
        help="let the project's .surehand.toml widen settings (the endpoint, the model, limits, "
        "the allowlist, the sandbox), not only narrow them",
    )
    for spec in fields(Settings):
        if spec.name in NO_FLAG:
            continue
        kind = str(spec.type)
        options: dict[str, Any] = {
            "dest": f"setting_{spec.name}",
            "help": HELP.get(spec.name, f"the setting {camel_case(spec.name)}"),
        }
        if kind == "bool":
            options["action"] = argparse.BooleanOptionalAction
        elif kind.startswith("tuple"):
            options.update(action="append", metavar=METAVARS.get(spec.name, "VALUE"))
        else:
            options.update(type=_TYPES.get(kind, str), metavar=kind.upper())
        group.add_argument(flag_name(spec.name), **options)


def flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the flags given set, as camelCase keys (``provider`` included)."""
    values: dict[str, Any] = {}
    for spec in fields(Settings):
        value = getattr(args, f"setting_{spec.name}", None)
        if value is not None:
            values[camel_case(spec.name)] = value
    if getattr(args, "provider", None):
        values["provider"] = args.provider
    return values


def effective_from_flags(args: argparse.Namespace, root: Path | None) -> Effective:
    return effective_settings(
        root,
        overrides=flag_values(args),
        overrides_origin="command line",
        trust=bool(getattr(args, "trust_project", False)),
    )


def settings_from_flags(
    args: argparse.Namespace, root: Path | None = None
) -> tuple[Settings, list[str]]:
    """The settings in force for ``root`` (None: no project file) with the flags on top."""
    effective = effective_from_flags(args, root)
    return effective.settings, effective.problems


def name_flags(message: str) -> str:
    """``message`` with setting names (``maxSteps``, "the setting 'model'") as flags."""
    for spec in fields(Settings):
        if spec.name in NO_FLAG:
            continue
        camel = camel_case(spec.name)
        message = message.replace(f"the setting '{camel}'", flag_name(spec.name))
        if "_" in spec.name:
            message = re.sub(rf"\b{camel}\b", flag_name(spec.name), message)
    return message
