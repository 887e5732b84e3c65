"""Run the bot from start to a clean stop, against Discord or against the local sandbox.

Start: the database path is checked and its lock taken (one bot per database), then the bot
logs in; a network that is down is tried again with backoff, a refused token is said plainly.
Stop, on SIGTERM or Ctrl-C (SIGINT): no new clicks are read, clicks in flight finish, timers
stop, pending message writes are flushed for a bounded time, the database is closed, and one
line is logged. A second signal cuts the waiting short.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import logging
import shutil
import signal
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.client import ShitheadBot, make_bot, use_discord_at
from bot.instance import InstanceLock, check_database_path
from bot.settings import Settings, SettingsError, missing_token

if TYPE_CHECKING:
    from sandbox.server import Sandbox

log = logging.getLogger("bot")

SIGNALS = (signal.SIGTERM, signal.SIGINT)
# The tasks discord.py runs a click or a command in (app commands, dynamic items, views).
CLICK_TASKS = (
    "CommandTree-invoker",
    "discord-ui-dynamic-item-",
    "discord-ui-view-dispatch-",
    "discord.py: on_interaction",
)
# The collector looks at new objects after this many more were made than freed (Python's
# default is 700): a gateway event or a drawn view makes thousands at once that die by their
# reference counts within the click, and each look at them moved the survivors on to be
# looked at again (at 700, a sixth of the bot's CPU under load went to the collector).
YOUNG_OBJECTS = 10_000
# Failures that may pass by themselves: no network, Discord down for a moment.
TRANSIENT = (aiohttp.ClientError, TimeoutError, discord.DiscordServerError, discord.GatewayNotFound)

TOKEN_REFUSED = (
    "Discord refused DISCORD_TOKEN: reset the token in the developer portal "
    "(Bot → Reset Token) and put the new one in .env as DISCORD_TOKEN=…."
)

SANDBOX_HELP = """\
{why}, so the bot runs against the local sandbox (a stand-in for Discord
on this machine; see docs/sandbox.md). {world}

Play a whole game from two more terminals, one member each:

  .venv/bin/python -m sandbox.play alice --url {url}
  .venv/bin/python -m sandbox.play bob --url {url}

  alice: create        opens a table in #general (you sit at it)
  bob:   join          sits down (or alice: addbot, for a computer player)
  alice: start         deals: each of you sees your hand, face-up and face-down cards
  both:  swap 3h 8c    (optional) puts hand card 3h face up and takes 8c into the hand
  both:  ready         when both are ready, the game starts
         7h            on your turn: plays the 7 of hearts (or type an option's number)
         pickup        takes the pile; an empty line waits for the others; help lists all

Scripts use the control API (curl examples in docs/sandbox.md); a button's id looks like
sh:<table>:<version>:<verb>, the version being the one in your private view's footer.

To play on Discord instead:
  1. Create an application at https://discord.com/developers/applications
  2. Under "Bot", reset and copy the token.
  3. Put it in .env as DISCORD_TOKEN=... (see .env.example) and run `make run` again.
"""


class StartupError(Exception):
    """The bot cannot run until a person changes something; the message says what."""


@dataclass(frozen=True)
class Patience:
    """How long the bot waits on its way up and down (tests make it short)."""

    connect_tries: int = 8
    first_retry: float = 2.0
    longest_retry: float = 60.0
    clicks_grace: float = 5.0
    flush_grace: float = 10.0


class Stopper:
    """Turn SIGTERM and SIGINT into a request to stop; a second signal means hurry."""

    def __init__(self) -> None:
        self.requested = asyncio.Event()
        self.hurry = asyncio.Event()
        self.reason = ""
        self._loop: asyncio.AbstractEventLoop | None = None

    def stop(self, reason: str) -> None:
        """Ask the bot to stop (the first time), or to stop waiting (after that)."""
        if self.requested.is_set():
            self.hurry.set()
            return
        self.reason = reason
        self.requested.set()

    def _received(self, number: int) -> None:
        """Handle a signal."""
        self.stop(signal.Signals(number).name)

    def __enter__(self) -> Stopper:
        """Handle SIGTERM and SIGINT in the running loop for the block."""
        self._loop = asyncio.get_running_loop()
        for number in SIGNALS:
            self._loop.add_signal_handler(number, self._received, number)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Give SIGTERM and SIGINT back their usual handlers."""
        if self._loop is not None:
            for number in SIGNALS:
                self._loop.remove_signal_handler(number)

    async def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; say whether a stop was asked for meanwhile."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.requested.wait(), seconds)
        return self.requested.is_set()


async def _unless_hurried(work: Awaitable[Any], stopper: Stopper, seconds: float) -> bool:
    """Wait for work up to `seconds`, or less if a second signal comes; say if it finished."""
    task = asyncio.ensure_future(work)
    hurry = asyncio.ensure_future(stopper.hurry.wait())
    try:
        done, _ = await asyncio.wait({task, hurry}, timeout=seconds, return_when="FIRST_COMPLETED")
    finally:
        hurry.cancel()
        if not task.done():
            task.cancel()
    return task in done and not task.cancelled()


async def _log_in(
    make_bot: Callable[[], ShitheadBot], token: str, stopper: Stopper, patience: Patience
) -> ShitheadBot | None:
    """Log a new bot in, trying again with backoff while Discord can't be reached.

    Each try gets a fresh bot (a failed login may have opened its storage). None: a signal
    came first.
    """
    delay = patience.first_retry
    for attempt in range(1, patience.connect_tries + 1):
        bot = make_bot()
        login = asyncio.ensure_future(bot.login(token))
        stop = asyncio.ensure_future(stopper.requested.wait())
        try:
            await asyncio.wait({login, stop}, return_when="FIRST_COMPLETED")
        finally:
            stop.cancel()
        if not login.done():
            login.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await login
            await bot.close()
            return None
        problem = login.exception()
        if problem is None:
            return bot
        await bot.close()
        if isinstance(problem, discord.LoginFailure):
            raise StartupError(TOKEN_REFUSED) from None
        if not isinstance(problem, TRANSIENT):
            raise problem
        reason = str(problem) or type(problem).__name__
        if attempt == patience.connect_tries:
            raise StartupError(
                f"Discord could not be reached after {attempt} tries ({reason}): check this "
                "machine's network connection, then start the bot again."
            ) from None
        log.warning(
            "cannot reach Discord (%s); trying again in %g s (try %d of %d)",
            reason,
            delay,
            attempt + 1,
            patience.connect_tries,
        )
        if await stopper.wait(delay):
            return None
        delay = min(delay * 2, patience.longest_retry)
    return None


def tune_collector() -> None:
    """Set the garbage collector for a long-running bot, once its modules are imported.

    What is alive now (modules, classes, settings) lives as long as the process: it is moved
    out of the collector's sight (`gc.freeze`), so full collections go over the tables and
    messages only; and new objects are looked at less often (`YOUNG_OBJECTS`).
    """
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, middle, old)


