"""The ``surehand`` command line."""

from __future__ import annotations

import argparse
import sys

from . import eval as corpus_eval


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="surehand", description="surehand command line")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "eval",
        help="score the edit engine on an edit corpus",
        add_help=False,
    )
    args, rest = parser.parse_known_args(argv)
    if args.command == "eval":
        return corpus_eval.main(rest, prog="surehand eval")
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
