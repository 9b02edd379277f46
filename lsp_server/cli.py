"""``surehand serve`` (and ``python -m lsp_server``): the language server on stdio or TCP.

Nothing is printed to stdout by the server: it belongs to the protocol.
Logging goes to stderr, set up here and only here.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import SurehandServer


def serve_main(argv: list[str] | None = None, prog: str = "python -m lsp_server") -> int:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Run the surehand language server on stdio, or on TCP with --tcp.",
    )
    serve_arguments(parser)
    return serve(parser.parse_args(argv))


def serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level")
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="let the workspace's .surehand.toml set the endpoint, allowlist and sandbox",
    )


def serve(args: argparse.Namespace) -> int:
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
