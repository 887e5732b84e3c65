"""What the play and load benches share: seeded members playing through the sandbox.

The sandbox and the members run in the bench's process (Discord's default rate limits),
the bot in a child process of its own (default tuning, timers too long to fire), so the
bot's CPU time and memory are read from the child alone (`/proc/<pid>/stat` and
`/proc/<pid>/status`). Each table is opened in its own channel with `/shithead create`
(the tables one after another over an opening burst), joined with the Join button and
started by its host; then every member plays from their DM view, using only what its
components offer, after a seeded think time. Answer times are the sandbox's: from the
moment an interaction reaches it to the moment the bot's first callback does. The bench
also times itself (how late clicks go out, how late its event loop wakes, its CPU), so a
reader can tell whether the figures are about the bot or about the bench. Human-readable
figures come first; the last line printed is one JSON object.

The child is `python -m bench.botchild --run-bot ...` (see there): it imports no sandbox
module, so what is read from it is the bot's alone.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import json
import math
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.botchild import COMMAND
from bench.wake import recorded_units
from bench.wake import reference as wake_reference
from sandbox.driver import SUB_COMMAND, ControlError, Driver
from sandbox.rules import RateLimit
from sandbox.server import DEFAULT_RATE_LIMITS, Sandbox
from sandbox.world import DM, Interaction, Message, World
from tables.service import COMPUTER_LEVELS

JSON = dict[str, Any]
ROOT = Path(__file__).resolve().parents[1]
# The packages the bot child imports from the project (its libraries come compiled).
BOT_PACKAGES = ("bench", "bot", "engine", "tables")
# `--quick` (for tests only): a sandbox without rate limits.
QUICK_RATE_LIMITS: dict[str, RateLimit] = {}
# How often the board looks at the world when nothing seems to change.
POLL = 0.05
# The least time between two looks at the world (each look scans every message once); a
# look that took longer is followed by a pause as long, so scanning takes at most half the
# bench's time.
REFRESH_GAP = 0.005
# How often a member or a table's watcher looks again when nothing it watches changed.
WAKE_TIMEOUT = 1.0
# How often the bench says how far it is (on stderr).
PROGRESS_SECONDS = 30.0
# How often the bench's own event loop is checked for lateness.
LAG_TICK = 0.1
# A game without a Rematch button is over once it has seemed over this long.
OVER_SETTLE = 3.0
# A member whose view still shows what it clicked this long after the click, or whose click
# was its table's last, followed by no other click there and no change of the table message
# for this long, tries its last view again.
STUCK_SECONDS = 20.0
# How long a deferred answer ("thinking") may take to be filled in.
DEFERRED_WAIT = 60.0
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
# REST calls per move in three groups: the click's answer, edits through an interaction's
# token, and everything else.
GROUPS = {"callbacks": ("callback",), "token_edits": ("interaction_webhook",)}
CHANNEL_PATH = re.compile(r"/channels/(\d+)/messages")
REPORT_KEYS = (
    "tables",
    "humans",
    "computers",
    "level",
    "move_workers",
    "seed",
    "quick",
    "think_seconds",
    "burst_seconds",
    "pictures",
    "games_finished",
    "human_moves",
    "moves_by_verb",
    "interactions",
    "refused_clicks",
    "refused_by_reason",
    "stale_clicks",
    "stuck_retries",
    "unfinished_tables",
    "wall_seconds",
    "calls",
    "calls_total",
    "calls_per_move",
    "budget_calls_per_move",
    "interaction_webhook_per_move",
    "rest_per_move",
    "answer_ms",
    "expired_interactions",
    "handoff_ms",
    "bot_cpu_seconds",
    "bot_cpu_ms_per_move",
    "cpu_source",
    "bot_peak_rss_mb",
    "bot_processes",
    "bench_process_cpu_seconds",
    "driver",
    "machine",
    "failures",
)


# ---------------------------------------------------------------------- the bot's process


def cpu_seconds(pid: int) -> float | None:
    """Read a process's user + system CPU time (all its threads), or None off Linux."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# The reference loop's size: about 23 ms of one core's CPU on this machine (2 cores, 2026).
REFERENCE_STEPS = 400_000


def reference_ms() -> float:
    """Time a fixed pure-Python loop in this thread's CPU: how fast the machine is right now.

    The same code's CPU per move drifts by 30% on a shared machine within half an hour; runs
    whose loop took alike ran on an alike machine, so their figures compare.
    """
    started = time.thread_time()
    total = 0
    for step in range(REFERENCE_STEPS):
        total += step * step % 7
    return (time.thread_time() - started) * 1000


def peak_rss_mb(pid: int) -> float | None:
    """Read a process's peak resident memory (VmHWM) in MB, or None off Linux."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return None if found is None else round(int(found[1]) / 1024, 1)


def compile_bot() -> None:
    """Write the bytecode of the project's modules the bot child imports, where it is stale."""
    for package in BOT_PACKAGES:
        compileall.compile_dir(ROOT / package, quiet=2, workers=1)


