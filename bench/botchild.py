"""The benches' bot process: the bot connected to a running sandbox until stdin closes.

`python -m bench.botchild --run-bot API_BASE GATEWAY_URL TOKEN DATABASE SEED PACE
[SHARD_COUNT SHARD_IDS]` runs the bot (PACE `default`, or `quick` for tests) on DATABASE
(an SQLite file's path, or a database URL), running the shards named (all when left out).
It imports what `python -m bot` imports and no sandbox module, so the memory and CPU the
benches read from it are the bot's alone.
"""

from __future__ import annotations

import _thread
import dataclasses
import logging
import os
import random
import sys
import threading
from pathlib import Path
from typing import Any

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


def bot_main(argv: list[str]) -> None:
    """Run the bot against a running sandbox until stdin closes (the bench's child)."""
    api_base, gateway_url, token, database, seed, pace, *shards = argv
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

    def leave_with_parent() -> None:
        """Exit when the bench closes our stdin (or dies); when profiled, stop cleanly."""
        sys.stdin.read()
        if os.environ.get("BENCH_PROFILE"):
            _thread.interrupt_main()  # bot.run stops on KeyboardInterrupt; cProfile writes
            return
        os._exit(0)

    threading.Thread(target=leave_with_parent, daemon=True).start()
    tune_collector()  # as `python -m bot` does
    bot.run(token, log_handler=None)


if __name__ == "__main__":
    if sys.argv[1:2] != ["--run-bot"]:
        sys.exit(
            "bench.botchild is the benches' bot process: run python -m bench.play or bench.load"
        )
    bot_main(sys.argv[2:])
