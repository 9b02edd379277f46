"""A setting exists once, in ``agent.config.settings.Settings``; everything that lists it agrees.

The VS Code extension declares each one in its ``package.json`` (with the
same default) and passes it on by name (``SERVER_KEYS`` in
``client-vscode/src/settings.ts``). A setting added to the dataclass and
forgotten there would silently never reach the server from VS Code. The
settings table of ``docs/configuration.md`` is made from the dataclass and
``agent.config.flags.HELP`` (``python -m agent.config.settings_table --write
docs/configuration.md``), and must be the table made now.
"""

from __future__ import annotations

import json
import re
from dataclasses import MISSING, fields
from pathlib import Path

import pytest

from agent.config import settings_table
from agent.config.config_file import camel_case
from agent.config.flags import HELP, NO_FLAG
from agent.config.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
EXTENSION = ROOT / "client-vscode"
NOT_IN_THE_EDITOR = {"apiKey"}  # kept in VS Code's secret storage, never in settings
DEFAULT_ELSEWHERE = {
    "model": "",  # empty: the server's environment decides
    "baseUrl": "",
    "traceDir": "",
    "commandAllowlist": None,  # null: the server's own list
}


def _settings() -> dict[str, object]:
    found = {}
    for spec in fields(Settings):
        key = camel_case(spec.name)
        if key in NOT_IN_THE_EDITOR:
            continue
        default = spec.default
        if default is MISSING:
            assert callable(spec.default_factory), spec.name
            default = spec.default_factory()
        found[key] = list(default) if isinstance(default, tuple) else default
    return found


SETTINGS = _settings()


def _contributed() -> dict[str, dict]:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    properties = manifest["contributes"]["configuration"]["properties"]
    return {key.removeprefix("surehand."): value for key, value in properties.items()}


def _server_keys() -> list[str]:
    source = (EXTENSION / "src/settings.ts").read_text(encoding="utf-8")
    block = re.search(r"SERVER_KEYS = \[(.*?)\] as const", source, re.S)
    assert block, "SERVER_KEYS not found in client-vscode/src/settings.ts"
    return re.findall(r"'(\w+)'", block.group(1))


def test_every_setting_is_passed_on_by_the_extension():
    assert sorted(_server_keys()) == sorted(SETTINGS)


@pytest.mark.parametrize("key", sorted(SETTINGS))
def test_every_setting_is_declared_with_the_servers_default(key: str):
    declared = _contributed()
    assert key in declared, f"surehand.{key} is missing from client-vscode/package.json"
    expected = DEFAULT_ELSEWHERE.get(key, SETTINGS[key])
    assert declared[key].get("default") == expected, (
        f"surehand.{key}: package.json says {declared[key].get('default')!r}, "
        f"the server {expected!r}"
    )


def test_the_extension_has_the_servers_version():
    """The version is written once, in ``lsp_server/__init__.py`` (pyproject reads it);
    the extension's manifest must say the same."""
    from importlib.metadata import version

    from lsp_server import __version__

    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    assert manifest["version"] == __version__ == version("surehand")


def test_every_setting_with_a_flag_has_its_help_text():
    assert sorted(HELP) == sorted(f.name for f in fields(Settings) if f.name not in NO_FLAG)


def test_the_pages_table_is_the_one_the_settings_make():
    page = (ROOT / settings_table.PAGE).read_text(encoding="utf-8")
    assert settings_table.in_page(page) == settings_table.table(), (
        f"{settings_table.PAGE}'s settings table is out of date: run "
        f"`python -m agent.config.settings_table --write {settings_table.PAGE}`"
    )


def test_the_table_has_a_row_per_setting_with_its_default():
    rows = [line.split(" | ") for line in settings_table.table().splitlines()[2:]]
    keys = [row[0].removeprefix("| ").strip("`") for row in rows]
    assert keys == [camel_case(f.name) for f in fields(Settings) if f.name not in NO_FLAG]
    defaults = {key: row[2] for key, row in zip(keys, rows, strict=True)}
    assert defaults["maxSteps"] == str(Settings().max_steps)
    assert defaults["requestTimeout"] == "60"
    assert defaults["sandboxNetwork"] == "`false`"
    assert defaults["model"] == "`$SUREHAND_MODEL`"  # named in the help, not the dataclass's ""
    assert defaults["commandAllowlist"] == "tests and read-only commands"


def test_writing_the_table_changes_only_the_table(tmp_path: Path):
    page = tmp_path / "configuration.md"
    stale = f"# x\n\nbefore\n\n{settings_table.BEGIN}\n| old |\n{settings_table.END}\n\nafter\n"
    page.write_text(stale, encoding="utf-8")
    assert settings_table.main(["--write", str(page)]) == 0
    written = page.read_text(encoding="utf-8")
    assert written.startswith("# x\n\nbefore\n\n") and written.endswith("\n\nafter\n")
    assert settings_table.in_page(written) == settings_table.table()
    assert settings_table.with_table(written) == written