@contextlib.asynccontextmanager
async def bot_process(
    sandbox: Sandbox,
    database: Path | str,
    seed: int,
    log_path: Path,
    *,
    quick: bool = False,
    shards: tuple[int, str] | None = None,
    move_workers: int | None = None,
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Run the bot in a child process connected to the sandbox; stop it after the block.

    `shards` is the shard count and the shards this process runs (`0-1`); all when None.
    `move_workers` sizes its move pool (None: to the machine).
    """
    # A bot runs from its modules' cached bytecode after its first start, whatever the
    # environment says of writing it (PYTHONDONTWRITEBYTECODE): compiled at start-up
    # instead, the bot would be measured with the compiler's leftovers (1.2 MB of RSS).
    await asyncio.to_thread(compile_bot)
    env = dict(os.environ)
    if move_workers is not None:
        env["BENCH_MOVE_WORKERS"] = str(move_workers)
    with log_path.open("ab") as stderr:
        # BENCH_PROFILE=PATH (passed on in the environment): the child profiles itself.
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.botchild",
            "--run-bot",
            sandbox.api_base,
            sandbox.gateway_url,
            sandbox.token,
            str(database),
            str(seed),
            "quick" if quick else "default",
            *([] if shards is None else [str(shards[0]), shards[1]]),
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


Watched = tuple[str, int | str]  # ("dm", user id) or ("table", table id)


def version(message: Message) -> tuple[int, str | None, int, int]:
    """Tell one state of a message from another (an edit stamps it and replaces its lists)."""
    return message.id, message.edited_timestamp, id(message.components), message.flags


class Board:
    """What members see, recomputed from the sandbox once per change; wakes whom it concerns.

    A member wakes when their latest DM changes, a table's watcher when its table message
    or one of its members' DMs does, so the bench's work grows with the changes, not with
    members times changes.
    """

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.world = driver.world
        self.dm: dict[int, Message] = {}  # user id -> the bot's latest DM to them
        self.tables: dict[str, Message] = {}  # table id -> its latest public table message
        self.table_of: dict[int, str] = {}  # user id -> the table they play at
        self.busy = 0.0  # seconds spent scanning the world
        self._versions: dict[Watched, tuple[int, str | None, int, int]] = {}
        self._waiting: dict[Watched, asyncio.Event] = {}
        # When what each key names last changed (time.monotonic()).
        self.changed_at: dict[Watched, float] = {}

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
                # A note only its member sees (a refusal, say) answers a view; it is none.
                if channel.recipient_id is not None and not message.ephemeral:
                    dm[channel.recipient_id] = message
            elif message.visible_to is None:
                for row in message.components:
                    for component in row.get("components") or []:
                        parts = str(component.get("custom_id", "")).split(":")
                        if len(parts) >= 4 and parts[0] == "sh":
                            tables[parts[1]] = message
        self.dm, self.tables = dm, tables
        versions: dict[Watched, tuple[int, str | None, int, int]] = {
            ("dm", user_id): version(message) for user_id, message in dm.items()
        }
        versions.update({("table", t): version(message) for t, message in tables.items()})
        now = time.monotonic()
        for key in versions.keys() | self._versions.keys():
            if versions.get(key) != self._versions.get(key):
                self.changed_at[key] = now
                self._wake(key)
                if key[0] == "dm" and (table := self.table_of.get(int(key[1]))) is not None:
                    self._wake(("table", table))
        self._versions = versions

    def _wake(self, key: Watched) -> None:
        """Wake whoever waits for a change of `key`."""
        event = self._waiting.pop(key, None)
        if event is not None:
            event.set()

    async def run(self) -> None:
        """Refresh on every change to the world (at most every REFRESH_GAP) until cancelled."""
        while True:
            changed = self.world.changed
            began = time.perf_counter()
            self.refresh()
            took = time.perf_counter() - began
            self.busy += took
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), POLL)
            await asyncio.sleep(max(REFRESH_GAP, took))

    async def wait(self, key: Watched, timeout: float = WAKE_TIMEOUT) -> None:
        """Wait until what `key` names changes (or the timeout)."""
        event = self._waiting.setdefault(key, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)

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

    handoff_ms: list[float] = field(default_factory=list)
    # How late the bench's clicks (and table openings) went out against their schedule,
    # and how late its event loop woke: the bench's own lag, not the bot's.
    click_lag_ms: list[float] = field(default_factory=list)
    loop_lag_ms: list[float] = field(default_factory=list)
    moves: Counter[str] = field(default_factory=Counter)
    refused: int = 0
    stale: int = 0
    # Times a member, nothing having come of its click for STUCK_SECONDS (its view unchanged,
    # or its table still: no click, no change of the table message), tried again.
    stuck: int = 0
    not_answered: list[JSON] = field(default_factory=list)
    opened: dict[str, list[str]] = field(default_factory=dict)  # table id -> its members
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
        # Who clicked last at each table, and when (time.monotonic()).
        self.last_click: dict[str, tuple[str, float]] = {}
        # Set when the play time is up: members and watchers stop (a cancellation alone can
        # be lost in asyncio.wait_for on Python 3.11).
        self.stopped = False

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

    async def watch_loop(self) -> None:
        """Record how late this process's event loop wakes, every LAG_TICK, until cancelled."""
        while True:
            planned = time.perf_counter() + LAG_TICK
            await asyncio.sleep(LAG_TICK)
            self.stats.loop_lag_ms.append((time.perf_counter() - planned) * 1000)

    async def pause(self, seconds: float) -> None:
        """Sleep, and record how much later than planned the bench went on."""
        planned = time.perf_counter() + seconds
        await asyncio.sleep(seconds)
        self.stats.click_lag_ms.append((time.perf_counter() - planned) * 1000)

    async def timed(self, call: Awaitable[JSON], what: str) -> JSON:
        """Send one interaction (the sandbox times its answer); note it if it went unanswered."""
        result = await call
        if result.get("status") != "answered":
            self.stats.not_answered.append({"what": what, **result})
        return result

    async def until(self, condition: Callable[[], JSON | None], timeout: float) -> JSON | None:
        """Return what `condition` gives once it gives something, looking every POLL s.

        None after `timeout` or once the play time is up. (Not `Driver.wait_until`: on
        Python 3.11 its asyncio.wait_for can lose the cancellation that ends it.)
        """
        deadline = time.monotonic() + timeout
        while True:
            value = condition()
            if value is not None or self.stopped or time.monotonic() >= deadline:
                return value
            await asyncio.sleep(POLL)

    async def filled(self, message: JSON | None) -> JSON | None:
        """Return an answer's message; after a deferral ("thinking"), once the bot filled it."""
        if message is None or not message.get("loading"):
            return message
        message_id = message["id"]

        def done() -> JSON | None:
            now = self.board.message(message_id)
            return now if now is None or not now["loading"] else None

        return await self.until(done, DEFERRED_WAIT) or self.board.message(message_id)

    async def open_table(self, channel: str, host: str, others: list[str]) -> str:
        """Create a table as the host, seat the others by its Join button, and start it."""
        options = {"preset": self.preset} if self.preset else {}
        command = f"{COMMAND} create"
        result = await self.timed(self.driver.command(host, channel, command, options), command)
        lobby = await self.filled(result.get("response"))
        answered = result.get("status") == "answered"
        if answered and options and not any(verb_of(c) == "join" for c in components(lobby)):
            # The server may not let hosts pick a preset: take its house rules. (A create
            # that expired is not tried again: the table is reported as never opened.)
            result = await self.timed(self.driver.command(host, channel, command), command)
            lobby = await self.filled(result.get("response"))
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
            command = f"{COMMAND} addbot"
            added = await self.timed(
                self.driver.command(host, channel, command, {"difficulty": self.level}), command
            )
            if added.get("status") != "answered":
                raise RuntimeError(f"no computer player added at table {table_id}: {added}")
        lobby = self.board.message(lobby["id"]) or lobby
        start = next((c for c in components(lobby) if verb_of(c, table_id) == "start"), None)
        if start is None:
            raise RuntimeError(f"table {table_id} offers no Start button: {lobby}")
        await self.timed(self.driver.click(host, lobby["id"], start["custom_id"]), "start")
        return table_id

    def unfinished(self, tables: int) -> JSON:
        """Say where the games that did not end stood: who, if anyone, had a move offered."""
        offered = waiting = 0
        for table_id, names in self.stats.opened.items():
            if table_id in self.stats.finished:
                continue
            views = (self.board.latest_dm(self.user_ids[name]) for name in names)
            if any(actionable(view, table_id) for view in views):
                offered += 1  # a member's DM offered a move: the bench's turn to click
            else:
                waiting += 1  # no member was offered anything: waiting for the bot
        return {
            "not_opened": tables - len(self.stats.opened),
            "a_member_offered_a_move": offered,
            "no_move_offered": waiting,
        }

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

    async def play_table(self, index: int, channel: str, names: list[str], delay: float) -> None:
        """Open a table after `delay` s; its members play until its message says it is over."""
        await self.pause(delay)
        table_id = await self.open_table(channel, names[0], names[1:])
        self.stats.opened[table_id] = names
        for name in names:
            self.board.table_of[self.user_ids[name]] = table_id
        done = asyncio.Event()

        async def watch() -> None:
            """Wait until the game is over (or the play time is up), then stop the members."""
            seems_over: float | None = None
            while not self.stopped:
                over = self.over(table_id, names)
                if over is None:
                    seems_over = seems_over or time.monotonic()
                    over = time.monotonic() - seems_over >= OVER_SETTLE
                else:
                    seems_over = None
                if over:
                    self.stats.finished.add(table_id)
                    break
                await self.board.wait(("table", table_id))
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
        clicked = 0.0  # when this member last clicked
        while not done.is_set() and not self.stopped:
            view = self.board.latest_dm(user_id)
            if view is not None and actionable(view, table_id) and view_key(view) not in seen:
                seen.add(view_key(view))
                moved = self.last_move.pop(table_id, None)
                if moved is not None:
                    self.stats.handoff_ms.append((time.perf_counter() - moved) * 1000)
            if view is None or not actionable(view, table_id) or view_key(view) in acted:
                unchanged = view is not None and view_key(view) in acted
                if acted and self.stuck(table_id, name, clicked if unchanged else None):
                    acted.clear()  # nothing came of the last click: look again
                    self.stats.stuck += 1
                    clicked = time.monotonic()
                    self.last_click[table_id] = (name, clicked)
                await self.board.wait(("dm", user_id))
                continue
            await self.pause(rng.uniform(*self.think))
            view = self.board.latest_dm(user_id)
            if view is None or not actionable(view, table_id):
                continue
            acted.add(view_key(view))
            clicked = time.monotonic()
            self.last_click[table_id] = (name, clicked)
            try:
                await self.move(rng, table_id, name, view)
            except ControlError:
                self.stats.stale += 1  # the view changed under the click

    def stuck(self, table_id: str, name: str, unchanged_since: float | None) -> bool:
        """Tell whether nothing came of the member's click, for STUCK_SECONDS.

        Nothing came of it when its view still shows what it clicked (`unchanged_since`: the
        click), or when its click was its table's last and the table has been still since. A
        member waiting while the others play (its turn not come, or out of the game) is not
        stuck: their clicks, or the table message's changes, say the table moves on.
        """
        now = time.monotonic()
        if unchanged_since is not None and now - unchanged_since > STUCK_SECONDS:
            return True
        clicker, clicked = self.last_click.get(table_id, ("", 0.0))
        changed = self.board.changed_at.get(("table", table_id), 0.0)
        return clicker == name and now - max(clicked, changed) > STUCK_SECONDS

    async def move(self, rng: random.Random, table_id: str, name: str, view: JSON) -> None:
        """Make one move from a view: Ready; else play a random offer; else flip, stock, pick up.

        A play is chosen in its menu, then confirmed with Play; one the view holds chosen
        already (a sole play) is only confirmed, as a member would.
        """
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
            held = offered(view, table_id, "play") if option.get("default") else []
            if held:
                # The view holds this play chosen already (a sole play): Play confirms it.
                await self.click(table_id, name, message_id, held[0], "play")
                return
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

        return await self.until(ready, 5.0)

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


def refusal_reason(text: str) -> str:
    """Name a refusal by its first clause, its numbers left out ("It isn't your turn")."""
    clause = re.split(r"[:.;]", text, maxsplit=1)[0]
    return re.sub(r"\d+", "N", clause).strip()


def refusals(world: World, interactions: list[Interaction]) -> Counter[str]:
    """Count the notes that answered clicks, by reason: at once or after a deferral.

    A note only its member sees, with no view on it, answering one of the run's clicks, is
    a refusal (a click's answer is a view; the bench asks for no hints).
    """
    clicks = {i.id for i in interactions if "custom_id" in i.data}
    return Counter(
        refusal_reason(message.content)
        for message in world.messages.values()
        if message.interaction_id in clicks
        and message.ephemeral
        and not message.components
        and not message.embeds
    )


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


def spread(values: list[float], *, quantiles: tuple[float, ...] = (0.5, 0.95, 0.99)) -> JSON:
    """Summarise some milliseconds: percentiles, max, mean and count."""
    figures: JSON = {f"p{round(q * 100)}": rounded(percentile(values, q)) for q in quantiles}
    figures["max"] = rounded(max(values, default=None))
    figures["mean"] = rounded(statistics.fmean(values) if values else None)
    figures["count"] = len(values)
    return figures


def what(interaction: Interaction) -> str:
    """Name an interaction for the report: `/shithead create`, or a component's verb."""
    data = interaction.data
    if "custom_id" in data:
        return verb_of(data) or "component"
    options = data.get("options") or []
    sub = options[0]["name"] if options and options[0].get("type") == SUB_COMMAND else None
    return f"/{data.get('name')}" + (f" {sub}" if sub else "")


def answers(interactions: list[Interaction], deadline: float) -> tuple[list[float], JSON]:
    """Time each interaction's first answer in ms; count those that expired, by what they were.

    An interaction expired when the bot's first callback came after Discord's deadline (the
    sandbox refused it with 10062) or never came.
    """
    times: list[float] = []
    late: Counter[str] = Counter()
    missing: Counter[str] = Counter()
    for interaction in interactions:
        if interaction.answered_at is None:
            missing[what(interaction)] += 1
            continue
        seconds = interaction.answered_at - interaction.created_at
        times.append(seconds * 1000)
        if seconds > deadline:
            late[what(interaction)] += 1
    expired = {
        "total": late.total() + missing.total(),
        "late_callback": late.total(),
        "no_callback": missing.total(),
        "by_what": dict((late + missing).most_common()),
    }
    return times, expired


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

# The bench kept up with its schedule when its event loop woke at most this late (p99) and
# it used at most this share of one core; otherwise its own lag is in the figures.
KEPT_UP_LOOP_LAG_MS = 100.0
KEPT_UP_CPU_SHARE = 0.8


@dataclass(frozen=True)
class Options:
    """What to benchmark: tables and members, the seed, the members' pace, the opening burst."""

    tables: int = 20
    humans: int = 3
    seed: int = 1
    think: tuple[float, float] = (0.3, 1.2)
    # The tables are opened one after another, evenly over this many seconds.
    burst: float = 0.0
    # The bot's `pictures` house rule (on by default); off is set with /houserules first.
    pictures: bool = True
    max_seconds: float = 1800.0
    preset: str | None = "classic"
    quiet_seconds: float = 6.0
    bot_log: Path | None = None
    quick: bool = False
    # Computer players of `level` seated at each table, and the bot's move pool (None: sized
    # to the machine, 0: none).
    computers: int = 0
    level: str = "expert"
    move_workers: int | None = None


@dataclass(frozen=True)
class Measured:
    """What the bench measured around the games, besides the members' own statistics."""

    log: list[JSON]
    dm_channels: set[int]
    tokens: dict[str, int]
    interactions: list[Interaction]
    # The run's refused clicks by reason (`refusals`), answered at once or after a deferral.
    refused: Counter[str]
    deadline: float
    played: float
    wall: float
    bot_cpu: float
    cpu_source: str
    bot_rss_mb: float | None
    bench_cpu: float
    board_busy: float
    loadavg: tuple[tuple[float, float, float], tuple[float, float, float]]
    # `reference_ms` before and after the play.
    reference: tuple[float, float]
    # A click's own work hot and after 1 ms idle (`bench.wake.reference`), before and after.
    wake: tuple[dict[str, float], dict[str, float]]
    unfinished: JSON
    table_errors: list[str]
    log_problems: list[str]
    # Each bot process's CPU seconds and peak RSS (MB), in the order they were started.
    processes: list[tuple[float | None, float | None]]


@contextlib.asynccontextmanager
async def bench_sandbox(options: Options) -> AsyncIterator[Sandbox]:
    """Run a sandbox with Discord's default rate limits (none when quick) for the block."""
    limits = QUICK_RATE_LIMITS if options.quick else DEFAULT_RATE_LIMITS
    sandbox = Sandbox(host="127.0.0.1", port=0, rate_limits=limits)
    await sandbox.start()
    try:
        yield sandbox
    finally:
        await sandbox.stop()


def new_bench(sandbox: Sandbox, options: Options) -> Bench:
    """Make the bench's members for these options (their pace, preset and computers)."""
    return Bench(
        sandbox,
        seed=options.seed,
        think=options.think,
        preset=options.preset,
        computers=options.computers,
        level=options.level,
    )


async def run_bench(options: Options) -> JSON:
    """Play the tables through a sandbox against the bot in a child process; return the figures."""
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        log_path = options.bot_log or Path(tmp) / "bot.log"
        async with bench_sandbox(options) as sandbox:
            bench = new_bench(sandbox, options)
            seating = await seat(bench, options)
            bot = bot_process(
                sandbox,
                Path(tmp) / "bot.sqlite3",
                options.seed,
                log_path,
                quick=options.quick,
                move_workers=options.move_workers,
            )
            measured = await play(bench, options, seating, [bot], log_path)
    return report(options, bench.stats, measured)


async def turn_pictures_off(driver: Driver, guild: int | None = None) -> None:
    """Have a moderator turn a server's (the default one's) pictures house rule off."""
    world = driver.world
    target = driver.guild if guild is None else world.guilds[guild]
    general = next(c for c in target.channel_ids if world.channels[c].name == "general")
    moderator = f"bench-moderator-{target.id}"
    await driver.create_user(moderator, moderator=True, guild=str(target.id))
    option = {"option": "pictures", "value": "false"}
    result = await driver.command(moderator, str(general), "houserules set", option)
    if result.get("status") != "answered":
        raise RuntimeError(f"the bot did not turn pictures off: {result}")


Seating = list[tuple[str, list[str]]]  # each table's channel and members


async def seat(bench: Bench, options: Options, guilds: Sequence[int | None] = (None,)) -> Seating:
    """Create each table's channel and members; table t is in guild t mod len(guilds)."""
    driver = bench.driver
    seating: Seating = []
    for t in range(1, options.tables + 1):
        guild = guilds[(t - 1) % len(guilds)]
        where = None if guild is None else str(guild)
        channel = (await driver.create_channel(f"bench-{t}", guild=where))["name"]
        names = [f"t{t}p{h}" for h in range(1, options.humans + 1)]
        for name in names:
            bench.user_ids[name] = int((await driver.create_user(name, guild=where))["id"])
        seating.append((channel, names))
    return seating


async def play(
    bench: Bench,
    options: Options,
    seating: Seating,
    bots: Sequence[contextlib.AbstractAsyncContextManager[asyncio.subprocess.Process]],
    log_path: Path,
    guilds: Sequence[int | None] = (None,),
) -> Measured:
    """Start the bot processes, play every table, measure; the processes stop at the end."""
    driver = bench.driver
    children_before = _children_cpu()
    table_errors: list[str] = []
    async with contextlib.AsyncExitStack() as stack:
        processes = [await stack.enter_async_context(bot) for bot in bots]
        try:
            await driver.wait_ready(timeout=60)
        except TimeoutError:
            tail = log_path.read_text(errors="replace")[-4000:]
            raise RuntimeError(f"the bot did not connect to the sandbox:\n{tail}") from None
        if not options.pictures:
            for guild in guilds:
                await turn_pictures_off(driver, guild)
        since = len(driver.world.log)
        before = set(driver.world.interactions)
        cpu_start = [cpu_seconds(process.pid) for process in processes]
        load_start = os.getloadavg()
        speed_start = reference_ms()
        clicks = await recorded_units(seed=1)  # one game's clicks, timed before and after
        wake_start = wake_reference(clicks)
        bench_cpu = time.process_time()
        helpers = [asyncio.create_task(bench.board.run()), asyncio.create_task(bench.watch_loop())]
        started = time.perf_counter()
        helpers.append(asyncio.create_task(bench.progress(options.tables, started)))
        gap = options.burst / options.tables
        tasks = [
            asyncio.create_task(bench.play_table(i, channel, names, i * gap))
            for i, (channel, names) in enumerate(seating)
        ]
        done, pending = await asyncio.wait(tasks, timeout=options.max_seconds)
        unfinished = bench.unfinished(options.tables)
        bench.stopped = True
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=30)
        if pending:
            table_errors.append(f"{len(pending)} tables unfinished after {options.max_seconds} s")
        for task in done:
            if task.exception() is not None:
                table_errors.append(repr(task.exception()))
        played = time.perf_counter() - started
        await quiet(driver, options.quiet_seconds, limit=60.0)
        wall = time.perf_counter() - started
        cpu_end = [cpu_seconds(process.pid) for process in processes]
        rss = [peak_rss_mb(process.pid) for process in processes]
        bench_cpu = time.process_time() - bench_cpu
        load_end = os.getloadavg()
        speed_end = reference_ms()
        wake_end = wake_reference(clicks)
        for helper in helpers:
            helper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await helper
        world = driver.world
        # Every interaction of the run, a click cut short by its game's end included.
        interactions = [i for key, i in world.interactions.items() if key not in before]
        log = driver.log(since)
        dm_channels = {c.id for c in world.channels.values() if c.type == DM}
        tokens = {i.token: i.channel_id for i in world.interactions.values()}
    used = [
        None if start is None or end is None else end - start
        for start, end in zip(cpu_start, cpu_end, strict=True)
    ]
    known = [seconds for seconds in used if seconds is not None]
    if len(known) == len(used):
        bot_cpu = sum(known)
        pids = ", ".join(str(process.pid) for process in processes)
        source = f"/proc/{pids}/stat utime+stime of the bot's own process, ready to end"
        if len(processes) > 1:
            source = f"/proc/{{{pids}}}/stat utime+stime of the bot's processes, summed"
    else:
        bot_cpu = _children_cpu() - children_before
        source = "getrusage(RUSAGE_CHILDREN) of the bot's process, whole life (start-up too)"
    peaks = [mb for mb in rss if mb is not None]
    return Measured(
        log=log,
        dm_channels=dm_channels,
        tokens=tokens,
        interactions=interactions,
        refused=refusals(world, interactions),
        deadline=world.interaction_deadline,
        played=played,
        wall=wall,
        bot_cpu=bot_cpu,
        cpu_source=source,
        # With several processes, the sum of their peaks.
        bot_rss_mb=round(sum(peaks), 1) if peaks and len(peaks) == len(rss) else None,
        bench_cpu=bench_cpu,
        board_busy=bench.board.busy,
        loadavg=(load_start, load_end),
        reference=(speed_start, speed_end),
        wake=(wake_start, wake_end),
        unfinished=unfinished,
        table_errors=table_errors,
        log_problems=log_problems(log_path),
        processes=list(zip(used, rss, strict=True)),
    )


