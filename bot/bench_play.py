"""Benchmark the bot: play seeded games through the sandbox and count what each move costs.

    python -m bot.bench_play --tables 20 --humans 3 --seed 1 [--think 0.3 1.2]
    python -m bot.bench_play --tables 20 --humans 2 --computers 1 --level expert

The sandbox runs in this process (Discord's default rate limits) and the bot in a child
process of its own (default tuning, timers too long to fire), so the bot's CPU time is
read from the child alone (`/proc/<pid>/stat`). Each table is opened in its own channel
with `/shithead create`, joined with the Join button and started by its host; then every
member plays from their DM view, using only what its components offer, after a seeded
think time. `--computers N` seats N computer players of `--level` at each table (the host
adds them with `/shithead addbot`); `--move-workers W` sizes the bot's move pool (0: none).
Human-readable figures come first; the last line printed is one JSON object.

`python -m bot.bench_play --run-bot API_BASE GATEWAY_URL TOKEN DATABASE SEED PACE` is the
child: the bot (PACE `default`, or `quick` for tests), connected to a running sandbox
until its stdin closes.
"""

from __future__ import annotations

import _thread
import argparse
import asyncio
import contextlib
import dataclasses
import json
import logging
import math
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.driver import ControlError, Driver
from sandbox.rules import RateLimit
from sandbox.server import DEFAULT_RATE_LIMITS, Sandbox
from sandbox.testing import TEST_GUILD_READY_TIMEOUT
from sandbox.world import DM, Message

JSON = dict[str, Any]
ROOT = Path(__file__).resolve().parents[1]
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
}
QUICK_RATE_LIMITS: dict[str, RateLimit] = {}
# How long a lobby whose answer was deferred may take to be drawn.
LOBBY_WAIT = 30.0
# `--quick`: computer players move almost at once (the default waits 1.2 s, like people).
QUICK_COMPUTER_DELAY = 0.01
# How often members look at their DMs when nothing seems to change.
POLL = 0.05
# The least time between two looks at the world (each look scans every message once).
REFRESH_GAP = 0.005
# How often the bench says how far it is (on stderr).
PROGRESS_SECONDS = 30.0
# A game without a Rematch button is over once it has seemed over this long.
OVER_SETTLE = 3.0
# A member whose view has not changed for this long tries its last view again.
STUCK_SECONDS = 20.0
# Verbs whose click (or choice) is a move; `sel`, `swh` and `swf` only prepare one.
MOVE_VERBS = ("ready", "play", "pickup", "flip", "stock", "swap", "choose", "stack")
ACTION_VERBS = (*MOVE_VERBS, "sel", "swh", "swf")
KINDS = (
    "callback",
    "interaction_webhook",
    "channel_send",
    "channel_edit",
    "dm_open",
    "dm_send",
    "dm_edit",
    "delete",
    "other",
)
# Interaction endpoints: exempt from Discord's global rate limit, not part of the budget.
EXEMPT = ("callback", "interaction_webhook")
CHANNEL_PATH = re.compile(r"/channels/(\d+)/messages")
REPORT_KEYS = (
    "tables",
    "humans",
    "seed",
    "quick",
    "games_finished",
    "human_moves",
    "moves_by_verb",
    "interactions",
    "refused_clicks",
    "stale_clicks",
    "wall_seconds",
    "calls",
    "calls_total",
    "calls_per_move",
    "budget_calls_per_move",
    "interaction_webhook_per_move",
    "answer_ms",
    "handoff_ms",
    "bot_cpu_seconds",
    "bot_cpu_ms_per_move",
    "cpu_source",
    "bench_process_cpu_seconds",
    "failures",
)


# ---------------------------------------------------------------------- the bot's process


def bot_main(argv: list[str]) -> None:
    """Run the bot against a running sandbox until stdin closes (the bench's child)."""
    api_base, gateway_url, token, database, seed, pace = argv
    from bot.client import ShitheadBot, Tuning, use_discord_at
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
    settings = get_settings(
        database_path=Path(database), discord_token=None, command_name=COMMAND, dev_guild_id=None
    )
    bot = ShitheadBot(settings, tuning)
    # Only start-up waits on this (discord.py's default is 2 s after the last guild).
    bot._connection.guild_ready_timeout = TEST_GUILD_READY_TIMEOUT

    def leave_with_parent() -> None:
        """Exit when the bench closes our stdin (or dies); when profiled, stop cleanly."""
        sys.stdin.read()
        if os.environ.get("BENCH_PROFILE"):
            _thread.interrupt_main()  # bot.run stops on KeyboardInterrupt; cProfile writes
            return
        os._exit(0)

    threading.Thread(target=leave_with_parent, daemon=True).start()
    bot.run(token, log_handler=None)


