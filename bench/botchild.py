"""The benches' bot process: the bot connected to a running sandbox until stdin closes.

`python -m bench.botchild --run-bot API_BASE GATEWAY_URL TOKEN DATABASE SEED PACE
[SHARD_COUNT SHARD_IDS]` runs the bot (PACE `default`, or `quick` for tests) on DATABASE
(an SQLite file's path, or a database URL), running the shards named (all when left out).
It imports what `python -m bot` imports and no sandbox module, so the memory and CPU the
benches read from it are the bot's alone.
"""

from __future__ import annotations

import asyncio
import cProfile
import dataclasses
import logging
import os
import random
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.client import ShitheadBot

COMMAND = "shithead"
# Timers (lobby, setup, turn, a reminder that far into a turn) that must not fire during a
# bench: a day. Fields the bot's `Timing` lacks are skipped.
NEVER = 86_400.0
TIMER_FIELDS = ("lobby_seconds", "setup_seconds", "turn_seconds", "remind_seconds")
# `--quick` (for tests only, figures not comparable): hardly any pacing or settling in
# the bot, and a sandbox without rate limits.
QUICK_TUNING: dict[str, Any] = {
    "writes_per_window": 1000,
    "settle_seconds": 0.005,
    "table_interval": 0.01,
    "identify_gap": 0.01,
}
# `--quick`: computer players move almost at once (the default waits 1.2 s, like people).
QUICK_COMPUTER_DELAY = 0.01
# How long on_ready waits after the last GUILD_CREATE (discord.py's default is 2 s; the
# sandbox's tests use the same).
GUILD_READY_TIMEOUT = 0.05
# How long writing a profile may take before the child exits without it (a busy loop's turn
# comes within a second; the file takes a few).
PROFILE_WRITE_SECONDS = 60.0


def bot_main(argv: list[str]) -> None:
    """Run the bot against a running sandbox until stdin closes (the bench's child)."""
    api_base, gateway_url, token, database, seed, pace, *shards = argv
    import uvloop

    from bot.client import Tuning, make_bot, use_discord_at
    from bot.lifecycle import tune_collector
    from bot.settings import get_settings

    logging.basicConfig(
        level=logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    use_discord_at(api_base, gateway_url)
    base = Tuning()
    timing = dataclasses.replace(base.timing, **dict.fromkeys(TIMER_FIELDS, NEVER))
    if pace == "quick":
        timing = dataclasses.replace(timing, computer_delay=QUICK_COMPUTER_DELAY)
    deals = random.Random(int(seed))
    quick = QUICK_TUNING if pace == "quick" else {}
    workers = os.environ.get("BENCH_MOVE_WORKERS")
    tuning = dataclasses.replace(
        base,
        timing=timing,
        seeds=lambda: deals.randrange(2**31),
        move_workers=int(workers) if workers else None,
        **quick,
    )
    where = {"database_url": database} if "://" in database else {"database_path": Path(database)}
    sharding = dict(zip(("shard_count", "shard_ids"), shards, strict=False))
    settings = get_settings(
        **where, **sharding, discord_token=None, command_name=COMMAND, dev_guild_id=None
    )
    bot = make_bot(settings, tuning)
    # Only start-up waits on this.
    bot._connection.guild_ready_timeout = GUILD_READY_TIMEOUT

    profile = Profile(os.environ["BENCH_PROFILE"]) if os.environ.get("BENCH_PROFILE") else None

    def leave_with_parent() -> None:
        """Exit when the bench closes our stdin (or dies), first writing the profile if any."""
        sys.stdin.read()
        if profile is not None:
            profile.write_from(bot.loop)
        os._exit(0)

    threading.Thread(target=leave_with_parent, daemon=True).start()
    tune_collector()  # as `python -m bot` does
    if profile is not None:
        profile.profiler.enable()
    uvloop.run(serve(bot, token))  # on the event loop `python -m bot` runs on


async def serve(bot: ShitheadBot, token: str) -> None:
    """Log in and run until the bench lets go (discord.py's `Client.run`, on uvloop's loop)."""
    async with bot:
        await bot.start(token)


class Profile:
    """The bot's main thread under cProfile, timed in that thread's CPU (BENCH_PROFILE=PATH).

    The profile is written when the bench lets go of the bot, from the loop itself, not at
    the bot's exit: a stop under the profiler can outlast the bench's patience (a bot
    profiled at 50 tables took over 90 s to close and was killed, its profile unwritten).
    Timed in CPU, a wait for the network or the disk counts for nothing, as in the bench's
    figure; the aiosqlite thread is not profiled.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.profiler = cProfile.Profile(time.thread_time)

    def write_from(self, loop: asyncio.AbstractEventLoop) -> None:
        """Stop profiling and write the profile, in the loop's thread (the one profiled)."""
        written = threading.Event()

        def write() -> None:
            self.profiler.disable()
            self.profiler.dump_stats(self.path)
            written.set()

        try:
            loop.call_soon_threadsafe(write)
        except (AttributeError, RuntimeError):
            return  # let go of before its loop ran, or after it closed: nothing to write
        written.wait(PROFILE_WRITE_SECONDS)


if __name__ == "__main__":
    if sys.argv[1:2] != ["--run-bot"]:
        sys.exit(
            "bench.botchild is the benches' bot process: run python -m bench.play or bench.load"
        )
    bot_main(sys.argv[2:])