def _children_cpu() -> float:
    """Return the CPU seconds of this process's finished, waited-for children."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def report(options: Options, stats: Stats, measured: Measured) -> JSON:
    """Turn the measurements into the report's JSON object."""
    calls = Counter({kind: 0 for kind in KINDS})
    errors: Counter[str] = Counter()
    webhooks: Counter[str] = Counter()
    for entry in measured.log:
        kind = classify(entry, measured.dm_channels)
        calls[kind] += 1
        if kind == "interaction_webhook":
            webhooks[webhook_target(entry, measured.dm_channels, measured.tokens)] += 1
        if entry["status"] >= 400:
            errors[f"{entry['method']} {entry['route']} {entry['status']} {entry['code']}"] += 1
    moves = sum(stats.moves.values())
    budget = sum(n for kind, n in calls.items() if kind not in EXEMPT)
    grouped = {group: sum(calls[k] for k in kinds) for group, kinds in GROUPS.items()}
    grouped["other_rest"] = calls.total() - sum(grouped.values())
    answer_ms, expired = answers(measured.interactions, measured.deadline)
    cpu_share = measured.bench_cpu / measured.wall if measured.wall else 0.0
    loop_lag = spread(stats.loop_lag_ms)
    kept_up = (loop_lag["p99"] or 0.0) <= KEPT_UP_LOOP_LAG_MS and cpu_share <= KEPT_UP_CPU_SHARE
    return {
        "tables": options.tables,
        "humans": options.humans,
        "computers": options.computers,
        "level": options.level,
        "move_workers": options.move_workers,
        "seed": options.seed,
        "quick": options.quick,
        "think_seconds": list(options.think),
        "burst_seconds": options.burst,
        "pictures": options.pictures,
        "games_finished": len(stats.finished),
        "human_moves": moves,
        "moves_by_verb": dict(sorted(stats.moves.items())),
        "interactions": len(measured.interactions),
        "refused_clicks": stats.refused,
        "refused_by_reason": dict(measured.refused.most_common()),
        "stale_clicks": stats.stale,
        "stuck_retries": stats.stuck,
        "unfinished_tables": measured.unfinished,
        "wall_seconds": round(measured.wall, 2),
        "play_seconds": round(measured.played, 2),
        "calls": dict(calls),
        "calls_total": calls.total(),
        "calls_per_move": {kind: per_move(n, moves) for kind, n in calls.items()},
        "budget_calls_per_move": per_move(budget, moves),
        # Where the interaction-webhook calls write: a DM or a guild channel (by the token's
        # interaction), per human move.
        "interaction_webhook_per_move": {
            where: per_move(webhooks[where], moves) for where in ("dm", "channel", "unknown")
        },
        "rest_per_move": {group: per_move(n, moves) for group, n in grouped.items()},
        # From the moment an interaction reached the sandbox to its first callback.
        "answer_ms": spread(answer_ms),
        "expired_interactions": expired,
        # From a move's answer until a member of its table sees an actionable view: how long
        # the bot (settling, pacing, writing) keeps the next player waiting.
        "handoff_ms": spread(stats.handoff_ms, quantiles=(0.5, 0.99)),
        "bot_cpu_seconds": round(measured.bot_cpu, 3),
        "bot_cpu_ms_per_move": per_move(measured.bot_cpu * 1000, moves),
        "cpu_source": measured.cpu_source,
        "bot_peak_rss_mb": measured.bot_rss_mb,
        # Each bot process's share, in the order they were started (one without shards).
        "bot_processes": [
            {
                "cpu_seconds": rounded(cpu, 3),
                "cpu_ms_per_move": None if cpu is None else per_move(cpu * 1000, moves),
                "peak_rss_mb": rss,
            }
            for cpu, rss in measured.processes
        ],
        "bench_process_cpu_seconds": round(measured.bench_cpu, 3),
        # The bench's own process (sandbox and members): whether it kept to its schedule.
        "driver": {
            "cpu_share_of_a_core": round(cpu_share, 3),
            "board_scan_seconds": round(measured.board_busy, 2),
            "click_lag_ms": spread(stats.click_lag_ms),
            "loop_lag_ms": loop_lag,
            "kept_up": kept_up,
        },
        "machine": {
            "nproc": os.cpu_count(),
            "loadavg_1min_start": round(measured.loadavg[0][0], 2),
            "loadavg_1min_end": round(measured.loadavg[1][0], 2),
            "reference_ms_start": round(measured.reference[0], 1),
            "reference_ms_end": round(measured.reference[1], 1),
            "click_work_us_start": measured.wake[0],
            "click_work_us_end": measured.wake[1],
        },
        "failures": {
            "interactions_not_answered": len(stats.not_answered),
            "not_answered": stats.not_answered[:10],
            "rest_errors": errors.total(),
            "rest_errors_by_call": dict(errors),
            "table_errors": len(measured.table_errors),
            "table_errors_sample": [error[:300] for error in measured.table_errors[:5]],
            "bot_log_problems": len(measured.log_problems),
            "bot_log_sample": measured.log_problems[:5],
        },
    }


