"""The discord.py client: intents, the core and the presenter, extensions, command sync."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
import yarl
from discord import app_commands
from discord.ext import commands

from bot.answers import Answers, locale_of, say
from bot.components import DYNAMIC_ITEMS
from bot.dispatch import ClickDispatch
from bot.heap import HeapTrimmer
from bot.i18n import t
from bot.membership import Membership
from bot.pacing import Pacer
from bot.presenter import Presenter
from bot.rating_store import RatingStore
from bot.rest import rest
from bot.routing import ClickRouter
from bot.settings import Settings
from bot.shard_refs import ShardMessageRefs
from bot.storage import Storage
from bot.table_store import StorageTableStore
from bot.translator import CatalogTranslator
from tables.movers import MovePool
from tables.outcome import Snapshot, snapshot
from tables.service import TableService
from tables.timers import Timing

log = logging.getLogger(__name__)

EXTENSIONS = ("bot.cogs.tables", "bot.cogs.houserules", "bot.cogs.stats")
# The event discord.py dispatches for every gateway frame, and its handler's name.
SOCKET_EVENT_TYPE = "socket_event_type"
ON_SOCKET_EVENT_TYPE = "on_" + SOCKET_EVENT_TYPE


class GatewaySocket(discord.gateway.DiscordClientWebSocketResponse):
    """The gateway's socket, its silence timed by one timer rather than one per frame.

    discord.py 2.7.1 receives each gateway frame with its heartbeat timeout, for which
    aiohttp makes and cancels a timer (6 us a frame). Here a receive notes when it began,
    and one timer per socket, due when the wait in progress would time out, fails that wait
    with the `TimeoutError` aiohttp's timeout raises (discord.py then reconnects).
    """

    _began: float | None = None
    _limit = 0.0
    _watch: asyncio.TimerHandle | None = None

    async def receive(self, timeout: float | None = None) -> aiohttp.WSMessage:
        """Receive a frame, failed if none comes within `timeout` seconds of asking."""
        if not timeout:
            return await super().receive(timeout)
        self._limit = timeout
        self._began = began = self._loop.time()
        if self._watch is None:
            self._watch = self._loop.call_at(began + timeout, self._check)
        try:
            # The socket has no timeout of its own (discord.py sets none for a receive).
            return await super().receive()
        finally:
            self._began = None

    def _check(self) -> None:
        """Fail the wait in progress if it is over its time, else look again when it is due."""
        self._watch = None
        began = self._began
        if began is None:
            return  # nothing waits: the next receive sets the timer again
        due = began + self._limit
        if self._loop.time() < due:
            self._watch = self._loop.call_at(due, self._check)
            return
        self._reader.set_exception(TimeoutError("no gateway frame in time"))


def use_discord_at(api_base: str, gateway_url: str) -> None:
    """Point discord.py (REST and gateway, process-wide) at another Discord, e.g. the sandbox."""
    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


MEMBERS_INTENT_OFF = (
    "Discord refused the Server Members Intent: switch it on in the developer portal (Bot → "
    "Privileged Gateway Intents → Server Members Intent) so that members who leave a server "
    "leave its tables at once; until then a player is checked when they click from a DM."
)


def make_intents(*, members: bool = True) -> discord.Intents:
    """Ask for guilds, and for members (privileged) to hear who leaves a server."""
    return discord.Intents(guilds=True, members=members)


@dataclass(frozen=True)
class Tuning:
    """How fast tables move and how writes are paced (tests make it quick)."""

    timing: Timing = field(default_factory=Timing)
    writes_per_window: int = 4
    window_seconds: float = 5.0
    settle_seconds: float = 0.3
    # The table message shows the newest state at most once per interval.
    table_interval: float = 2.0
    # ... and all of them together at most this many times a second (5 s apart at 750 tables).
    table_redraws: float = 150.0
    seeds: Callable[[], int] | None = None
    # Discord lets a bot identify one shard every 5 s (its max_concurrency of 1).
    identify_gap: float = 5.0
    # Processes that think out computer moves: None sizes the pool to the machine, 0 is none.
    move_workers: int | None = None


class ShitheadBot(commands.Bot):
    """The bot: it owns its settings, the table core, the presenter and the storage."""

    def __init__(self, settings: Settings, tuning: Tuning | None = None) -> None:
        # The bot has no voice features: don't warn that voice libraries are missing.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        # Read by the sharded bot (the plain one runs the only shard).
        shards: dict[str, Any] = {
            "shard_count": settings.shard_count,
            "shard_ids": list(settings.shards),
        }
        # The members intent is only for hearing who leaves: no member list is fetched or kept.
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=make_intents(),
            chunk_guilds_at_startup=False,
            member_cache_flags=discord.MemberCacheFlags.none(),
            **shards,
        )
        self.settings = settings
        self.tuning = tuning or Tuning()
        self.storage: Storage | None = None
        self.presenter = Presenter(
            self,
            Pacer(self.tuning.writes_per_window, self.tuning.window_seconds),
            command_name=settings.command_name,
            settle=self.tuning.settle_seconds,
            table_interval=self.tuning.table_interval,
            table_redraws=self.tuning.table_redraws,
        )
        self.movers = MovePool(self.tuning.move_workers)
        self.tables = TableService(
            sink=self.presenter,
            timing=self.tuning.timing,
            seeds=self.tuning.seeds,
            movers=self.movers,
        )
        self.membership = Membership(self.tables, self.http.get_member)
        self.answers = Answers(self.tables, self.presenter, settings.command_name, self.membership)
        self._to_redraw: list[Snapshot] = []
        self.heap = HeapTrimmer()
        self.tree.error(self.on_tree_error)

    def require_storage(self) -> Storage:
        """Return the storage opened in `setup_hook`."""
        if self.storage is None:
            raise RuntimeError("the storage is opened in setup_hook")
        return self.storage

    async def login(self, token: str) -> None:
        """Log in, and have the gateway's socket timed as `GatewaySocket` times it."""
        await super().login(token)
        # discord.py 2.7.1 opens its session at login and makes the gateway's socket of the
        # session's `ws_response_class` (`tests/bot/test_dispatch.py` checks it is ours).
        session = self.http._HTTPClient__session  # type: ignore[attr-defined]
        session._ws_response_class = GatewaySocket

    async def setup_hook(self) -> None:
        """Open storage, restore tables, load the extensions and sync the commands."""
        settings = self.settings
        self.storage = await Storage.open(settings.database)
        await self.storage.database.claim(settings.shards, settings.shard_count)
        self.movers.start()
        self.heap.start()
        rated = await RatingStore(self.storage).catch_up()
        if rated:
            log.info("rated %d games recorded before their ratings", rated)
        self.tables.store = StorageTableStore(
            self.storage, settings.shards, settings.shard_count, self.presenter.rating_changes
        )
        # Clicks on our components skip discord.py's parse of their message (`bot.dispatch`);
        # the router, installed after, sees a DM click first and sends it on if not ours.
        clicks = ClickDispatch(self._connection, DYNAMIC_ITEMS, self.notice)
        clicks.install(self._connection.parsers)
        self.presenter.store = self.storage
        if len(settings.shards) < settings.shard_count:
            # Other processes run the other shards: DM clicks on their tables go to them, and
            # their tables' message references are theirs.
            router = ClickRouter(
                self.storage, self.tables, settings.shards, settings.shard_count, self._connection
            )
            await router.install(self._connection.parsers)
            refs = ShardMessageRefs(self.storage, settings.shards, settings.shard_count)
            self.presenter.store = refs
        restored = [snapshot(table) for table in await self.tables.restore()]
        await self.presenter.load(restored)
        running = sum(1 for each in restored if each.open)
        log.info("restored %d running tables and %d ended lately", running, len(restored) - running)
        self._to_redraw = self.presenter.to_redraw()
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.tree.set_translator(CatalogTranslator())
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        log.info("synced %d application commands", len(synced))

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Wait between two shards' IDENTIFYs as long as Discord asks."""
        if not initial:
            await asyncio.sleep(self.tuning.identify_gap)

    async def on_tree_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        """Answer a command that failed with a friendly sentence, and log what went wrong."""
        locale = locale_of(interaction)
        if isinstance(error, app_commands.NoPrivateMessage):
            text = t("This command works in a server channel.", locale)
        elif isinstance(error, app_commands.CheckFailure):
            text = t("You can't use this command here.", locale)
        else:
            command = interaction.command.qualified_name if interaction.command else "?"
            log.error("command %s failed", command, exc_info=error)
            text = t("Something went wrong on my side; nothing was changed. Try again.", locale)
        try:
            await say(interaction, text)
        except discord.HTTPException:
            log.warning("could not tell the member that a command failed")

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        """Dispatch an event, but not a gateway frame's type when nothing waits for it."""
        # discord.py 2.7.1 dispatches `socket_event_type` for every gateway frame (2 us: a
        # debug log and a failed lookup of `on_socket_event_type`): skipped unless a
        # `wait_for`, a listener or an `@event` handler was given one.
        if (
            event_name == SOCKET_EVENT_TYPE
            and SOCKET_EVENT_TYPE not in self._listeners
            and ON_SOCKET_EVENT_TYPE not in self.extra_events
            and ON_SOCKET_EVENT_TYPE not in self.__dict__
        ):
            return
        super().dispatch(event_name, *args, **kwargs)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Note a command or a click that is not one of ours (`bot.dispatch` notes those)."""
        self.notice(interaction)

    def notice(self, interaction: discord.Interaction) -> None:
        """Remember each member's language (their private views speak it) and their server."""
        self.presenter.member_locales[interaction.user.id] = locale_of(interaction)
        if interaction.guild_id is not None:
            self.membership.seen(interaction.guild_id, interaction.user.id)

    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        """Take a member who left a server (or was kicked or banned) out of its tables."""
        await self.membership.departed(payload.guild_id, payload.user.id)

    async def connect(self, *, reconnect: bool = True) -> None:
        """Connect; if Discord refuses the members intent, say what to switch on and go without."""
        try:
            await super().connect(reconnect=reconnect)
        except discord.PrivilegedIntentsRequired:
            if not self.intents.members:
                raise
            log.warning(MEMBERS_INTENT_OFF)
            # The intents are read at each IDENTIFY; discord.py has no public way to change them.
            self._connection._intents = make_intents(members=False)
            await super().connect(reconnect=reconnect)

    async def on_error(self, event_method: str, /, *args: object, **kwargs: object) -> None:
        """Log a failed event handler (a click whose callback raised, say) and go on."""
        log.exception("event %s failed", event_method)

    async def close(self) -> None:
        """Stop timers and pending writes, disconnect, then close storage (once)."""
        try:
            await self.tables.shutdown()
            await self.presenter.close()
            await super().close()
            # The interaction writes' connections (`bot.rest` opens them at its first call).
            await rest.close()
        finally:
            self.heap.stop()
            self.movers.shutdown()
            storage, self.storage = self.storage, None
            if storage is not None:
                await storage.close()

    async def on_ready(self) -> None:
        log.info("connected as %s to %d guilds", self.user, len(self.guilds))
        # A restored table's messages may be behind its stored state (the last process
        # stopped before writing them): redraw them once, now that names can be shown.
        shown, self._to_redraw = self._to_redraw, []
        for each in shown:
            if each.open and not self._reachable(each):
                log.info("table %s: its server or channel is gone; the table is ended", each.id)
                await self.tables.abandon(each.id, "gone")
                continue
            self.presenter.redraw(each)

    def _reachable(self, shown: Snapshot) -> bool:
        """Say whether the bot still sees a table's server and channel (an outage is no end)."""
        guild = self.get_guild(shown.guild_id)
        if guild is None:
            return False
        return guild.unavailable or guild.get_channel_or_thread(shown.channel_id) is not None


class ShardedShitheadBot(ShitheadBot, commands.AutoShardedBot):
    """The bot running some or all of several shards, one gateway connection each."""


def make_bot(settings: Settings, tuning: Tuning | None = None) -> ShitheadBot:
    """Build the bot the settings ask for: sharded when SHARD_COUNT is more than one."""
    kind = ShardedShitheadBot if settings.shard_count > 1 else ShitheadBot
    return kind(settings, tuning)