def cpu_seconds(pid: int) -> float | None:
    """Read a process's user + system CPU time (all its threads), or None off Linux."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.asynccontextmanager
async def bot_process(
    sandbox: Sandbox,
    database: Path,
    seed: int,
    log_path: Path,
    *,
    quick: bool = False,
    move_workers: int | None = None,
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Run the bot in a child process connected to the sandbox; stop it after the block."""
    env = dict(os.environ)
    if move_workers is not None:
        env["BENCH_MOVE_WORKERS"] = str(move_workers)
    with log_path.open("ab") as stderr:
        # BENCH_PROFILE=PATH runs the bot under cProfile and writes its profile there.
        profile = os.environ.get("BENCH_PROFILE")
        wrap = ["-m", "cProfile", "-o", profile] if profile else []
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            *wrap,
            "-m",
            "bot.bench_play",
            "--run-bot",
            sandbox.api_base,
            sandbox.gateway_url,
            sandbox.token,
            str(database),
            str(seed),
            "quick" if quick else "default",
            cwd=ROOT,
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        yield process
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 10)
        except TimeoutError:
            process.kill()
            await process.wait()


# ---------------------------------------------------------------------- what members see


def components(message: JSON | None) -> list[JSON]:
    """Return a message's buttons and selects, row by row."""
    if message is None:
        return []
    return [c for row in message.get("components") or [] for c in row.get("components") or []]


def verb_of(component: JSON, table_id: str | None = None) -> str | None:
    """Read the verb of a `sh:<table>:<version>:<verb>[:<arg>]` custom_id (of one table)."""
    parts = str(component.get("custom_id", "")).split(":")
    if len(parts) < 4 or parts[0] != "sh" or (table_id is not None and parts[1] != table_id):
        return None
    return parts[3]


def offered(message: JSON | None, table_id: str, verb: str) -> list[JSON]:
    """Return the enabled components of a verb on a message."""
    return [
        c for c in components(message) if verb_of(c, table_id) == verb and not c.get("disabled")
    ]


def actionable(message: JSON | None, table_id: str) -> bool:
    """Tell whether a private view offers its member something to do now."""
    return any(offered(message, table_id, verb) for verb in ACTION_VERBS)


def view_key(message: JSON) -> tuple[str, tuple[str, ...]]:
    """Identify one drawing of a view: its message and its components' custom_ids."""
    return message["id"], tuple(str(c.get("custom_id")) for c in components(message))


class Board:
    """What members see, recomputed from the sandbox once per change for every member."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.world = driver.world
        self.dm: dict[int, Message] = {}  # user id -> the bot's latest DM to them
        self.tables: dict[str, Message] = {}  # table id -> its latest public table message
        self._event = asyncio.Event()

    def refresh(self) -> None:
        """Scan every message once: latest DM per member, latest message per table."""
        world = self.world
        dm: dict[int, Message] = {}
        # A table message stays known when an edit takes its components away.
        tables = {k: m for k, m in self.tables.items() if m.id in world.messages}
        for message in world.messages.values():
            channel = world.channels.get(message.channel_id)
            if channel is None or message.author_id != world.bot.id:
                continue
            if channel.type == DM:
                if channel.recipient_id is not None:
                    dm[channel.recipient_id] = message
            elif message.visible_to is None:
                for row in message.components:
                    for component in row.get("components") or []:
                        parts = str(component.get("custom_id", "")).split(":")
                        if len(parts) >= 4 and parts[0] == "sh":
                            tables[parts[1]] = message
        self.dm, self.tables = dm, tables
        self._event.set()
        self._event = asyncio.Event()

    async def run(self) -> None:
        """Refresh on every change to the world (at most every REFRESH_GAP) until cancelled."""
        while True:
            changed = self.world.changed
            self.refresh()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), POLL)
            await asyncio.sleep(REFRESH_GAP)

    async def wait(self, timeout: float = POLL * 4) -> None:
        """Wait for the next refresh (or the timeout)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._event.wait(), timeout)

    def latest_dm(self, user_id: int) -> JSON | None:
        """Return the bot's latest DM to a member, as the control API shows it."""
        message = self.dm.get(user_id)
        if message is None or message.id not in self.world.messages:
            return None
        return self.driver.message_view(message)

    def message(self, message_id: str) -> JSON | None:
        """Return a message as it is now, or None once deleted."""
        message = self.world.messages.get(int(message_id))
        return None if message is None else self.driver.message_view(message)

    def table_verbs(self, table_id: str) -> set[str]:
        """Return the verbs the table's public message offers now."""
        message = self.tables.get(table_id)
        if message is None:
            return set()
        view = self.driver.message_view(message)
        return {v for c in components(view) if (v := verb_of(c, table_id)) is not None}


