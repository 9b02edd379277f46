"""The effective settings, from every place a person can set them, and where each came from.

Lowest first: the defaults; the user's file (``$XDG_CONFIG_HOME/surehand/
config.toml``, else ``~/.config/surehand/config.toml``); the project's
``.surehand.toml`` at the workspace root; the environment (``SUREHAND_MODEL``,
``OPENAI_BASE_URL``); then the command line's flags or the editor's
settings. Any layer may name a ``provider``: its preset fills in that
layer's endpoint settings beneath the keys the layer sets itself.

A project's file comes with the repository, so whoever wrote it is not the
user. It may never choose the key (``apiKey``, ``apiKeyEnv``) or the trusted
projects, and it may set the endpoint, the command allowlist, the trace
folder or anything about the sandbox (``PROTECTED``) only in a project the
user trusts (listed in ``trustedProjects`` in the user's file, or
``--trust-project`` / the editor's ``trustProject``). An endpoint that comes
from a project's file is never sent the user's key.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .settings import Settings, snake_case

PROJECT_FILE = ".surehand.toml"
USER_FILE = Path("surehand") / "config.toml"

# Settings a project's file may set only when the user trusts the project.
PROTECTED = frozenset({"base_url", "provider", "command_allowlist", "trace_dir"})
PROTECTED_PREFIXES = ("sandbox",)  # sandbox, sandboxNetwork, sandboxWritablePaths, ...
# Keys a project's file may never set, trusted or not.
USER_ONLY = frozenset({"api_key", "api_key_env", "trusted_projects", "trust_project"})
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
    """Whether a project's file needs the user's trust to set ``name`` (snake_case)."""
    return name in PROTECTED or name.startswith(PROTECTED_PREFIXES)


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / USER_FILE


@dataclass(frozen=True)
class Effective:
    """The settings in force, where each came from, and what was wrong on the way."""

    settings: Settings
    origins: dict[str, str]  # snake_case name -> "default", a file, "environment (X)", ...
    problems: list[str] = field(default_factory=list)
    trusted: bool = False
    key_withheld: str = ""  # why no key is sent, when one is withheld


@dataclass
class _Layer:
    origin: str
    values: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)


def effective_settings(
    root: Path | None,
    *,
    overrides: Mapping[str, Any] | None = None,
    overrides_origin: str = "command line",
    trust: bool = False,
    env: Mapping[str, str] | None = None,
) -> Effective:
    """The settings for a workspace at ``root`` with ``overrides`` (flags or editor) on top."""
    env = os.environ if env is None else env
    problems: list[str] = []
    user_path = user_config_path(env)
    user = _layer(_shown(user_path, env), _read_toml(user_path, env, problems), problems)
    top = _layer(overrides_origin, dict(overrides or {}), problems, named=False)
    trusted_paths = user.values.pop("trusted_projects", [])
    trusted = trust or top.values.pop("trust_project", False) is True or _under(root, trusted_paths)
    top.values.pop("trusted_projects", None)
    layers = [user]
    if root is not None:
        path = root / PROJECT_FILE
        project = _layer(PROJECT_FILE, _read_toml(path, env, problems), problems)
        _guard_project(project, trusted, problems)
        layers.append(project)
    environment = _Layer("environment")
    for name, variable in ENVIRONMENT.items():
        if env.get(variable):
            environment.values[name] = env[variable]
            environment.origins[name] = f"environment ({variable})"
    layers += [environment, top]

    values: dict[str, Any] = {}
    origins = {f.name: "default" for f in fields(Settings)}
    for layer in layers:
        for name, value in layer.values.items():
            if name in CONFIG_KEYS:
                continue
            values[name] = value
            origins[name] = layer.origins.get(name, layer.origin)
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
    return Effective(settings, origins, problems, trusted, key_withheld)


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
                    layer.origins[name] = f"{origin} (provider {str(provider).lower()})"
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
    _, problems = Settings.parse({key: value}, env={})
    return problems[0] if problems else ""


def _guard_project(project: _Layer, trusted: bool, problems: list[str]) -> None:
    for name in list(project.values):
        camel = camel_case(name)
        if name in USER_ONLY:
            del project.values[name]
            problems.append(
                f"{PROJECT_FILE}: {camel} ignored: a project's file never chooses the API key "
                "or which projects are trusted"
            )
        elif is_protected(name) and not trusted:
            del project.values[name]
            problems.append(
                f"{PROJECT_FILE}: {camel} ignored: only a trusted project may set it (pass "
                "--trust-project, or add the project to trustedProjects in your config file)"
            )


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


def camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)