def _clicks_in_flight() -> set[asyncio.Task[Any]]:
    """Find the tasks answering a click or a command right now."""
    return {
        task
        for task in asyncio.all_tasks()
        if not task.done() and task.get_name().startswith(CLICK_TASKS)
    }


async def _stop(
    bot: ShitheadBot, connection: asyncio.Task[None], patience: Patience, stopper: Stopper
) -> str:
    """Stop a running bot cleanly; say what became of its pending writes."""
    # No new clicks: stop reading the gateway (the socket closes with the bot).
    connection.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await connection
    clicks = _clicks_in_flight()
    if clicks:
        await _unless_hurried(asyncio.wait(clicks), stopper, patience.clicks_grace)
    # Timers stop; every table is already saved (the core saves before it tells anyone).
    await bot.tables.shutdown()
    flushed = await _unless_hurried(bot.presenter.pacer.idle(), stopper, patience.flush_grace)
    running = len(bot.tables.tables)
    await bot.close()
    tables = f"{running} running table{'' if running == 1 else 's'} saved"
    if flushed:
        return f"{tables}, every message up to date"
    return f"{tables}, message updates still pending were dropped after {patience.flush_grace:g} s"


async def serve(
    make_bot: Callable[[], ShitheadBot],
    token: str,
    stopper: Stopper,
    patience: Patience,
) -> str:
    """Log in, connect and run until a stop is asked for; say how the bot stopped."""
    bot = await _log_in(make_bot, token, stopper, patience)
    if bot is None:
        return f"stopped on {stopper.reason} before connecting"
    connection = asyncio.ensure_future(bot.connect(reconnect=True))
    stop = asyncio.ensure_future(stopper.requested.wait())
    try:
        await asyncio.wait({connection, stop}, return_when="FIRST_COMPLETED")
    finally:
        stop.cancel()
    if connection.done():
        # discord.py reconnects by itself; it gives up only when Discord closed for good.
        await bot.close()
        problem = connection.exception()
        if isinstance(problem, discord.ConnectionClosed) and problem.code == 4004:
            raise StartupError(TOKEN_REFUSED) from None
        if problem is not None:
            raise problem
        return "stopped: Discord closed the connection"
    return f"stopped on {stopper.reason}: {await _stop(bot, connection, patience, stopper)}"