# ---------------------------------------------------------------------- playing


@dataclass
class Stats:
    """Everything the members measured while playing."""

    answer_ms: list[float] = field(default_factory=list)
    handoff_ms: list[float] = field(default_factory=list)
    moves: Counter[str] = field(default_factory=Counter)
    refused: int = 0
    stale: int = 0
    not_answered: list[JSON] = field(default_factory=list)
    finished: set[str] = field(default_factory=set)


class Bench:
    """Seeded members playing at many tables at once through one sandbox."""

    def __init__(
        self,
        sandbox: Sandbox,
        *,
        seed: int,
        think: tuple[float, float],
        preset: str | None,
        computers: int = 0,
        level: str = "expert",
    ) -> None:
        self.driver = sandbox.driver
        self.board = Board(self.driver)
        self.seed = seed
        self.think = think
        self.preset = preset
        self.computers = computers
        self.level = level
        self.stats = Stats()
        self.user_ids: dict[str, int] = {}
        # When each table's last move (past setup) was answered, until a member sees the next turn.
        self.last_move: dict[str, float] = {}

    async def progress(self, tables: int, started: float) -> None:
        """Say on stderr, every PROGRESS_SECONDS, how far the games are."""
        while True:
            await asyncio.sleep(PROGRESS_SECONDS)
            print(
                f"[{time.perf_counter() - started:.0f} s] {len(self.stats.finished)}/{tables} "
                f"games over, {sum(self.stats.moves.values())} human moves",
                file=sys.stderr,
                flush=True,
            )

    async def timed(self, call: Awaitable[JSON], what: str) -> JSON:
        """Send one interaction and record how long the bot took to answer it."""
        started = time.perf_counter()
        result = await call
        self.stats.answer_ms.append((time.perf_counter() - started) * 1000)
        if result.get("status") != "answered":
            self.stats.not_answered.append({"what": what, **result})
        return result

    async def open_table(self, channel: str, host: str, others: list[str]) -> str:
        """Create a table as the host, seat the others by its Join button, and start it."""
        options = {"preset": self.preset} if self.preset else {}
        command = f"{COMMAND} create"
        result = await self.timed(self.driver.command(host, channel, command, options), command)
        lobby = await self.drawn(result.get("response"))
        if not any(verb_of(c) == "join" for c in components(lobby)) and options:
            # The server may not let hosts pick a preset: take its house rules.
            result = await self.timed(self.driver.command(host, channel, command), command)
            lobby = await self.drawn(result.get("response"))
        join = next((c for c in components(lobby) if verb_of(c) == "join"), None)
        if lobby is None or join is None:
            raise RuntimeError(f"no table opened in #{channel}: {result}")
        table_id = str(join["custom_id"]).split(":")[1]
        for name in others:
            answer = await self.timed(
                self.driver.click(name, lobby["id"], join["custom_id"]), "join"
            )
            if answer.get("status") == "answered":
                lobby = self.board.message(lobby["id"]) or lobby
        for _ in range(self.computers):
            added = await self.driver.command(
                host, channel, f"{COMMAND} addbot", {"difficulty": self.level}
            )
            if added.get("status") != "answered":
                raise RuntimeError(f"no computer player added at table {table_id}: {added}")
        lobby = self.board.message(lobby["id"]) or lobby
        start = next((c for c in components(lobby) if verb_of(c, table_id) == "start"), None)
        if start is None:
            raise RuntimeError(f"table {table_id} offers no Start button: {lobby}")
        await self.timed(self.driver.click(host, lobby["id"], start["custom_id"]), "start")
        return table_id

    async def drawn(self, message: JSON | None) -> JSON | None:
        """Wait for a deferred answer ("thinking…", on a busy bot) to be drawn; return it."""
        if message is None or not message.get("loading"):
            return message
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(LOBBY_WAIT):
                while (self.board.message(message["id"]) or message).get("loading"):
                    await self.board.wait()
        return self.board.message(message["id"]) or message

    def over(self, table_id: str, names: list[str]) -> bool | None:
        """Tell whether a started game is over: True, False, or None when it only seems so."""
        # Over: the table message offers Rematch. Seems so: it offers neither My hand nor
        # the lobby's buttons, and no member's DM view offers anything to do.
        verbs = self.board.table_verbs(table_id)
        if "rematch" in verbs:
            return True
        if verbs & {"hand", "join", "leave", "start"}:
            return False
        views = (self.board.latest_dm(self.user_ids[name]) for name in names)
        return None if not any(actionable(v, table_id) for v in views) else False

    async def play_table(self, index: int, channel: str, names: list[str]) -> None:
        """Open a table and let its members play until the table message says it is over."""
        table_id = await self.open_table(channel, names[0], names[1:])
        done = asyncio.Event()

        async def watch() -> None:
            """Wait until the game is over, then stop the members."""
            seems_over: float | None = None
            while True:
                over = self.over(table_id, names)
                if over is None:
                    seems_over = seems_over or time.monotonic()
                    over = time.monotonic() - seems_over >= OVER_SETTLE
                else:
                    seems_over = None
                if over:
                    break
                await self.board.wait()
            self.stats.finished.add(table_id)
            done.set()

        members = [
            asyncio.create_task(self.member(table_id, name, self.user_ids[name], done, index))
            for name in names
        ]
        try:
            await watch()
        finally:
            for task in members:
                task.cancel()
            await asyncio.gather(*members, return_exceptions=True)

    async def member(
        self, table_id: str, name: str, user_id: int, done: asyncio.Event, index: int
    ) -> None:
        """Act whenever this member's latest DM view offers something new to do."""
        rng = random.Random(f"{self.seed}:{index}:{name}")
        acted: set[tuple[str, tuple[str, ...]]] = set()
        seen: set[tuple[str, tuple[str, ...]]] = set()
        since = time.monotonic()
        while not done.is_set():
            view = self.board.latest_dm(user_id)
            if view is not None and actionable(view, table_id) and view_key(view) not in seen:
                seen.add(view_key(view))
                moved = self.last_move.pop(table_id, None)
                if moved is not None:
                    self.stats.handoff_ms.append((time.perf_counter() - moved) * 1000)
            if view is None or not actionable(view, table_id) or view_key(view) in acted:
                if acted and time.monotonic() - since > STUCK_SECONDS:
                    acted.clear()  # nothing came of the last click: look again
                    since = time.monotonic()
                await self.board.wait()
                continue
            await asyncio.sleep(rng.uniform(*self.think))
            view = self.board.latest_dm(user_id)
            if view is None or not actionable(view, table_id):
                continue
            acted.add(view_key(view))
            since = time.monotonic()
            try:
                await self.move(rng, table_id, name, view)
            except ControlError:
                self.stats.stale += 1  # the view changed under the click

    async def move(self, rng: random.Random, table_id: str, name: str, view: JSON) -> None:
        """Make one move from a view: Ready; else play a random offer; else flip, stock, pick up."""
        message_id = view["id"]

        def pick(verb: str) -> JSON | None:
            found = offered(view, table_id, verb)
            return rng.choice(found) if found else None

        if (button := pick("ready")) is not None:
            await self.click(table_id, name, message_id, button, "ready")
            return
        if (menu := pick("choose")) is not None:
            count = int(menu.get("min_values", 1))
            values = rng.sample([o["value"] for o in menu.get("options", [])], count)
            await self.choose(table_id, name, message_id, menu, values, "choose")
            return
        plays = [(m, o) for m in offered(view, table_id, "sel") for o in m.get("options", [])]
        if plays:
            menu, option = rng.choice(plays)
            answer = await self.choose(table_id, name, message_id, menu, [option["value"]], None)
            if answer.get("status") != "answered":
                return
            button = await self.play_button(table_id, message_id, answer.get("response"))
            if button is not None:
                await self.click(table_id, name, message_id, button, "play")
            return
        for verb in ("flip", "stock", "pickup"):
            if (button := pick(verb)) is not None:
                await self.click(table_id, name, message_id, button, verb)
                return
        if (menu := pick("stack")) is not None:
            value = rng.choice(menu.get("options", []))["value"]
            await self.choose(table_id, name, message_id, menu, [value], "stack")

    async def play_button(
        self, table_id: str, message_id: str, response: JSON | None
    ) -> JSON | None:
        """Find the enabled Play button after a choice (waiting for the view to show it)."""
        found = offered(response, table_id, "play")
        if found:
            return found[0]

        def ready() -> JSON | None:
            now = offered(self.board.message(message_id), table_id, "play")
            return now[0] if now else None

        with contextlib.suppress(TimeoutError):
            button: JSON | None = await self.driver.wait_until(ready, timeout=5)
            return button
        return None

    async def click(
        self, table_id: str, name: str, message_id: str, button: JSON, verb: str
    ) -> JSON:
        """Click a button; count it as a move unless the bot refused it."""
        answer = await self.timed(
            self.driver.click(name, message_id, str(button["custom_id"])), verb
        )
        self.count(table_id, answer, verb)
        return answer

    async def choose(
        self,
        table_id: str,
        name: str,
        message_id: str,
        menu: JSON,
        values: list[str],
        verb: str | None,
    ) -> JSON:
        """Choose in a select menu; a choice that commits (`verb` given) counts as a move."""
        answer = await self.timed(
            self.driver.select(name, message_id, str(menu["custom_id"]), values),
            verb or "sel",
        )
        if verb is not None:
            self.count(table_id, answer, verb)
        elif refused(answer):
            self.stats.refused += 1
        return answer

    def count(self, table_id: str, answer: JSON, verb: str) -> None:
        """Count an answered, not refused click as a move (and time the next turn's arrival)."""
        if answer.get("status") != "answered":
            return
        if refused(answer):
            self.stats.refused += 1
            return
        self.stats.moves[verb] += 1
        if verb not in ("ready", "choose", "swap"):
            self.last_move[table_id] = time.perf_counter()


