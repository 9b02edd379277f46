"""The effective settings, from every place a person can set them, and where each came from.

Lowest first: the defaults; the user's file (``$XDG_CONFIG_HOME/surehand/
config.toml``, else ``~/.config/surehand/config.toml``); the project's
``.surehand.toml`` at the workspace root; the environment (``SUREHAND_MODEL``,
``OPENAI_BASE_URL``); then the command line's flags or the editor's
settings. Any layer may name a ``provider``: its preset fills in that
layer's endpoint settings beneath the keys the layer sets itself.

A project's file comes with the repository, so whoever wrote it is not the
user, and it may never widen what surehand does. What it may do with each
setting is ``setting_rules.CLASSES``: a limit, the command allowlist, the
folders and variables commands get and the network only narrow (a lower
limit, fewer commands, less environment) unless the user trusts the project
(listed in ``trustedProjects`` in the user's file, or ``--trust-project`` /
the editor's ``trustProject``); the model, the endpoint, the trace folder and
how commands are contained need that trust; the key, the trusted projects
and how a proposal is reviewed are the user's alone. Settings an editor took
from the workspace itself (which a repository can commit) can be given as
``workspace`` and are held to the same rules. Each value not taken, or taken
narrowed, is said in ``Effective.ignored``. An endpoint that comes from a
project's file is never sent the user's key. No source, the user included,
exceeds a limit's ceiling (``settings.CEILINGS``).

The order is fixed; what it hides is not: each value a higher layer
replaced is kept in ``Effective.replaced`` (so ``endpoint`` can warn when
the environment overrides what your own file says).

Its size: the layering of the sources and the narrowing of a project's file
are one algorithm over the same tables; the rules themselves are
``setting_rules``.
"""

from __future__ import annotations

import os
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from agent.config.command_line import is_allowed
from agent.config.setting_rules import Rule, rule_for
from agent.config.settings import (
    CEILINGS,
    Settings,
    above_ceiling,
    camel_case,
    invalid,
    number,
    snake_case,
)

__all__ = ["camel_case"]

PROJECT_FILE = ".surehand.toml"
USER_FILE = Path("surehand") / "config.toml"

PROTECTED_PREFIXES = ("sandbox",)  # a sandbox setting this build does not know needs trust
# Keys that steer the reading itself rather than being settings.
CONFIG_KEYS = frozenset({"provider", "trusted_projects", "trust_project"})

ENVIRONMENT = {"model": "SUREHAND_MODEL", "base_url": "OPENAI_BASE_URL"}

PROVIDERS: dict[str, dict[str, str]] = {
    "openai": {"base_url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY"},
    "ollama": {"base_url": "http://localhost:11434/v1", "api_key_env": ""},
    "lmstudio": {"base_url": "http://localhost:1234/v1", "api_key_env": ""},
    "vllm": {"base_url": "http://localhost:8000/v1", "api_key_env": ""},
    "llamacpp": {"base_url": "http://localhost:8080/v1", "api_key_env": ""},
    "deepseek": {"base_url": "https://api.deepseek.com/v1", "api_key_env": "DEEPSEEK_API_KEY"},
    "openrouter": {"base_url": "https://openrouter.ai/api/v1", "api_key_env": "OPENROUTER_API_KEY"},
}


def is_protected(name: str) -> bool:
    """Whether an untrusted project's file can never set ``name`` (snake_case), not even
    to a stricter value."""
    return rule_for(name).who != "narrow"


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / USER_FILE


@dataclass(frozen=True)
class Source:
    """Where a setting's value was set: a layer (``default``, a file as shown, ``environment``,
    ``command line``, the editor's settings) and, within it, the provider whose preset gave
    the value or the variable it was read from."""

    layer: str = "default"
    provider: str = ""
    variable: str = ""

    def __str__(self) -> str:
        if self.provider:
            return f"{self.layer} (provider {self.provider})"
        if self.variable:
            return f"{self.layer} ({self.variable})"
        return self.layer


@dataclass(frozen=True)
class Replaced:
    """A value one layer set that a higher layer replaced, and that higher layer."""

    name: str  # snake_case
    value: Any
    source: Source
    by: Source


@dataclass(frozen=True)
class Effective:
    """The settings in force, where each came from, and what was wrong on the way."""

    settings: Settings
    origins: dict[str, str]  # snake_case name -> "default", a file, "environment (X)", ...
    problems: list[str] = field(default_factory=list)
    trusted: bool = False
    key_withheld: str = ""  # why no key is sent, when one is withheld
    # Each value a project's file or the workspace set that was not taken, or taken
    # narrowed, or brought down to a ceiling, and why (also among ``problems``).
    ignored: list[str] = field(default_factory=list)
    sources: dict[str, Source] = field(default_factory=dict)  # the settings a layer set
    replaced: list[Replaced] = field(default_factory=list)  # lowest first


