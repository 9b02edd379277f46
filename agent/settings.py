"""Settings: one typed, fully defaulted structure, parsed in one place.

The language server reads them from ``workspace/configuration`` and
``initializationOptions``, the command line from flags; both put them over
the config files and the environment (``config_file``), which call
``Settings.parse``. Keys may be camelCase (editor settings) or
snake_case. A value of the wrong type is reported and replaced by its
default, never an exception: a bad setting must not stop the editor.

The API key is read from the environment variable named by ``api_key_env``
(``OPENAI_API_KEY`` by default) unless given directly; it is kept out of
``repr`` and is never logged.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

DEFAULT_ALLOWLIST = (
    # Tests and checks.
    "pytest",
    "python -m pytest",
    "python3 -m pytest",
    "python -m unittest",
    "python3 -m unittest",
    "npm test",
    "npm run test",
    "npx vitest run",
    "npx jest",
    "yarn test",
    "pnpm test",
    "go test",
    "go vet",
    "cargo test",
    "cargo check",
    "make test",
    "ruff check",
    "mypy",
    # Read-only.
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "git status",
    "git diff",
    "git log",
    "git show",
)


def _default_trace_dir() -> str:
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return str(Path(state) / "surehand" / "traces")


@dataclass(frozen=True)
class Settings:
    model: str = ""
    base_url: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    api_key: str = field(default="", repr=False)
    max_steps: int = 40
    request_timeout: float = 60.0  # seconds to the answer's first byte
    stream_timeout: float = 60.0  # seconds between two pieces of a streamed answer
    max_retries: int = 4
    command_timeout: float = 300.0
    command_allowlist: tuple[str, ...] = DEFAULT_ALLOWLIST
    context_budget: int = 120_000  # characters of conversation before old outputs are compacted
    view_max_lines: int = 400
    max_file_bytes: int = 1_000_000
    output_max_chars: int = 8_000
    trace_dir: str = field(default_factory=_default_trace_dir)
    tool_timeout: float = 60.0  # seconds any tool but run_command may take
    # Containment of commands (see agent/sandbox): "auto" (bubblewrap where it
    # works, else no sandbox and every command asks), "bubblewrap", "off".
    sandbox: str = "auto"
    sandbox_network: bool = False
    sandbox_read_only_paths: tuple[str, ...] = ()
    sandbox_writable_paths: tuple[str, ...] = ()
    command_environment: tuple[str, ...] = ()  # more variables passed to commands
    # How a client without its own review (no ``experimental.surehand.review``) reviews
    # a proposal: "diagnostics" (each hunk a diagnostic with code actions, non-modal)
    # or "question" (one Apply / Show diff / Discard question for the whole proposal).
    review: str = "diagnostics"

    @classmethod
    def parse(
        cls, data: Mapping[str, Any] | None, env: Mapping[str, str] | None = None
    ) -> tuple[Settings, list[str]]:
        """Settings from ``data`` over the environment's, and a problem per bad value."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {
            "model": env.get("SUREHAND_MODEL", ""),
            "base_url": env.get("OPENAI_BASE_URL", ""),
        }
        problems: list[str] = []
        known = {f.name: f for f in fields(cls)}
        for key, value in (data or {}).items():
            name = snake_case(key)
            if name not in known:
                problems.append(f"unknown setting {key!r} ignored")
                continue
            if value is None:
                continue
            converted = _convert(value, known[name])
            if converted is None:
                shown = "" if name in _SECRET else f" {value!r}"
                problems.append(f"setting {key!r} has an invalid value{shown}; default used")
            else:
                values[name] = converted
        settings = cls(**values)
        return settings, problems

    def key(self, env: Mapping[str, str] | None = None) -> str:
        """The API key: given directly, else from the variable ``api_key_env``."""
        env = os.environ if env is None else env
        return self.api_key or env.get(self.api_key_env, "")

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


_SECRET = {"api_key"}  # never repeated back, even when malformed
_CHOICES = {"sandbox": ("auto", "bubblewrap", "off"), "review": ("diagnostics", "question")}
_PATHS = {"sandbox_read_only_paths", "sandbox_writable_paths"}  # absolute, ~ expanded


def snake_case(key: str) -> str:
    """``maxSteps`` -> ``max_steps`` (snake_case keys are left as they are)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def _convert(value: Any, spec: dataclasses.Field[Any]) -> Any:
    """``value`` as the field's type, or None when it cannot be."""
    kind = spec.type
    if spec.name in _CHOICES:
        return value if value in _CHOICES[spec.name] else None
    if spec.name in _PATHS:
        ok = isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
        paths = tuple(Path(v.strip()).expanduser() for v in value) if ok else ()
        return tuple(map(str, paths)) if ok and all(p.is_absolute() for p in paths) else None
    if kind == "bool":
        return value if isinstance(value, bool) else None
    if kind == "str":
        return value if isinstance(value, str) else None
    if kind == "int":
        least = 0 if spec.name == "max_retries" else 1
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= least
        return value if ok else None
    if kind == "float":
        ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
        return float(value) if ok else None
    if kind == "tuple[str, ...]":
        ok = isinstance(value, list | tuple) and all(
            isinstance(v, str) and v.strip() for v in value
        )
        return tuple(v.strip() for v in value) if ok else None
    return None