def refused(answer: JSON) -> bool:
    """Tell whether the bot answered a click with a note only its user sees (old view, not now)."""
    response = answer.get("response")
    return isinstance(response, dict) and bool(response.get("ephemeral"))


# ---------------------------------------------------------------------- the figures


def classify(entry: JSON, dm_channels: set[int]) -> str:
    """Name the kind of one REST call from the sandbox's log."""
    method, route = entry["method"], entry["route"]
    if route.startswith("/interactions/"):
        return "callback"
    if route.startswith("/webhooks/"):
        return "interaction_webhook"
    if method == "POST" and route == "/users/@me/channels":
        return "dm_open"
    found = CHANNEL_PATH.search(entry["path"])
    if found is None or not route.startswith("/channels/{channel_id}/messages"):
        return "other"
    dm = int(found[1]) in dm_channels
    if method == "DELETE" and route.endswith("{message_id}"):
        return "delete"
    if method == "POST" and route.endswith("/messages"):
        return "dm_send" if dm else "channel_send"
    if method == "PATCH" and route.endswith("{message_id}"):
        return "dm_edit" if dm else "channel_edit"
    return "other"


def webhook_target(entry: JSON, dm_channels: set[int], tokens: dict[str, int]) -> str:
    """Tell where an interaction-webhook call writes: "dm", "channel" or "unknown"."""
    parts = entry["path"].split("/webhooks/", 1)[-1].split("/")
    channel = tokens.get(parts[1]) if len(parts) > 1 else None
    if channel is None:
        return "unknown"
    return "dm" if channel in dm_channels else "channel"