@dataclass
class _Layer:
    origin: str
    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)  # a preset's or a variable's

    def source(self, name: str) -> Source:
        return self.sources.get(name) or Source(self.origin)


def effective_settings(
    root: Path | None,
    *,
    overrides: Mapping[str, Any] | None = None,
    overrides_origin: str = "command line",
    trust: bool = False,
    env: Mapping[str, str] | None = None,
    workspace: Mapping[str, Any] | None = None,
    workspace_origin: str = "workspace settings",
) -> Effective:
    """The settings for a workspace at ``root`` with ``overrides`` (flags or editor) on top.

    ``workspace``: settings an editor took from the workspace's own files (VS Code's
    ``.vscode/settings.json``), which a repository can commit: held to the same rules
    as the project's file, over it.
    """
    env = os.environ if env is None else env
    problems: list[str] = []
    ignored: list[str] = []
    user_path = user_config_path(env)
    user = _layer(_shown(user_path, env), _read_toml(user_path, env, problems), problems)
    top = _layer(overrides_origin, dict(overrides or {}), problems, named=False)
    trusted_paths = user.values.pop("trusted_projects", [])
    trusted = trust or top.values.pop("trust_project", False) is True or _under(root, trusted_paths)
    top.values.pop("trusted_projects", None)
    layers = [(user, False)]
    if root is not None:
        path = root / PROJECT_FILE
        layers.append((_layer(PROJECT_FILE, _read_toml(path, env, problems), problems), True))
    if workspace:
        layers.append((_layer(workspace_origin, dict(workspace), problems), True))
    environment = _Layer("environment")
    for name, variable in ENVIRONMENT.items():
        if env.get(variable):
            environment.values[name] = env[variable]
            environment.sources[name] = Source("environment", variable=variable)
    layers += [(environment, False), (top, False)]

    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    replaced: list[Replaced] = []
    for layer, guarded in layers:
        if guarded:
            ignored += _guard(layer, trusted, values)
        for name, value in layer.values.items():
            if name in CONFIG_KEYS:
                continue
            if name in values:
                replaced.append(Replaced(name, values[name], sources[name], layer.source(name)))
            values[name] = value
            sources[name] = layer.source(name)
    origins = {f.name: str(sources.get(f.name, Source())) for f in fields(Settings)}
    for name, ceiling in CEILINGS.items():
        value = _typed(name, values[name]) if name in values else None
        if value is not None and value > ceiling:
            ignored.append(f"{origins[name]}: {above_ceiling(camel_case(name), value)}")
            values[name] = ceiling
            origins[name] = f"ceiling ({origins[name]} asked {number(value)})"
    problems += ignored
    key_withheld = ""
    if origins["base_url"].startswith(PROJECT_FILE):
        values["api_key_env"], values["api_key"] = "", ""
        origins["api_key_env"] = origins["api_key"] = f"withheld: the endpoint is {PROJECT_FILE}'s"
        key_withheld = (
            f"the endpoint comes from {PROJECT_FILE}, which is never sent your key; name the "
            "endpoint yourself (--base-url, your config file or the editor) to send one"
        )
    settings, more = Settings.parse({camel_case(k): v for k, v in values.items()}, env={})
    problems += more
    return Effective(settings, origins, problems, trusted, key_withheld, ignored, sources, replaced)