@contextlib.contextmanager
def holding(database: Path | None, setting: str) -> Iterator[None]:
    """Check an SQLite database's path, then hold its lock (one bot per file) for the block.

    None is a database server: the bot holds it once connected (`Database.claim`).
    """
    if database is None:
        yield
        return
    check_database_path(database, setting)
    with InstanceLock(database, setting):
        yield


async def run_until_stopped(
    make_bot: Callable[[], ShitheadBot],
    token: str,
    database: Path | None,
    *,
    setting: str = "DATABASE_PATH",
    patience: Patience | None = None,
) -> str:
    """Hold the database and run the bot until SIGTERM or Ctrl-C; say how it stopped."""
    with Stopper() as stopper, holding(database, setting):
        return await serve(make_bot, token, stopper, patience or Patience())


async def run_production(
    settings: Settings, *, setting: str | None = None, patience: Patience | None = None
) -> str:
    """Run the bot on Discord with the settings' token until stopped; say how it stopped."""
    if settings.discord_token is None:
        raise SettingsError(missing_token())
    database = settings.database
    return await run_until_stopped(
        lambda: make_bot(settings),
        settings.discord_token.get_secret_value(),
        database.path if database.dialect == "sqlite" else None,
        setting=setting or settings.database_setting,
        patience=patience,
    )


def _same_file(one: Path, other: Path) -> bool:
    """Say whether two paths name the same file (existing or not)."""
    return one.expanduser().resolve() == other.expanduser().resolve()


@contextlib.contextmanager
def sandbox_database(settings: Settings, chosen: Path | None, setting: str) -> Iterator[Path]:
    """Give the sandbox's database: the chosen file, else a temporary one removed after."""
    path = chosen or settings.sandbox_database_path
    if path is None:
        folder = Path(tempfile.mkdtemp(prefix="shithead-sandbox-"))
        try:
            yield folder / "sandbox.sqlite3"
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    if _same_file(path, settings.database_path):
        raise SettingsError(
            f"{setting} is {path}, the real bot's DATABASE_PATH: give the sandbox a file "
            "of its own, or leave it unset for a temporary one."
        )
    yield path


async def start_sandbox(settings: Settings) -> Sandbox:
    """Start the sandbox on the settings' address; a busy port is said plainly."""
    from sandbox.server import Sandbox

    sandbox = Sandbox(host=settings.sandbox_host, port=settings.sandbox_port)
    try:
        await sandbox.start()
    except OSError as exc:
        await sandbox.stop()
        if exc.errno == errno.EADDRINUSE:
            raise SettingsError(
                f"Port {settings.sandbox_port} on {settings.sandbox_host} is already in use, "
                "perhaps by another bot's sandbox (is one running?): stop it, or set "
                "SANDBOX_PORT (or --sandbox-port) to another port."
            ) from None
        raise SettingsError(
            f"The sandbox cannot listen on {settings.sandbox_host}:{settings.sandbox_port} "
            f"({exc.strerror or exc}): change SANDBOX_HOST or SANDBOX_PORT."
        ) from None
    return sandbox


async def run_sandbox(
    settings: Settings,
    *,
    database: Path | None = None,
    setting: str = "SANDBOX_DATABASE_PATH",
    patience: Patience | None = None,
) -> str:
    """Run the sandbox and the bot in this process until stopped; say how it stopped.

    The sandbox never touches DATABASE_PATH: its world is `database`, else
    SANDBOX_DATABASE_PATH, else a temporary file deleted at exit.
    """
    from sandbox.__main__ import describe

    with (
        Stopper() as stopper,
        sandbox_database(settings, database, setting) as path,
        holding(path, setting),
    ):
        sandbox = await start_sandbox(settings)
        try:
            use_discord_at(sandbox.api_base, sandbox.gateway_url)
            if database is None and settings.sandbox_database_path is None:
                world = "Its world is a temporary file, deleted at exit."
            else:
                world = f"Its world is kept in {path}."
            # The playground comes first: a newcomer needs nothing else.
            print(f"Play in your browser: {sandbox.playground_url}\n", flush=True)
            print(describe(sandbox))
            why = "--sandbox was given" if settings.has_token else "No DISCORD_TOKEN is set"
            help_text = SANDBOX_HELP.format(why=why, url=sandbox.url, world=world)
            print(help_text, flush=True)
            # The sandbox's world is its own SQLite file, run by this one process.
            update = {"database_path": path, "database_url": None, "shard_ids": None}
            run_settings = settings.model_copy(update=update)
            return await serve(
                lambda: make_bot(run_settings), sandbox.token, stopper, patience or Patience()
            )
        finally:
            await sandbox.stop()
