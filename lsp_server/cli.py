"""The ``surehand`` command line: ``serve`` plus the agent's and the edit engine's commands.

Nothing is printed to stdout by the server: it belongs to the protocol.
Logging goes to stderr, set up here and only here. ``serve`` builds only its
own parser: the other commands (and the agent and engine modules they
import) are not loaded by a server that an editor is waiting for.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import SurehandServer


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        return serve_main(argv[1:], prog="surehand serve")
    from acp_server import cli as acp_cli  # noqa: PLC0415 - not needed to serve
    from agent import cli as agent_cli  # noqa: PLC0415
    from editing.disk import cli as editing_cli  # noqa: PLC0415

    parser = argparse.ArgumentParser(prog="surehand", description="surehand command line")
    parser.add_argument("--version", action="version", version=f"surehand {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="run the language server (stdio by default)",
        description="Run the surehand language server on stdio, or on TCP with --tcp.",
    )
    _serve_arguments(serve)
    serve.set_defaults(handler=_serve)
    agent_cli.add_commands(commands)
    editing_cli.add_commands(commands)
    acp_cli.add_command(commands)
    args = parser.parse_args(argv)
    return args.handler(args)


def serve_main(argv: list[str] | None = None, prog: str = "python -m lsp_server") -> int:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Run the surehand language server on stdio, or on TCP with --tcp.",
    )
    _serve_arguments(parser)
    return _serve(parser.parse_args(argv))


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level")
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="let the workspace's .surehand.toml set the endpoint, allowlist and sandbox",
    )


def _serve(args: argparse.Namespace) -> int:
    logging.basicConfig(
        stream=sys.stderr,
        level=args.log_level.upper(),
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    server = _created_server()
    server.controller.trust_project = args.trust_project
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        from .server import end_process  # noqa: PLC0415 - loaded with the server

        server.start_io()
        end_process(server.stopped_by)
    return 0


def _version() -> str:
    from . import __version__  # noqa: PLC0415

    return __version__


def _created_server() -> SurehandServer:
    """The server, its modules imported with the garbage collector off.

    Importing ``lsprotocol`` and the server allocates a great many objects
    that live as long as the process; collections among them are wasted
    (a quarter of the time to import it all). They are
    moved out of the collector's sight (``gc.freeze``) once loaded.
    """
    gc.disable()
    try:
        from .server import create_server  # noqa: PLC0415 - imported with the collector off

        return create_server()
    finally:
        gc.freeze()
        gc.enable()


if __name__ == "__main__":
    sys.exit(main())
