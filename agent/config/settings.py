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

Every numeric limit has a ceiling (``CEILINGS``) that no source exceeds, not
even the user's own file or a flag: a value above it is brought down to it,
with a problem saying so, and ``Settings`` built directly is held to it too.
``MAX_ANSWER_CHARS`` bounds one model answer (it is not a setting).
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


# The most any source may set a limit to. Each is far above what real work needs and
# low enough that no setting can make surehand hold, send or wait for without end.
CEILINGS: dict[str, int | float] = {
    "max_steps": 500,  # model turns per task
    "request_timeout": 900.0,  # seconds
    "stream_timeout": 900.0,  # seconds
    "max_retries": 10,
    "command_timeout": 3600.0,  # seconds: an hour
    "context_budget": 2_000_000,  # characters of conversation
    "view_max_lines": 10_000,
    "max_file_bytes": 20_000_000,
    "output_max_chars": 200_000,  # characters of one command's output kept
    "tool_timeout": 900.0,  # seconds
    "sandbox_processes": 65_536,
    "sandbox_memory_mb": 1_048_576,  # 1 TiB
    "sandbox_file_mb": 1_048_576,
    "sandbox_tmp_mb": 65_536,  # 64 GiB of RAM-backed /tmp
    "sandbox_home_mb": 65_536,
}
# The most characters of one model answer (text and tool calls together) that are kept,
# shown or traced; an answer past it is cut there and said to be.
MAX_ANSWER_CHARS = 1_000_000


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
    context_budget: int = 120_000  # characters of conversation kept (see Conversation.compact)
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
    # What one sandboxed command may use of the machine (agent/execution/sandbox/limits.py).
    sandbox_processes: int = 4096  # processes and threads at once
    sandbox_memory_mb: int = 8192  # MiB of memory one process may allocate
    sandbox_file_mb: int = 4096  # MiB: the largest file a command may write
    sandbox_tmp_mb: int = 2048  # MiB of the private /tmp (and of /var/tmp)
    sandbox_home_mb: int = 1024  # MiB of the private HOME
    # How a client without its own review (no ``experimental.surehand.review``) reviews
    # a proposal: "diagnostics" (each hunk a diagnostic with code actions, non-modal)
    # or "question" (one Apply / Show diff / Discard question for the whole proposal).
    review: str = "diagnostics"
    # The project's test commands, whose verdict a proposal carries (agent/checks/verdicts.py);
    # empty: the ones the model ran, else the ones the project's layout names.
    test_commands: tuple[str, ...] = ()
    # Run them (sandboxed, unasked commands only) before a proposal is offered when their
    # last run is not on exactly the proposed text.
    tests_before_review: bool = True
    # When the person rejected some hunks: "run" the tests on what they accepted at once,
    # or "offer" it (a command, a key) for them to start.
    tests_on_accepted: str = "run"

    def __post_init__(self) -> None:
        for name, ceiling in CEILINGS.items():
            if getattr(self, name) > ceiling:
                object.__setattr__(self, name, type(getattr(self, name))(ceiling))

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
                continue
            if name in CEILINGS and converted > CEILINGS[name]:
                problems.append(above_ceiling(key, converted))
                converted = type(converted)(CEILINGS[name])
            values[name] = converted
        settings = cls(**values)
        return settings, problems

    def key(self, env: Mapping[str, str] | None = None) -> str:
        """The API key: given directly, else from the variable ``api_key_env``."""
        env = os.environ if env is None else env
        return self.api_key or env.get(self.api_key_env, "")

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


def invalid(key: str, value: Any) -> str:
    """The problem with ``value`` for the setting ``key`` ("" when it is valid; a value
    above its ceiling is valid, and brought down where it is used)."""
    spec = {f.name: f for f in fields(Settings)}.get(snake_case(key))
    if spec is None:
        return f"unknown setting {key!r} ignored"
    if value is None or _convert(value, spec) is not None:
        return ""
    shown = "" if spec.name in _SECRET else f" {value!r}"
    return f"setting {key!r} has an invalid value{shown}; default used"


def above_ceiling(key: str, value: int | float) -> str:
    """Why ``value`` for ``key`` (a numeric limit) is not used."""
    ceiling = number(CEILINGS[snake_case(key)])
    return (
        f"{camel_case(snake_case(key))} = {number(value)} is above its ceiling {ceiling}, "
        f"which no setting may exceed; {ceiling} used"
    )


def number(value: int | float) -> str:
    """``3600.0`` -> ``3600``, ``0.5`` -> ``0.5``, ``10**6`` -> ``1000000``."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def camel_case(name: str) -> str:
    """``max_steps`` -> ``maxSteps``."""
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


_SECRET = {"api_key"}  # never repeated back, even when malformed
_CHOICES = {
    "sandbox": ("auto", "bubblewrap", "off"),
    "review": ("diagnostics", "question"),
    "tests_on_accepted": ("run", "offer"),
}
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
