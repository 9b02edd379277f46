"""Where a task's requests really go: the URL, the model and the key's source, each with why.

One answer for ``surehand config``, ``surehand run`` and ``eval-tasks``,
made from the effective settings (``config_file``) the way
``openai_client.OpenAIClient`` makes its client: a ``baseUrl`` in force is
the URL; without one the openai package reads ``OPENAI_BASE_URL`` itself,
and without that it sends to its own default, ``https://api.openai.com/v1``
(a test holds ``OPENAI_DEFAULT_URL`` to the package). The key is ``apiKey``
when given directly, else the variable ``apiKeyEnv`` names; with none a
placeholder is sent. The key itself is never part of what is said.

The order of the layers stays as it is (defaults, your file, the project's
file, the environment, the flags); what it hides is said: a variable in the
environment that overrides a value a file set (your ``provider = "ollama"``
under an exported ``OPENAI_BASE_URL``) is a warning naming both.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from agent.config.config_file import Effective, Replaced
from agent.config.settings import camel_case

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"  # the openai package's, when nothing is set
DEFAULT_URL_WHY = "the openai package's default: no baseUrl is set"
# Headers the openai client adds from the environment by itself, to whatever endpoint.
CLIENT_HEADERS = {"OPENAI_ORG_ID": "OpenAI-Organization", "OPENAI_PROJECT_ID": "OpenAI-Project"}
CUSTOM_HEADERS = "OPENAI_CUSTOM_HEADERS"
_FLAGS = {"base_url": "--base-url", "model": "--model"}  # what the environment can override
_ORDER = {name: index for index, name in enumerate(_FLAGS)}  # as the line says them


@dataclass(frozen=True)
class Endpoint:
    """What a task sends to, and why; ``*_from`` in the words of ``surehand config``'s
    ``from`` column (``default``, a file, ``environment (OPENAI_BASE_URL)``, ...)."""

    url: str
    url_from: str
    model: str  # "" when none is set
    model_from: str
    key: str  # where the key comes from, in words: never the key
    key_from: str
    warnings: tuple[str, ...] = ()
    also_sent: tuple[str, ...] = ()  # headers the openai client adds from the environment

    def line(self) -> str:
        """The one line said before anything is sent."""
        parts = [
            f"Endpoint {self.url} from {self.url_from}",
            f"model {self.model or '(not set)'} from {self.model_from}",
            f"key {self.key} from {self.key_from}",
        ]
        return " · ".join(parts)

    def notes(self) -> list[str]:
        """The lines said under it: each warning, and what else the client sends."""
        notes = [f"warning: {warning}" for warning in self.warnings]
        if self.also_sent:
            notes.append(f"also sent by the openai client: {'; '.join(self.also_sent)}")
        return notes


def resolve_endpoint(effective: Effective, env: Mapping[str, str] | None = None) -> Endpoint:
    """The endpoint a client made from ``effective.settings`` sends to, in ``env``."""
    env = os.environ if env is None else env
    settings, origins = effective.settings, effective.origins
    if settings.base_url:
        url, url_from = settings.base_url, origins["base_url"]
    elif "OPENAI_BASE_URL" in env:  # the openai client reads it when it is given no URL
        url = env["OPENAI_BASE_URL"] or "(empty)"
        url_from = "environment (OPENAI_BASE_URL), read by the openai package itself"
    else:
        url, url_from = OPENAI_DEFAULT_URL, DEFAULT_URL_WHY
    key, key_from = _key(effective, env)
    hidden = sorted(
        (r for r in effective.replaced if _hidden(effective, r)), key=lambda r: _ORDER[r.name]
    )
    return Endpoint(
        url=url,
        url_from=url_from,
        model=settings.model,
        model_from=origins["model"],
        key=key,
        key_from=key_from,
        warnings=tuple(_overridden(r) for r in hidden),
        also_sent=_also_sent(env),
    )


def _key(effective: Effective, env: Mapping[str, str]) -> tuple[str, str]:
    """Which key is sent (in words) and where that choice came from."""
    settings, origins = effective.settings, effective.origins
    if effective.key_withheld:
        return "none", origins["api_key_env"]
    if settings.api_key:
        return "apiKey, given directly (not shown)", origins["api_key"]
    variable = settings.api_key_env
    if not variable:
        return "none (no apiKeyEnv)", origins["api_key_env"]
    if env.get(variable):
        return f"${variable} (set; not shown)", origins["api_key_env"]
    return f"none (${variable} is not set)", origins["api_key_env"]


def _hidden(effective: Effective, replaced: Replaced) -> bool:
    """Whether ``replaced`` is a file's endpoint or model that a variable in the environment
    overrides with another value (and nothing above the environment overrides in turn)."""
    return (
        replaced.name in _FLAGS
        and replaced.by.layer == "environment"
        and replaced.source.layer not in ("default", "environment")
        and effective.sources.get(replaced.name) == replaced.by
        and getattr(effective.settings, replaced.name) != replaced.value
    )


def _overridden(replaced: Replaced) -> str:
    source = replaced.source
    what = (
        f'provider "{source.provider}"'
        if source.provider
        else f'{camel_case(replaced.name)} "{replaced.value}"'
    )
    return (
        f"{replaced.by.variable} in the environment overrides {what} in {source.layer}; "
        f"unset it or pass {_FLAGS[replaced.name]}"
    )


def _also_sent(env: Mapping[str, str]) -> tuple[str, ...]:
    """What else the openai client sends, read from the environment: header names only."""
    sent = [f"{header} (${name})" for name, header in CLIENT_HEADERS.items() if name in env]
    if CUSTOM_HEADERS in env:
        lines = env[CUSTOM_HEADERS].split("\n")
        names = [line.partition(":")[0].strip() for line in lines if ":" in line]
        shown = ", ".join(names) or "none"
        sent.append(f"the headers in ${CUSTOM_HEADERS} ({shown})")
    return tuple(sent)
