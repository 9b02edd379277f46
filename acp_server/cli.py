"""``surehand acp``: the Agent Client Protocol agent on stdio.

Stdout belongs to the protocol; logging goes to stderr. The settings flags
are ``surehand run``'s; each session takes the settings in force for its
folder (the config files, the project's, the environment, the flags).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from agent.config.flags import effective_from_flags


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        stream=sys.stderr,
        level=args.log_level.upper(),
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    try:
        from acp import run_agent  # noqa: PLC0415 - pydantic models: loaded when serving
    except ImportError:
        print(
            "surehand acp needs the Agent Client Protocol's SDK: pip install 'surehand[acp]' "
            f"(it supports Python 3.10 to 3.14; this is {sys.version.split()[0]}).",
            file=sys.stderr,
        )
        return 2

    from agent import __version__  # noqa: PLC0415

    from .agent import SurehandAgent  # noqa: PLC0415

    agent = SurehandAgent(lambda root: effective_from_flags(args, Path(root)), __version__)
    try:
        # session/close: in the protocol's schema, still behind this flag in the SDK's router
        run = run_agent(agent, use_unstable_protocol=True)  # type: ignore[arg-type]
        asyncio.run(run)  # the SDK's Protocol, in part
    except KeyboardInterrupt:
        pass
    finally:
        agent.close()
    return 0


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from agent.config.flags import add_endpoint_flags  # noqa: PLC0415

    acp = commands.add_parser(
        "acp",
        help="run as an Agent Client Protocol agent on stdio (Zed, JetBrains, Toad, ...)",
        description="Run surehand as an Agent Client Protocol (v1) agent on stdio: the editor "
        "starts it, and each hunk of a proposal is put to you before anything is written "
        "(docs/acp.md).",
    )
    acp.add_argument("--log-level", default="WARNING", help="stderr log level")
    add_endpoint_flags(acp)
    acp.set_defaults(handler=run)
