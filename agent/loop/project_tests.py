"""Which commands are a project's tests: configured, run by the model, or found in its layout.

The verdict a proposal carries (``agent.checks.verdicts``) is the result of these
commands. In order of say: the ``testCommands`` setting; else the test
commands the model ran during the task (a command is a test command when
it starts the way a test runner is started: ``pytest``, ``npm test``,
``cargo test`` ...); else what the project's layout names: a ``test``
script in ``package.json``, ``Cargo.toml``, ``go.mod``, a Makefile with a
``test`` target, pytest's configuration or test files (``unittest`` when the test files use
only that and the project has no virtualenv to hold pytest).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path

from agent.config.command_line import is_allowed
from agent.execution.command_env import VENV_NAMES

# How test runners are started: argv prefixes, matched token by token.
TEST_RUNNERS = (
    "pytest",
    "py.test",
    "python -m pytest",
    "python3 -m pytest",
    "python -m unittest",
    "python3 -m unittest",
    "tox",
    "nox",
    "npm test",
    "npm t",
    "npm run test",
    "yarn test",
    "yarn run test",
    "pnpm test",
    "pnpm run test",
    "bun test",
    "node --test",
    "npx jest",
    "npx vitest",
    "npx mocha",
    "jest",
    "vitest",
    "mocha",
    "deno test",
    "cargo test",
    "cargo nextest",
    "go test",
    "make test",
    "make check",
    "ctest",
    "rspec",
    "bundle exec rspec",
    "bundle exec rake test",
    "phpunit",
    "mvn test",
    "gradle test",
    "./gradlew test",
    "dotnet test",
    "mix test",
)
NPM_PLACEHOLDER = "no test specified"  # ``npm init``'s test script, which only fails
_MAKE_TEST_TARGET = re.compile(r"^test\s*:(?!=)", re.MULTILINE)
_PYTEST_CONFIG = ("pytest.ini", "conftest.py")
_PYTEST_SECTIONS = {
    "pyproject.toml": "[tool.pytest",
    "setup.cfg": "[tool:pytest]",
    "tox.ini": "[pytest]",
}


def is_test_command(argv: Sequence[str]) -> bool:
    """Whether ``argv`` starts a test runner (``pytest -q tests/``, ``npm test``, ...)."""
    return bool(argv) and is_allowed(argv, TEST_RUNNERS)


def project_commands(
    configured: Iterable[str], ran: Iterable[Sequence[str]], root: Path
) -> list[tuple[str, ...]]:
    """The project's test commands, by the order of say above (each once, in order)."""
    chosen: list[tuple[str, ...]] = []
    for command in configured:
        argv = tuple(shlex.split(command))
        if argv:
            chosen.append(argv)
    if not chosen:
        chosen = [tuple(argv) for argv in ran if is_test_command(argv)]
    if not chosen:
        chosen = found_in(root)
    return list(dict.fromkeys(chosen))


def found_in(root: Path) -> list[tuple[str, ...]]:
    """The test commands the layout at ``root`` names (none when it names none)."""
    found: list[tuple[str, ...]] = []
    python = _python_tests(root)
    if python is not None:
        found.append(python)
    script = _npm_test_script(root / "package.json")
    if script and NPM_PLACEHOLDER not in script:
        found.append(("npm", "test"))
    if (root / "Cargo.toml").is_file():
        found.append(("cargo", "test"))
    if (root / "go.mod").is_file():
        found.append(("go", "test", "./..."))
    for name in ("GNUmakefile", "makefile", "Makefile"):
        if _MAKE_TEST_TARGET.search(_read(root / name)):
            found.append(("make", "test"))
            break
    return found


def _python_tests(root: Path) -> tuple[str, ...] | None:
    """pytest where the project configures it, has a virtualenv, or its tests use it;
    ``unittest`` where its test files use only that; None without Python tests."""
    pytest = ("python3", "-m", "pytest", "-q")
    if any((root / name).is_file() for name in _PYTEST_CONFIG):
        return pytest
    if any(section in _read(root / name) for name, section in _PYTEST_SECTIONS.items()):
        return pytest
    files = [
        entry
        for folder in (root, root / "tests", root / "test")
        if folder.is_dir()
        for entry in _entries(folder)
        if entry.name.startswith("test_") and entry.name.endswith(".py")
    ]
    if not files:
        return None
    venv = any((root / name / "pyvenv.cfg").is_file() for name in VENV_NAMES)
    heads = [_read(path)[:4096] for path in files[:20]]
    if venv or any("pytest" in head for head in heads):
        return pytest
    if all("unittest" in head for head in heads):
        return ("python3", "-m", "unittest")
    return pytest


def _npm_test_script(path: Path) -> str:
    try:
        scripts = json.loads(_read(path) or "{}").get("scripts") or {}
    except (ValueError, AttributeError):
        return ""
    test = scripts.get("test") if isinstance(scripts, dict) else None
    return test if isinstance(test, str) else ""


def _entries(folder: Path) -> list[Path]:
    try:
        return [entry for entry in folder.iterdir() if entry.is_file()][:1000]
    except OSError:
        return []


def _read(path: Path, limit: int = 1_000_000) -> str:
    try:
        if not path.is_file() or path.stat().st_size > limit:
            return ""
        return path.read_text("utf-8", errors="replace")
    except OSError:
        return ""
