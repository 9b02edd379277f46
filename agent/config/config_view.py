"""``surehand config``: the settings in force for a workspace and where each came from.

First the endpoint a task would really send to (``endpoint``: the openai
package's default included), the model and where the key comes from, each
with why, and a warning for each value of a file that a variable in the
environment overrides. The key itself is never printed: only whether one is
set and where it is read from. Each value a project's file (or the
workspace) set that was not taken, or taken narrowed, and each value brought
down to its ceiling, is a line under ``not taken as set`` saying why.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from agent.config.config_file import PROJECT_FILE, Effective, camel_case, user_config_path
from agent.config.endpoint import resolve_endpoint
from agent.config.flags import effective_from_flags
from agent.config.settings import DEFAULT_ALLOWLIST, Settings


def show_config(args: argparse.Namespace) -> int:
    if not args.workspace.is_dir():
        print(f"surehand: no such directory: {args.workspace} (--workspace)", file=sys.stderr)
        return 2
    root = args.workspace.resolve()
    effective = effective_from_flags(args, root)
    print(config_text(effective, root))
    return 0


def config_text(effective: Effective, root: Path, env: Mapping[str, str] | None = None) -> str:
    endpoint = resolve_endpoint(effective, env)
    settings = effective.settings
    rows = [("setting", "value", "from")]
    for spec in fields(Settings):
        if spec.name == "api_key":
            continue
        value = _shown(spec.name, getattr(settings, spec.name))
        origin = effective.origins[spec.name]
        if spec.name == "base_url":  # the URL the client sends to, set or not
            value, origin = endpoint.url, endpoint.url_from
        rows.append((camel_case(spec.name), value, origin))
    rows.append(("key", endpoint.key, endpoint.key_from))
    width = [max(len(row[i]) for row in rows) for i in range(2)]
    lines = [f"Settings for {root}", endpoint.line(), *endpoint.notes(), ""]
    lines += [f"{a:<{width[0]}}  {b:<{width[1]}}  {c}".rstrip() for a, b, c in rows]
    user = user_config_path(env)
    project = root / PROJECT_FILE
    lines.append("")
    lines.append(f"user file:    {user} ({'found' if user.is_file() else 'none'})")
    trust = "trusted" if effective.trusted else "not trusted: it may only narrow settings"
    ignored = set(effective.ignored)
    lines.append(f"project file: {project} ({'found' if project.is_file() else 'none'}; {trust})")
    if effective.ignored:
        lines.append("not taken as set (the project may only narrow; no source passes a ceiling):")
        lines += [f"  {note}" for note in effective.ignored]
    lines += [f"warning: {problem}" for problem in effective.problems if problem not in ignored]
    return "\n".join(lines)


def _shown(name: str, value: Any) -> str:
    if isinstance(value, tuple):
        if value == DEFAULT_ALLOWLIST:
            return f"the {len(value)} default commands"
        return ", ".join(value) or "(none)"
    if name == "api_key_env" and not value:
        return "(none: no key is sent)"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value) if value != "" else "(not set)"