def without_defaults(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` less the keys whose value is the setting's default.

    An editor sends every key, defaults included (VS Code does): a default
    there must not hide what the config files set.
    """
    defaults = Settings()
    out = {}
    for key, value in data.items():
        name = snake_case(key)
        if hasattr(defaults, name):
            default = getattr(defaults, name)
            same = list(value) == list(default) if isinstance(value, list | tuple) else False
            if same or (not isinstance(value, list | tuple) and value == default):
                continue
        out[key] = value
    return out


def _layer(
    origin: str, data: Mapping[str, Any], problems: list[str], *, named: bool = True
) -> _Layer:
    """A layer of snake_case values; a bad value is reported (with its origin when
    ``named``) and dropped, and a provider's preset fills in beneath the layer's own keys."""
    layer = _Layer(origin)
    where = f"{origin}: " if named else ""
    known = {f.name for f in fields(Settings)} | CONFIG_KEYS
    for key, value in data.items():
        name = snake_case(key)
        if value is None:
            continue
        if name not in known and not name.startswith(PROTECTED_PREFIXES):
            problems.append(f"{where}unknown setting {key!r} ignored")
            continue
        problem = _invalid(name, key, value)
        if problem:
            problems.append(f"{where}{problem}")
            continue
        layer.values[name] = value
    provider = layer.values.get("provider")
    if provider is not None:
        preset = PROVIDERS.get(str(provider).lower())
        if preset is None:
            names = ", ".join(PROVIDERS)
            problems.append(f"{where}unknown provider {provider!r} ignored (known: {names})")
            del layer.values["provider"]
        else:
            for name, value in preset.items():
                if name not in layer.values:
                    layer.values[name] = value
                    layer.sources[name] = Source(origin, provider=str(provider).lower())
    return layer


def _invalid(name: str, key: str, value: Any) -> str:
    if name == "provider":
        return "" if isinstance(value, str) else f"setting {key!r} must be a provider's name"
    if name == "trusted_projects":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return "" if ok else f"setting {key!r} must be a list of paths"
    if name == "trust_project":
        return "" if isinstance(value, bool) else f"setting {key!r} must be true or false"
    if name.startswith(PROTECTED_PREFIXES) and name not in {f.name for f in fields(Settings)}:
        return ""  # a sandbox setting this build does not know: Settings.parse reports it
    return invalid(key, value)


_TRUST_HINT = "pass --trust-project, or add the project to trustedProjects in your config file"


def _guard(layer: _Layer, trusted: bool, below: dict[str, Any]) -> list[str]:
    """Hold a layer a repository wrote (the project's file, workspace settings) to
    ``setting_rules.CLASSES``, against the values ``below`` it; what was not taken,
    or taken narrowed, and why."""
    notes: list[str] = []
    for name in list(layer.values):
        rule = rule_for(name)
        if rule.who == "narrow" and trusted:
            continue
        said = f"{layer.origin}: {camel_case(name)}"
        if rule.who == "user":
            del layer.values[name]
            notes.append(f"{said} ignored: {rule.why}")
        elif rule.who == "trust" and not trusted:
            del layer.values[name]
            notes.append(f"{said} ignored: only a trusted project may set it ({_TRUST_HINT})")
        elif rule.who == "narrow":
            note = _narrow(layer, name, rule, _current(name, below))
            if note:
                notes.append(f"{said} {note}")
    return notes


def _narrow(layer: _Layer, name: str, rule: Rule, current: Any) -> str:
    """Keep ``layer``'s value for ``name`` only as far as it is stricter than ``current``;
    what was left out, in words ("" when the value was taken as it is)."""
    value = _typed(name, layer.values[name])
    untrusted = f"the project is not trusted ({rule.why})"
    if rule.stricter == "lower":
        if value <= current:
            return ""
        del layer.values[name]
        return (
            f"ignored: {untrusted} and may only lower it: {number(value)} is above "
            f"{number(current)}, which stays"
        )
    if rule.stricter == "off":
        if value is False or value == current:
            return ""
        del layer.values[name]
        return f"ignored: {untrusted} and may only turn it off"
    kept = [item for item in value if _within(name, item, current)]
    left_out = [item for item in value if item not in kept]
    if not left_out:
        return ""
    if not kept:
        del layer.values[name]
        return f"ignored: {untrusted}"
    layer.values[name] = kept
    return f"narrowed: {', '.join(left_out)} left out: {untrusted}"


def _within(name: str, item: str, current: tuple[str, ...]) -> bool:
    """Whether ``item`` of a list setting allows no more than ``current`` already does."""
    if name == "command_allowlist":
        try:
            return is_allowed(shlex.split(item), current)
        except ValueError:
            return False
    if name.endswith("_paths"):
        return any(Path(item).is_relative_to(place) for place in current)
    return item in current


def _current(name: str, values: dict[str, Any]) -> Any:
    if name in values:
        return _typed(name, values[name])
    return getattr(Settings(), name)


def _typed(name: str, value: Any) -> Any:
    """``value`` as the setting's type (``[..]`` a tuple, ``3`` a float for a timeout), not
    brought down to a ceiling."""
    spec = {f.name: f for f in fields(Settings)}[name]
    if name in CEILINGS:
        return float(value) if spec.type == "float" else int(value)
    settings, _ = Settings.parse({name: value}, env={})
    return getattr(settings, name)


def _read_toml(path: Path, env: Mapping[str, str], problems: list[str]) -> dict[str, Any]:
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        problems.append(f"{_shown(path, env)}: cannot be read ({error}); ignored")
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        problems.append(f"{_shown(path, env)}: not valid TOML ({error}); ignored")
        return {}


def _under(root: Path | None, trusted: list[str]) -> bool:
    if root is None:
        return False
    here = root.resolve()
    for entry in trusted:
        place = Path(entry).expanduser().resolve()
        if here == place or place in here.parents:
            return True
    return False


def _shown(path: Path, env: Mapping[str, str]) -> str:
    home = env.get("HOME")
    if home and path.is_relative_to(home):
        return str(Path("~") / path.relative_to(home))
    return str(path)
