"""Run the bot: `python -m bot`."""

from __future__ import annotations

import logging
import sys

from bot.logs import setup_logging
from bot.settings import SettingsError, get_settings

log = logging.getLogger("bot")

NO_TOKEN_HELP = """\
No DISCORD_TOKEN is set, so the bot would start the local sandbox (a stand-in for
Discord on this machine). The sandbox is not built yet.

To play on Discord instead:
  1. Create an application at https://discord.com/developers/applications
  2. Under "Bot", reset and copy the token.
  3. Put it in .env as DISCORD_TOKEN=... (see .env.example) and run `make run` again.
"""


def main() -> int:
    """Read settings, set up logging, then connect to Discord or explain what is missing."""
    try:
        settings = get_settings()
    except SettingsError as exc:
        print(exc, file=sys.stderr)
        return 2
    setup_logging(settings.log_level)
    if not settings.has_token:
        print(NO_TOKEN_HELP, file=sys.stderr)
        return 1
    from bot.client import run_bot

    run_bot(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
