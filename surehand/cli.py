"""The ``surehand`` command line: each front end's commands, and the edit engine's.

``serve`` (the language server) is the one an editor waits for: it is
started before anything else is imported, building only its own parser.
The others are the terminal's (``surehand.terminal``), the Agent Client
Protocol agent (``acp``) and the engine's (``apply-patch``, ``eval``).
This module is the only one that knows every front end.
"""

from __future__ import annotations

import argparse
import sys

from lsp_server.cli import serve, serve_arguments, serve_main


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        return serve_main(argv[1:], prog="surehand serve")
    from acp_server import cli as acp_cli  # noqa: PLC0415 - not needed to serve
    from editing.disk import cli as editing_cli  # noqa: PLC0415
    from surehand.terminal import commands as agent_cli  # noqa: PLC0415

    parser = argparse.ArgumentParser(prog="surehand", description="surehand command line")
    parser.add_argument("--version", action="version", version=f"surehand {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serving = commands.add_parser(
        "serve",
        help="run the language server (stdio by default)",
        description="Run the surehand language server on stdio, or on TCP with --tcp.",
    )
    serve_arguments(serving)
    serving.set_defaults(handler=serve)
    agent_cli.add_commands(commands)
    editing_cli.add_commands(commands)
    acp_cli.add_command(commands)
    args = parser.parse_args(argv)
    return args.handler(args)


def _version() -> str:
    from agent import __version__  # noqa: PLC0415

    return __version__


if __name__ == "__main__":
    sys.exit(main())
