"""The real bot, quickened for tests, as a process of its own (for the crash test).

`python -m tests.bot.restart_bot API_BASE GATEWAY_URL TOKEN DATABASE SETTLE_SECONDS`
connects a `ShitheadBot` on DATABASE (an SQLite file's path, or a database URL) to a
running sandbox and runs until it is killed. SETTLE_SECONDS is how long a redraw waits
before it is written.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bot.client import ShitheadBot, Tuning, use_discord_at
from bot.logs import setup_logging
from bot.settings import get_settings
from sandbox.testing import TEST_GUILD_READY_TIMEOUT
from tables.timers import Timing

SEED = 4242


def make_bot(database: Path | str, settle: float) -> ShitheadBot:
    """Build the bot the way the in-process game tests do: fast timers, a fixed deal."""
    text = str(database)
    where = {"database_url": text} if "://" in text else {"database_path": Path(text)}
    settings = get_settings(**where, discord_token=None)
    tuning = Tuning(
        timing=Timing(computer_delay=0.01, setup_seconds=60),
        writes_per_window=50,
        settle_seconds=settle,
        table_interval=0.05,
        seeds=lambda: SEED,
    )
    bot = ShitheadBot(settings, tuning)
    bot._connection.guild_ready_timeout = TEST_GUILD_READY_TIMEOUT
    return bot


def main(argv: list[str]) -> None:
    """Connect the bot to a running sandbox and run until stopped."""
    api_base, gateway_url, token, database, settle = argv
    setup_logging("INFO")
    use_discord_at(api_base, gateway_url)
    make_bot(database, float(settle)).run(token, log_handler=None)


if __name__ == "__main__":
    main(sys.argv[1:])
