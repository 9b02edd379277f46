"""Who may set each setting: the one place that says it, for every field of ``Settings``.

``CLASSES`` holds a rule per field (a test walks them all), what a
project's file may do with it:

- ``narrow``: an untrusted project's file (or untrusted workspace settings)
  may set it, but only to a stricter value than the one beneath it (the
  user's file, else the default): ``lower`` for a limit, ``subset`` for a
  list that widens access (fewer commands, folders or variables), ``off``
  for a switch that widens access when on. A trusted project sets it freely.
- ``trust``: only a project the user trusts may set it.
- ``user``: only the user (their own file, a flag, the editor) may set it.

Every numeric limit also has a ceiling no source exceeds
(``agent.config.settings.CEILINGS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


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

IN_A_PROJECT = {
    "lower": "lower only",
    "subset": "fewer only",
    "off": "`false` only",
    "trust": "if trusted",
    "user": "never",
}


def rule_for(name: str) -> Rule:
    """The rule for ``name`` (snake_case); an unknown ``sandbox...`` name needs trust."""
    return CLASSES.get(name, _UNKNOWN_SANDBOX)
