"""The edit engine's commands: ``surehand eval`` and ``surehand apply-patch``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

from ..errors import EditError, PatchParseError
from ..patch import apply_patch, parse_patch
from . import eval as corpus_eval
from .workdir import Workdir

EXIT_APPLIED, EXIT_REFUSED, EXIT_PARSE_ERROR = 0, 1, 2

# what add_subparsers returns (generic only to the type checker)
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
Handler = Callable[[argparse.Namespace], int]  # each command's ``handler`` default


def add_commands(commands: Commands) -> None:
    """Register ``eval`` and ``apply-patch`` on a ``surehand`` command line."""
    evaluate = commands.add_parser(
        "eval",
        help="score the edit engine on an edit corpus",
        description=corpus_eval.DESCRIPTION,
        epilog=corpus_eval.EPILOG,
    )
    corpus_eval.add_arguments(evaluate)
    evaluate.set_defaults(handler=corpus_eval.command)
    patch = commands.add_parser(
        "apply-patch",
        help="apply a '*** Begin Patch' patch to a directory",
        description=(
            "Apply a patch in the '*** Begin Patch' format to the files of a directory, "
            "all files or none. Prints one line per file (A added, M modified, D deleted, "
            "R renamed) and the unified diff."
        ),
        epilog=(
            "Exit status: 0 applied, 1 refused (nothing changed), 2 the patch cannot be read "
            "or does not parse, or the directory does not exist."
        ),
    )
    patch.add_argument("patch", nargs="?", default="-", help="patch file (default: stdin)")
    patch.add_argument(
        "-C", "--directory", type=Path, default=Path(), help="directory the paths are in"
    )
    patch.add_argument("--dry-run", action="store_true", help="print the result, write nothing")
    patch.set_defaults(
        handler=lambda args: apply_patch_command(args.patch, args.directory, dry_run=args.dry_run)
    )


def main(argv: list[str] | None = None) -> int:
    """The edit engine's commands alone (``python -m editing.disk.cli``)."""
    parser = argparse.ArgumentParser(prog="surehand", description="surehand edit engine")
    add_commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    return handler(args)


def apply_patch_command(source: str, directory: Path, *, dry_run: bool) -> int:
    """Apply the patch in ``source`` (a file, ``-`` for stdin) to ``directory``; the exit status.

    Every path is checked before anything is applied, so a path outside the
    directory is refused even when an earlier operation would fail too.
    """
    if not directory.is_dir():
        print(f"No such directory: {directory}", file=sys.stderr)
        return EXIT_PARSE_ERROR
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except FileNotFoundError:
        print(f"No such patch file: {source}", file=sys.stderr)
        return EXIT_PARSE_ERROR
    except (OSError, UnicodeDecodeError) as error:
        print(f"Cannot read the patch file {source}: {error}", file=sys.stderr)
        return EXIT_PARSE_ERROR
    workdir = Workdir(directory)
    try:
        patch = parse_patch(text)
        for path in patch.paths:
            workdir.resolve(path)
        result = apply_patch(patch, workdir.read)
    except PatchParseError as error:
        print(error.message, file=sys.stderr)
        return EXIT_PARSE_ERROR
    except EditError as error:
        print(error.message, file=sys.stderr)
        return EXIT_REFUSED
    for line in result.summary:
        print(line)
    sys.stdout.write(result.diff)
    if dry_run:
        return EXIT_APPLIED
    try:
        workdir.write(result.files)
    except OSError as error:
        print(f"Writing failed: {error}", file=sys.stderr)
        return EXIT_REFUSED
    return EXIT_APPLIED


if __name__ == "__main__":
    sys.exit(main())
