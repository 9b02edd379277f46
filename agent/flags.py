"""The command-line flags that choose the model endpoint, shared by ``run`` and ``eval-tasks``."""

from __future__ import annotations

import argparse

from .settings import Settings


def add_endpoint_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", metavar="URL", help="endpoint (default: $OPENAI_BASE_URL)")
    parser.add_argument("--model", metavar="NAME", help="model name (default: $SUREHAND_MODEL)")
    parser.add_argument("--max-steps", type=int, metavar="N", help="step limit per task")


def settings_from_flags(args: argparse.Namespace) -> tuple[Settings, list[str]]:
    """The settings the flags override (a flag not given keeps the environment's or default)."""
    flags = {"model": args.model, "baseUrl": args.base_url, "maxSteps": args.max_steps}
    return Settings.parse(flags)
