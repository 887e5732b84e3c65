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
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import CodeType, FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.client import ShitheadBot

COMMAND = "shithead"
# The project's root: frames in its files are named from here.
ROOT = Path(__file__).resolve().parent.parent
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
# A sample of the main thread's stack every this much of the process's CPU (BENCH_SAMPLE).
SAMPLE_SECONDS = 0.001


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
    sampler = Sampler(os.environ["BENCH_SAMPLE"]) if os.environ.get("BENCH_SAMPLE") else None

    def leave_with_parent() -> None:
        """Exit when the bench closes our stdin (or dies), first writing what was measured."""
        sys.stdin.read()
        for measure in (profile, sampler):
            if measure is not None:
                measure.write_from(bot.loop)
        os._exit(0)

    threading.Thread(target=leave_with_parent, daemon=True).start()
    tune_collector()  # as `python -m bot` does
    if profile is not None:
        profile.profiler.enable()
    if sampler is not None:
        sampler.start()
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

        write_in_loop(loop, write, written)


class Sampler:
    """The bot's main thread sampled in the process's CPU time (BENCH_SAMPLE=PATH).

    Every `SAMPLE_SECONDS` of CPU the process spends (any thread's, the SQLite thread's too),
    SIGPROF takes the main thread's Python stack where it stands. Unlike cProfile it costs
    nothing per call, so small functions are not inflated; but a signal is handled between
    bytecodes, so CPU spent in C (a system call, orjson, another thread while the loop
    waits) is charged to the Python frame that runs next: read a function with its
    callers, not its own time alone. The file holds one line per stack seen, outermost
    frame first, and its count (flame graph tools' collapsed stacks); `python -m
    bench.samples PATH` sums it by function.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.stacks: Counter[tuple[CodeType, ...]] = Counter()

    def start(self) -> None:
        """Take a sample every `SAMPLE_SECONDS` of the process's CPU from now on."""
        signal.signal(signal.SIGPROF, self._take)
        signal.setitimer(signal.ITIMER_PROF, SAMPLE_SECONDS, SAMPLE_SECONDS)

    def _take(self, signum: int, frame: FrameType | None) -> None:
        stack = []
        while frame is not None:
            stack.append(frame.f_code)
            frame = frame.f_back
        self.stacks[tuple(reversed(stack))] += 1

    def write_from(self, loop: asyncio.AbstractEventLoop) -> None:
        """Stop sampling and write the stacks, in the loop's thread (the one sampled)."""
        written = threading.Event()

        def write() -> None:
            signal.setitimer(signal.ITIMER_PROF, 0, 0)
            lines = [
                f"{';'.join(map(_frame_name, stack))} {count}\n"
                for stack, count in self.stacks.most_common()
            ]
            Path(self.path).write_text("".join(lines), encoding="utf-8")
            written.set()

        write_in_loop(loop, write, written)


def _frame_name(code: CodeType) -> str:
    """Name a frame's function by its file (within the project or the packages) and line."""
    where = code.co_filename
    for root in (str(ROOT) + os.sep, "site-packages" + os.sep):
        where = where.rpartition(root)[2] or where
    return f"{where}:{code.co_firstlineno}({code.co_qualname})"


def write_in_loop(
    loop: asyncio.AbstractEventLoop, write: Callable[[], None], written: threading.Event
) -> None:
    """Run `write` in the loop's thread and wait for it (a while) to be done."""
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
