"""The settings table of ``docs/configuration.md``, made from the settings.

Each row is a field of ``Settings`` (but the API key, which has no flag):
its camelCase key, its flag, its default and its help text from
``flags.HELP``, and who may set it (``setting_rules``); a help text ending
in ``(default: ...)`` names a default the dataclass cannot show (one from
the environment, say). ``python -m agent.config.settings_table`` prints the
table; ``--write docs/configuration.md`` puts it between that page's
markers (``PAGE``). A test keeps the page equal to it.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import MISSING, Field, fields
from pathlib import Path
from typing import Any

from agent.config.flags import HELP, METAVARS, NO_FLAG, flag_name
from agent.config.setting_rules import CLASSES, IN_A_PROJECT, Rule, rule_for
from agent.config.settings import CEILINGS, Settings, camel_case, number

__all__ = ["CLASSES", "Rule", "camel_case", "rule_for", "table"]


PAGE = "docs/configuration.md"  # the page that holds the table, from the repository's root
BEGIN = "<!-- settings table: made by `python -m agent.config.settings_table`; do not edit -->"
END = "<!-- end of the settings table -->"
_DEFAULT_IN_HELP = re.compile(r"^(?P<help>.*?)\s*\(default: (?P<default>[^()]*)\)$")


def table() -> str:
    """The Markdown table, one row per setting, in the dataclass's order."""

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
        project = IN_A_PROJECT[rule.stricter or rule.who]
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
    prog = "python -m agent.config.settings_table"
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
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