def describe(figures: JSON) -> list[str]:
    """Write the figures for people, one line each."""
    moves = figures["human_moves"]
    verbs = ", ".join(f"{verb} {n}" for verb, n in figures["moves_by_verb"].items())
    answer, handoff, failures = figures["answer_ms"], figures["handoff_ms"], figures["failures"]
    expired, driver, machine = (
        figures["expired_interactions"],
        figures["driver"],
        figures["machine"],
    )
    think, left = figures["think_seconds"], figures["unfinished_tables"]
    lines = [
        f"bench: {figures['tables']} tables x {figures['humans']} humans"
        + (f" + {figures['computers']} {figures['level']}" if figures["computers"] else "")
        + f", seed {figures['seed']}, "
        f"think {think[0]}-{think[1]} s, opened over {figures['burst_seconds']} s, "
        f"pictures {'on' if figures['pictures'] else 'off'}"
        + (" (quick pacing: figures not comparable)" if figures["quick"] else ""),
        f"machine: {machine['nproc']} cores, load average {machine['loadavg_1min_start']} at "
        f"the start, {machine['loadavg_1min_end']} at the end (above the cores: busy); a "
        f"reference loop took {machine['reference_ms_start']} ms of CPU at the start, "
        f"{machine['reference_ms_end']} ms at the end (figures compare between runs whose "
        "loop took alike)",
        "machine: a click's own work (python -m bench.wake) took "
        + " and ".join(
            f"{work['hot_us']} us hot, {work['after_1ms_us']} us after 1 ms idle at the {when}"
            for when, work in (
                ("start", machine["click_work_us_start"]),
                ("end", machine["click_work_us_end"]),
            )
        )
        + " (a bot that idles between events pays the second)",
        f"games finished {figures['games_finished']}/{figures['tables']}, human moves {moves} "
        f"({verbs}), {figures['interactions']} interactions, wall {figures['wall_seconds']} s",
        f"games not finished: {left['not_opened']} never opened, "
        f"{left['a_member_offered_a_move']} with a move offered to a member, "
        f"{left['no_move_offered']} with no move offered to anyone (waiting for the bot)",
        f"refused clicks: {figures['refused_clicks']} answered at once with a refusal; every "
        f"refusal, at once or after a deferral, by reason: {figures['refused_by_reason'] or 0}",
        f"answer time (interaction reaches the sandbox -> the bot's callback): "
        f"p50 {answer['p50']} ms, p95 {answer['p95']} ms, p99 {answer['p99']} ms, "
        f"max {answer['max']} ms",
        f"expired interactions (no callback within the deadline): {expired['total']} "
        f"({expired['late_callback']} late callbacks refused with 10062, "
        f"{expired['no_callback']} never answered) {expired['by_what'] or ''}",
        "REST calls per human move: "
        + ", ".join(f"{group} {n}" for group, n in figures["rest_per_move"].items()),
        f"REST calls by the bot: {figures['calls_total']}, per human move:",
    ]
    for kind, n in figures["calls"].items():
        lines.append(f"  {kind:<20} {n:>7}  {figures['calls_per_move'][kind]}")
    hooks = figures["interaction_webhook_per_move"]
    lines += [
        f"  (interaction webhooks per move: to DMs {hooks['dm']}, to channels {hooks['channel']})",
        f"budget calls per move (all but callbacks and interaction webhooks): "
        f"{figures['budget_calls_per_move']}",
        f"next turn shown after a move: p50 {handoff['p50']} ms, p99 {handoff['p99']} ms",
        f"bot CPU: {figures['bot_cpu_ms_per_move']} ms per human move "
        f"({figures['bot_cpu_seconds']} s; {figures['cpu_source']})",
        f"bot peak RSS (VmHWM): {figures['bot_peak_rss_mb']} MB"
        + (" (the processes' peaks added up)" if len(figures["bot_processes"]) > 1 else ""),
    ]
    if len(figures["bot_processes"]) > 1:
        lines += [
            f"  bot process {n}: {share['cpu_ms_per_move']} ms CPU per human move "
            f"({share['cpu_seconds']} s), peak RSS {share['peak_rss_mb']} MB"
            for n, share in enumerate(figures["bot_processes"], 1)
        ]
    lines += [
        f"bench process (sandbox + members): {figures['bench_process_cpu_seconds']} s CPU, "
        f"{driver['cpu_share_of_a_core']:.0%} of one core, {driver['board_scan_seconds']} s "
        f"scanning the world; clicks late by p50 {driver['click_lag_ms']['p50']} ms, "
        f"p99 {driver['click_lag_ms']['p99']} ms; event loop late by p99 "
        f"{driver['loop_lag_ms']['p99']} ms, max {driver['loop_lag_ms']['max']} ms: "
        + (
            "the bench kept up"
            if driver["kept_up"]
            else "the bench lagged, so its lag is in the figures (not only the bot's)"
        ),
        f"failures: {failures['interactions_not_answered']} interactions not answered, "
        f"{failures['rest_errors']} REST errors {failures['rest_errors_by_call'] or ''}, "
        f"{failures['table_errors']} table errors, "
        f"{figures['stuck_retries']} clicks tried again after {STUCK_SECONDS:.0f} s with nothing "
        "coming of them, "
        f"{failures['bot_log_problems']} warnings/errors in the bot's log",
    ]
    return lines