def percentile(values: list[float], q: float) -> float | None:
    """Return the nearest-rank percentile `q` (0..1) of some values, None if there are none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(round(q * len(ordered), 9))))
    return ordered[rank - 1]


def per_move(value: float, moves: int) -> float | None:
    """Divide by the number of moves (None without moves), rounded for the report."""
    return round(value / moves, 4) if moves else None


def rounded(value: float | None, digits: int = 1) -> float | None:
    """Round a figure that may be missing."""
    return None if value is None else round(value, digits)


async def quiet(driver: Driver, seconds: float, limit: float) -> None:
    """Wait until the bot has made no REST call for `seconds` (at most `limit` seconds)."""
    deadline = time.monotonic() + limit
    calls, since = len(driver.world.log), time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - since < seconds:
        await asyncio.sleep(0.1)
        if len(driver.world.log) != calls:
            calls, since = len(driver.world.log), time.monotonic()


def log_problems(path: Path) -> list[str]:
    """Return the bot log's warning and error lines (with their first traceback line)."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return []
    return [line for line in lines if " WARNING " in line or " ERROR " in line]


# ---------------------------------------------------------------------- running it


@dataclass(frozen=True)
class Options:
    """What to benchmark: how many tables and members, the seed, the members' pace."""

    tables: int = 20
    humans: int = 3
    seed: int = 1
    think: tuple[float, float] = (0.3, 1.2)
    max_seconds: float = 1800.0
    preset: str | None = "classic"
    quiet_seconds: float = 6.0
    bot_log: Path | None = None
    quick: bool = False
    computers: int = 0
    level: str = "expert"
    move_workers: int | None = None


