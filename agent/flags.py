"""The command-line flags that choose the model endpoint, shared by ``run`` and ``eval-tasks``."""

from __future__ import annotations

import argparse

from .settings import Settings


def add_endpoint_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", metavar="URL", help="endpoint (default: $OPENAI_BASE_URL)")
    parser.add_argument("--model", metavar="NAME", help="model name (default: $SUREHAND_MODEL)")
    parser.add_argument("--max-steps", type=int, metavar="N", help="step limit per task")
    add_sandbox_flags(parser)


def add_sandbox_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox",
        choices=("auto", "bubblewrap", "off"),
        help="how commands are contained (default: auto, bubblewrap where it works; without "
        "a sandbox every command is asked first)",
    )
    parser.add_argument(
        "--sandbox-network", action="store_true", default=None, help="let commands use the network"
    )


def settings_from_flags(args: argparse.Namespace) -> tuple[Settings, list[str]]:
    """The settings the flags override (a flag not given keeps the environment's or default)."""
    flags = {
        "model": getattr(args, "model", None),
        "baseUrl": getattr(args, "base_url", None),
        "maxSteps": getattr(args, "max_steps", None),
        "sandbox": args.sandbox,
        "sandboxNetwork": args.sandbox_network,
    }
    return Settings.parse(flags)