def parse_options(argv: list[str], *, prog: str, description: str, defaults: Options) -> Options:
    """Read the command line of a bench whose defaults are `defaults`."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--tables", type=int, default=defaults.tables, help="tables played")
    parser.add_argument("--humans", type=int, default=defaults.humans, help="members per table")
    parser.add_argument("--seed", type=int, default=defaults.seed, help="seeds deals and moves")
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        metavar=("MIN", "MAX"),
        default=defaults.think,
        help="seconds a member waits before each click (uniform)",
    )
    parser.add_argument(
        "--burst",
        type=float,
        default=defaults.burst,
        help="open the tables one after another, evenly over this many seconds",
    )
    parser.add_argument(
        "--pictures",
        choices=("on", "off"),
        default="on" if defaults.pictures else "off",
        help="the bot's pictures house rule",
    )
    parser.add_argument(
        "--max-seconds", type=float, default=defaults.max_seconds, help="stop playing after"
    )
    parser.add_argument(
        "--preset", default=defaults.preset or "", help="house-rule preset to ask for ('' for none)"
    )
    parser.add_argument(
        "--quiet",
        type=float,
        default=defaults.quiet_seconds,
        help="after the games, wait until the bot has been silent this long",
    )
    parser.add_argument(
        "--computers", type=int, default=defaults.computers, help="computer players per table"
    )
    parser.add_argument(
        "--level",
        choices=COMPUTER_LEVELS,
        default=defaults.level,
        help="the computer players' strategy",
    )
    parser.add_argument(
        "--move-workers",
        type=int,
        default=defaults.move_workers,
        help="processes thinking out computer moves (default: sized to the machine; 0: a thread)",
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
    if args.burst < 0:
        parser.error("need --burst >= 0")
    if args.computers < 0 or (args.move_workers is not None and args.move_workers < 0):
        parser.error("need --computers >= 0 and --move-workers >= 0")
    return Options(
        tables=args.tables,
        humans=args.humans,
        seed=args.seed,
        think=(args.think[0], args.think[1]),
        burst=args.burst,
        pictures=args.pictures == "on",
        max_seconds=args.max_seconds,
        preset=args.preset or None,
        quiet_seconds=args.quiet,
        bot_log=args.bot_log,
        quick=args.quick,
        computers=args.computers,
        level=args.level,
        move_workers=args.move_workers,
    )


def run(
    options: Options,
    measure: Callable[[], Coroutine[Any, Any, JSON]] | None = None,
    say: Callable[[JSON], list[str]] = describe,
) -> int:
    """Run a bench (`run_bench` unless told) and print its figures; 0 when every game finished."""
    figures = asyncio.run(run_bench(options) if measure is None else measure())
    for line in say(figures):
        print(line)
    print(json.dumps(figures, ensure_ascii=False), flush=True)
    return 0 if figures["games_finished"] == options.tables else 1