async def run_bench(options: Options) -> JSON:
    """Play the tables through a sandbox against the bot in a child process; return the figures."""
    bench_cpu = time.process_time()
    with tempfile.TemporaryDirectory(prefix="bench-play-") as tmp:
        log_path = options.bot_log or Path(tmp) / "bot.log"
        # Discord's default rate limits, unless quick.
        limits = QUICK_RATE_LIMITS if options.quick else DEFAULT_RATE_LIMITS
        sandbox = Sandbox(host="127.0.0.1", port=0, rate_limits=limits)
        await sandbox.start()
        try:
            return await _bench(sandbox, options, Path(tmp), log_path, bench_cpu)
        finally:
            await sandbox.stop()


async def _bench(
    sandbox: Sandbox, options: Options, tmp: Path, log_path: Path, bench_cpu: float
) -> JSON:
    """Create the members and channels, start the bot, play every table, measure."""
    driver = sandbox.driver
    bench = Bench(
        sandbox,
        seed=options.seed,
        think=options.think,
        preset=options.preset,
        computers=options.computers,
        level=options.level,
    )
    seating: list[tuple[str, list[str]]] = []
    for t in range(1, options.tables + 1):
        channel = (await driver.create_channel(f"bench-{t}"))["name"]
        names = [f"t{t}p{h}" for h in range(1, options.humans + 1)]
        for name in names:
            bench.user_ids[name] = int((await driver.create_user(name))["id"])
        seating.append((channel, names))
    children_before = _children_cpu()
    table_errors: list[str] = []
    database = tmp / "bot.sqlite3"
    async with bot_process(
        sandbox,
        database,
        options.seed,
        log_path,
        quick=options.quick,
        move_workers=options.move_workers,
    ) as process:
        try:
            await driver.wait_ready(timeout=60)
        except TimeoutError:
            tail = log_path.read_text(errors="replace")[-4000:]
            raise RuntimeError(f"the bot did not connect to the sandbox:\n{tail}") from None
        since = len(driver.world.log)
        cpu_start = cpu_seconds(process.pid)
        board = asyncio.create_task(bench.board.run())
        started = time.perf_counter()
        progress = asyncio.create_task(bench.progress(options.tables, started))
        tasks = [
            asyncio.create_task(bench.play_table(i, channel, names))
            for i, (channel, names) in enumerate(seating)
        ]
        done, pending = await asyncio.wait(tasks, timeout=options.max_seconds)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if pending:
            table_errors.append(f"{len(pending)} tables unfinished after {options.max_seconds} s")
        for task in done:
            if task.exception() is not None:
                table_errors.append(repr(task.exception()))
        played = time.perf_counter() - started
        await quiet(driver, options.quiet_seconds, limit=60.0)
        wall = time.perf_counter() - started
        cpu_end = cpu_seconds(process.pid)
        for helper in (board, progress):
            helper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await helper
        log = driver.log(since)
        dm_channels = {c.id for c in driver.world.channels.values() if c.type == DM}
        tokens = {i.token: i.channel_id for i in driver.world.interactions.values()}
    if cpu_start is not None and cpu_end is not None:
        bot_cpu = cpu_end - cpu_start
        source = f"/proc/{process.pid}/stat utime+stime of the bot's own process, ready to end"
    else:
        bot_cpu = _children_cpu() - children_before
        source = "getrusage(RUSAGE_CHILDREN) of the bot's process, whole life (start-up too)"
    return report(
        options,
        bench.stats,
        log,
        dm_channels,
        tokens=tokens,
        played=played,
        wall=wall,
        bot_cpu=bot_cpu,
        cpu_source=source,
        bench_cpu=time.process_time() - bench_cpu,
        table_errors=table_errors,
        log_problems=log_problems(log_path),
    )


