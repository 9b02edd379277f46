"""The model's command lines: parsed without a shell, matched against the allowlist.

A command line is split like a shell would (``shlex``) but never given to
one: pipes, redirections and ``&&`` would not mean what the model expects,
so a token that is exactly such an operator is refused with a message to
run one command at a time; operators inside a token are plain text.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence

from .workspace import ToolError

SHELL_OPERATORS = frozenset({"&&", "||", "|", ";", ">", ">>", "<", "&", "2>", "2>&1", "&>", "|&"})


class BadCommand(ToolError):
    reason = "bad_command"


def parse_command(text: str) -> list[str]:
    """``text`` as an argv, or ``BadCommand`` saying how to write it."""
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise BadCommand(
            f"The command cannot be parsed ({error}): close every quote, "
            "or escape a lone quote with a backslash."
        ) from None
    if not argv:
        raise BadCommand("The command is empty: give a command line such as `pytest -x`.")
    operators = [token for token in argv if token in SHELL_OPERATORS]
    if operators:
        raise BadCommand(
            f"Commands run without a shell, so {operators[0]!r} does not work. Run one "
            "command at a time, without pipes or redirections; output and errors are "
            "both returned."
        )
    if argv[0] == "cd":
        raise BadCommand(
            "Commands always run at the workspace root, so cd does not work: give paths "
            "relative to the root instead."
        )
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", argv[0]):
        raise BadCommand(
            "Commands run without a shell, so a leading VAR=value does not set the "
            "environment: run the command alone."
        )
    return argv


def is_allowed(argv: Sequence[str], allowlist: Iterable[str]) -> bool:
    """Whether ``argv`` starts with the exact tokens of an allowlist entry.

    Exact tokens only: ``/usr/bin/pytest`` or ``python3`` does not match
    ``pytest`` or ``python``; the allowlist names each form it allows.
    """
    for entry in allowlist:
        tokens = shlex.split(entry)
        if tokens and list(argv[: len(tokens)]) == tokens:
            return True
    return False
