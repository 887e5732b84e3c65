"""The command line of `python -m bot`: options for one run, and plain errors for mistakes."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

import uvloop

from bot.instance import InstanceError
from bot.lifecycle import StartupError, run_production, run_sandbox, tune_collector
from bot.logs import setup_logging
from bot.settings import LOG_LEVELS, SettingsError, load_settings, missing_token
from bot.storage import StorageError
from bot.version import __version__

log = logging.getLogger("bot")

# The exit status for a mistake a person can fix (as for a bad command line).
USAGE = 2


def _port(text: str) -> int:
    """Read a TCP port number (0 takes any free port)."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{number} is not a port number (0 to 65535)")
    return number


def build_parser() -> argparse.ArgumentParser:
    """Describe the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description=(
            "Run the Shithead Discord bot. With a DISCORD_TOKEN it connects to Discord; "
            "without one it runs against the local sandbox, a stand-in for Discord."
        ),
        epilog=(
            "Settings come from the environment and from .env in the current directory "
            "(see .env.example); these options override them for one run. SIGTERM or Ctrl-C "
            "stops the bot cleanly."
        ),
    )
    parser.add_argument("--version", action="version", version=f"shithead-bot {__version__}")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--production",
        action="store_true",
        help="connect to Discord, and refuse to start without DISCORD_TOKEN (never the sandbox)",
    )
    mode.add_argument(
        "--sandbox",
        action="store_true",
        help="run against the local sandbox even if DISCORD_TOKEN is set",
    )
    parser.add_argument(
        "--database",
        type=Path,
        metavar="PATH",
        help=(
            "the SQLite file for this run: instead of DATABASE_URL or DATABASE_PATH on Discord, "
            "or of SANDBOX_DATABASE_PATH in the sandbox (to keep a sandbox world across runs)"
        ),
    )
    parser.add_argument(
        "--sandbox-port",
        type=_port,
        metavar="N",
        help="the sandbox's port instead of SANDBOX_PORT (0 takes any free port)",
    )
    parser.add_argument(
        "--log-level",
        type=str.upper,
        choices=LOG_LEVELS,
        help="how much to log instead of LOG_LEVEL",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bot as the command line says; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.production and args.sandbox_port is not None:
        parser.error("--sandbox-port is for the sandbox, and --production never starts it")
    overrides: dict[str, object] = {}
    if args.log_level is not None:
        overrides["log_level"] = args.log_level
    if args.sandbox_port is not None:
        overrides["sandbox_port"] = args.sandbox_port
    try:
        settings, warnings = load_settings(**overrides)
    except SettingsError as exc:
        print(exc, file=sys.stderr)
        return USAGE
    setup_logging(settings.log_level)
    for warning in warnings:
        log.warning("%s", warning)
    in_sandbox = args.sandbox or not (args.production or settings.has_token)
    tune_collector()
    # The bot runs on uvloop's event loop: less CPU per move than asyncio's own.
    try:
        if in_sandbox:
            setting = "--database" if args.database else "SANDBOX_DATABASE_PATH"
            line = uvloop.run(run_sandbox(settings, database=args.database, setting=setting))
        else:
            if not settings.has_token:
                raise SettingsError(missing_token())
            setting = settings.database_setting
            if args.database is not None:
                update = {"database_path": args.database, "database_url": None}
                settings = settings.model_copy(update=update)
                setting = "--database"
            line = uvloop.run(run_production(settings, setting=setting))
    except (SettingsError, StartupError, InstanceError, StorageError) as exc:
        print(exc, file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:
        # Ctrl-C before the bot's own handler was in place: nothing was running yet.
        return 130
    log.info("%s", line)
    return 0