def _children_cpu() -> float:
    """Return the CPU seconds of this process's finished, waited-for children."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def report(
    options: Options,
    stats: Stats,
    log: list[JSON],
    dm_channels: set[int],
    *,
    tokens: dict[str, int] | None = None,
    played: float,
    wall: float,
    bot_cpu: float,
    cpu_source: str,
    bench_cpu: float,
    table_errors: list[str],
    log_problems: list[str],
) -> JSON:
    """Turn the measurements into the report's JSON object."""
    calls = Counter({kind: 0 for kind in KINDS})
    errors: Counter[str] = Counter()
    webhooks: Counter[str] = Counter()
    for entry in log:
        kind = classify(entry, dm_channels)
        calls[kind] += 1
        if kind == "interaction_webhook":
            webhooks[webhook_target(entry, dm_channels, tokens or {})] += 1
        if entry["status"] >= 400:
            errors[f"{entry['method']} {entry['route']} {entry['status']} {entry['code']}"] += 1
    moves = sum(stats.moves.values())
    budget = sum(n for kind, n in calls.items() if kind not in EXEMPT)
    return {
        "tables": options.tables,
        "humans": options.humans,
        "computers": options.computers,
        "level": options.level,
        "move_workers": options.move_workers,
        "seed": options.seed,
        "quick": options.quick,
        "games_finished": len(stats.finished),
        "human_moves": moves,
        "moves_by_verb": dict(sorted(stats.moves.items())),
        "interactions": len(stats.answer_ms),
        "refused_clicks": stats.refused,
        "stale_clicks": stats.stale,
        "wall_seconds": round(wall, 2),
        "play_seconds": round(played, 2),
        "calls": dict(calls),
        "calls_total": sum(calls.values()),
        "calls_per_move": {kind: per_move(n, moves) for kind, n in calls.items()},
        "budget_calls_per_move": per_move(budget, moves),
        # Where the interaction-webhook calls write: a DM or a guild channel (by the token's
        # interaction), per human move.
        "interaction_webhook_per_move": {
            where: per_move(webhooks[where], moves) for where in ("dm", "channel", "unknown")
        },
        "answer_ms": {
            "p50": rounded(percentile(stats.answer_ms, 0.5)),
            "p99": rounded(percentile(stats.answer_ms, 0.99)),
            "max": rounded(max(stats.answer_ms, default=None)),
            "mean": rounded(statistics.fmean(stats.answer_ms) if stats.answer_ms else None),
        },
        # From a move's answer until a member of its table sees an actionable view: how long
        # the bot (settling, pacing, writing) keeps the next player waiting.
        "handoff_ms": {
            "p50": rounded(percentile(stats.handoff_ms, 0.5)),
            "p99": rounded(percentile(stats.handoff_ms, 0.99)),
            "mean": rounded(statistics.fmean(stats.handoff_ms) if stats.handoff_ms else None),
            "count": len(stats.handoff_ms),
        },
        "bot_cpu_seconds": round(bot_cpu, 3),
        "bot_cpu_ms_per_move": per_move(bot_cpu * 1000, moves),
        "cpu_source": cpu_source,
        "bench_process_cpu_seconds": round(bench_cpu, 3),
        "failures": {
            "interactions_not_answered": len(stats.not_answered),
            "not_answered": stats.not_answered[:10],
            "rest_errors": sum(errors.values()),
            "rest_errors_by_call": dict(errors),
            "table_errors": table_errors,
            "bot_log_problems": len(log_problems),
            "bot_log_sample": log_problems[:5],
        },
    }


