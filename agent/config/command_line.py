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

from agent import messages
from agent.staging.workspace import ToolError

SHELL_OPERATORS = frozenset({"&&", "||", "|", ";", ">", ">>", "<", "&", "2>", "2>&1", "&>", "|&"})


class BadCommand(ToolError):
    reason = "bad_command"


def parse_command(text: str) -> list[str]:
    """``text`` as an argv, or ``BadCommand`` saying how to write it."""
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise BadCommand(messages.COMMAND_UNPARSABLE.format(error=error)) from None
    if not argv:
        raise BadCommand(messages.COMMAND_EMPTY)
    operators = [token for token in argv if token in SHELL_OPERATORS]
    if operators:
        raise BadCommand(messages.COMMAND_SHELL_OPERATOR.format(operator=operators[0]))
    if argv[0] == "cd":
        raise BadCommand(messages.COMMAND_CD)
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", argv[0]):
        raise BadCommand(messages.COMMAND_ASSIGNMENT)
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
