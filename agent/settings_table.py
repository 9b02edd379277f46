"""Who may set each setting, and the README's settings table made from the settings.

``CLASSES`` is the one place that says, for every field of ``Settings`` (a
test walks them all), what a project's file may do with it:

- ``narrow``: an untrusted project's file (or untrusted workspace settings)
  may set it, but only to a stricter value than the one beneath it (the
  user's file, else the default): ``lower`` for a limit, ``subset`` for a
  list that widens access (fewer commands, folders or variables), ``off``
  for a switch that widens access when on. A trusted project sets it freely.
- ``trust``: only a project the user trusts may set it.
- ``user``: only the user (their own file, a flag, the editor) may set it.

Every numeric limit also has a ceiling no source exceeds
(``agent.settings.CEILINGS``).

Each row is a field of ``Settings`` (but the API key, which has no flag):
its camelCase key, its flag, its default and its help text from
``flags.HELP``; a help text ending in ``(default: ...)`` names a default the
dataclass cannot show (one from the environment, say). ``python -m
agent.settings_table`` prints the table; ``--write docs/configuration.md``
puts it between that page's markers (``PAGE``). A test keeps the page equal
to it.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import MISSING, Field, dataclass, fields
from pathlib import Path
from typing import Any, Literal

from .settings import CEILINGS, Settings, camel_case, number

__all__ = ["CLASSES", "Rule", "camel_case", "rule_for", "table"]


@dataclass(frozen=True)
class Rule:
    """What an untrusted project may do with a setting, and what it would widen."""

    who: Literal["narrow", "trust", "user"]
    why: str  # what setting it would do, said when a project's value is not taken
    stricter: Literal["", "lower", "subset", "off"] = ""  # for ``narrow``


_LONGER = "it would let a task run longer"
_MORE = "it would send more of your code to the model"
_MACHINE = "it would let commands use more of your machine"
CLASSES: dict[str, Rule] = {
    "model": Rule("trust", "it chooses which model your key pays for and your code goes to"),
    "base_url": Rule("trust", "it chooses where your code goes"),
    "provider": Rule("trust", "it chooses where your code goes"),
    "api_key_env": Rule("user", "a project's file never chooses the API key"),
    "api_key": Rule("user", "a project's file never chooses the API key"),
    "trusted_projects": Rule("user", "a project's file never chooses which projects are trusted"),
    "trust_project": Rule("user", "a project's file never chooses which projects are trusted"),
    "max_steps": Rule("narrow", _LONGER, "lower"),
    "request_timeout": Rule("narrow", _LONGER, "lower"),
    "stream_timeout": Rule("narrow", _LONGER, "lower"),
    "max_retries": Rule("narrow", "it would send more requests", "lower"),
    "command_timeout": Rule("narrow", "it would let commands run longer", "lower"),
    "command_allowlist": Rule("narrow", "it would let more commands run without asking", "subset"),
    "context_budget": Rule("narrow", _MORE, "lower"),
    "view_max_lines": Rule("narrow", _MORE, "lower"),
    "max_file_bytes": Rule("narrow", _MORE, "lower"),
    "output_max_chars": Rule("narrow", "it would keep and send more command output", "lower"),
    "trace_dir": Rule("trust", "it chooses where records of your code are written"),
    "tool_timeout": Rule("narrow", _LONGER, "lower"),
    "sandbox": Rule("trust", "it chooses how commands are contained"),
    "sandbox_network": Rule("narrow", "it would let commands reach the network", "off"),
    "sandbox_read_only_paths": Rule("narrow", "it would let commands read more folders", "subset"),
    "sandbox_writable_paths": Rule("narrow", "it would let commands change more folders", "subset"),
    "command_environment": Rule("narrow", "it would widen what commands see", "subset"),
    "sandbox_processes": Rule("narrow", _MACHINE, "lower"),
    "sandbox_memory_mb": Rule("narrow", _MACHINE, "lower"),
    "sandbox_file_mb": Rule("narrow", _MACHINE, "lower"),
    "sandbox_tmp_mb": Rule("narrow", _MACHINE, "lower"),
    "sandbox_home_mb": Rule("narrow", _MACHINE, "lower"),
    "review": Rule("user", "how you review a proposal is yours to choose"),
    "test_commands": Rule("trust", "it chooses which commands run before a proposal is offered"),
    "tests_before_review": Rule("narrow", "it would run commands you did not ask for", "off"),
    "tests_on_accepted": Rule("user", "how you check what you accepted is yours to choose"),
}
# A sandbox setting this build does not know (a newer file): it needs trust.
_UNKNOWN_SANDBOX = Rule("trust", "it changes how commands are contained")

_IN_A_PROJECT = {
    "lower": "lower only",
    "subset": "fewer only",
    "off": "`false` only",
    "trust": "if trusted",
    "user": "never",
}


def rule_for(name: str) -> Rule:
    """The rule for ``name`` (snake_case); an unknown ``sandbox...`` name needs trust."""
    return CLASSES.get(name, _UNKNOWN_SANDBOX)


PAGE = "docs/configuration.md"  # the page that holds the table, from the repository's root
BEGIN = "<!-- settings table: made by `python -m agent.settings_table`; do not edit -->"
END = "<!-- end of the settings table -->"
_DEFAULT_IN_HELP = re.compile(r"^(?P<help>.*?)\s*\(default: (?P<default>[^()]*)\)$")


def table() -> str:
    """The Markdown table, one row per setting, in the dataclass's order."""
    from .flags import HELP, NO_FLAG  # noqa: PLC0415 - flags -> config_file -> CLASSES here

    rows = [
        "| setting | flag | default | meaning | ceiling | in a project's file |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for spec in fields(Settings):
        if spec.name in NO_FLAG:
            continue
        meaning, default = _split_help(HELP[spec.name].removesuffix(" (repeat)"))
        shown = _code(default) if default is not None else _shown_default(spec)
        ceiling = number(CEILINGS[spec.name]) if spec.name in CEILINGS else ""
        rule = CLASSES[spec.name]
        project = _IN_A_PROJECT[rule.stricter or rule.who]
        rows.append(
            f"| `{camel_case(spec.name)}` | {_flag(spec)} | {shown} | {meaning} | {ceiling} "
            f"| {project} |"
        )
    return "\n".join(rows) + "\n"


def in_page(text: str) -> str:
    """The page's table as it stands (between the markers)."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:end].strip("\n") + "\n"


def with_table(text: str) -> str:
    """``text`` (the page) with the table between its markers made anew."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return f"{text[:start]}\n{table()}{text[end:]}"


def _split_help(help_text: str) -> tuple[str, str | None]:
    match = _DEFAULT_IN_HELP.match(help_text)
    if match is None:
        return help_text, None
    return match["help"], match["default"]


def _flag(spec: Field[Any]) -> str:
    from .flags import METAVARS, flag_name  # noqa: PLC0415 - as in table()

    if spec.name in METAVARS:
        return f"`{flag_name(spec.name)} {METAVARS[spec.name]}` (repeat)"
    return f"`{flag_name(spec.name)}`"


def _shown_default(spec: Field[Any]) -> str:
    if spec.default is not MISSING:
        value: Any = spec.default
    else:
        assert spec.default_factory is not MISSING, spec.name
        value = spec.default_factory()
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, tuple):
        return f"`{list(value)}`"
    return f"`{value}`"


def _code(default: str) -> str:
    """A default named in words stays words; a value, a variable or a path is code."""
    return default if " " in default else f"`{default}`"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agent.settings_table", description=__doc__)
    parser.add_argument(
        "--write", type=Path, metavar="PAGE", help=f"update the table in PAGE ({PAGE})"
    )
    args = parser.parse_args(argv)
    if args.write is None:
        sys.stdout.write(table())
        return 0
    text = args.write.read_text(encoding="utf-8")
    args.write.write_text(with_table(text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