def describe(figures: JSON, options: Options) -> list[str]:
    """Write the figures for people, one line each."""
    moves = figures["human_moves"]
    verbs = ", ".join(f"{verb} {n}" for verb, n in figures["moves_by_verb"].items())
    answer, handoff, failures = figures["answer_ms"], figures["handoff_ms"], figures["failures"]
    lines = [
        f"bench: {options.tables} tables x {options.humans} humans"
        + (f" + {options.computers} {options.level}" if options.computers else "")
        + f", seed {options.seed}, "
        f"think {options.think[0]}-{options.think[1]} s"
        + (" (quick pacing: figures not comparable)" if options.quick else ""),
        f"games finished {figures['games_finished']}/{options.tables}, human moves {moves} "
        f"({verbs}), {figures['interactions']} interactions, wall {figures['wall_seconds']} s",
        f"REST calls by the bot: {figures['calls_total']}, per human move:",
    ]
    for kind, n in figures["calls"].items():
        lines.append(f"  {kind:<20} {n:>7}  {figures['calls_per_move'][kind]}")
    hooks = figures["interaction_webhook_per_move"]
    lines += [
        f"  (interaction webhooks per move: to DMs {hooks['dm']}, to channels {hooks['channel']})",
        f"budget calls per move (all but callbacks and interaction webhooks): "
        f"{figures['budget_calls_per_move']}",
        f"answer time: p50 {answer['p50']} ms, p99 {answer['p99']} ms, max {answer['max']} ms",
        f"next turn shown after a move: p50 {handoff['p50']} ms, p99 {handoff['p99']} ms",
        f"bot CPU: {figures['bot_cpu_ms_per_move']} ms per human move "
        f"({figures['bot_cpu_seconds']} s; {figures['cpu_source']})",
        f"failures: {failures['interactions_not_answered']} interactions not answered, "
        f"{failures['rest_errors']} REST errors {failures['rest_errors_by_call'] or ''}, "
        f"{len(failures['table_errors'])} table errors, "
        f"{failures['bot_log_problems']} warnings/errors in the bot's log",
    ]
    return lines


def parse_options(argv: list[str]) -> Options:
    """Read the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.bench_play",
        description="Play seeded games through the sandbox and measure the bot per human move.",
    )
    parser.add_argument("--tables", type=int, default=20, help="tables played at once")
    parser.add_argument("--humans", type=int, default=3, help="human members per table")
    parser.add_argument("--seed", type=int, default=1, help="seeds deals, moves and think times")
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        metavar=("MIN", "MAX"),
        default=(0.3, 1.2),
        help="seconds a member thinks before each click (uniform)",
    )
    parser.add_argument("--max-seconds", type=float, default=1800.0, help="stop playing after")
    parser.add_argument(
        "--preset", default="classic", help="house-rule preset to ask for ('' for none)"
    )
    parser.add_argument(
        "--quiet",
        type=float,
        default=6.0,
        help="after the games, wait until the bot has been silent this long",
    )
    parser.add_argument("--computers", type=int, default=0, help="computer players per table")
    parser.add_argument("--level", default="expert", help="the computer players' strategy")
    parser.add_argument(
        "--move-workers",
        type=int,
        default=None,
        help="processes thinking out computer moves (default: sized to the machine; 0: none)",
    )
    parser.add_argument("--bot-log", type=Path, default=None, help="keep the bot's log here")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="for tests: almost no pacing in the bot, no rate limits (figures not comparable)",
    )
    args = parser.parse_args(argv)
    if args.tables < 1 or args.humans < 1 or not 0 <= args.think[0] <= args.think[1]:
        parser.error("need --tables >= 1, --humans >= 1 and 0 <= MIN <= MAX")
    if args.computers < 0 or (args.move_workers is not None and args.move_workers < 0):
        parser.error("need --computers >= 0 and --move-workers >= 0")
    return Options(
        tables=args.tables,
        humans=args.humans,
        seed=args.seed,
        think=(args.think[0], args.think[1]),
        max_seconds=args.max_seconds,
        preset=args.preset or None,
        quiet_seconds=args.quiet,
        bot_log=args.bot_log,
        quick=args.quick,
        computers=args.computers,
        level=args.level,
        move_workers=args.move_workers,
    )


def main(argv: list[str] | None = None) -> int:
    """Run the bench (or, with `--run-bot`, be its bot); 0 when every game finished."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--run-bot"]:
        bot_main(args[1:])
        return 0
    options = parse_options(args)
    figures = asyncio.run(run_bench(options))
    for line in describe(figures, options):
        print(line)
    print(json.dumps(figures, ensure_ascii=False), flush=True)
    return 0 if figures["games_finished"] == options.tables else 1


if __name__ == "__main__":
    sys.exit(main())
