"""The discord.py client: intents, the core and the presenter, extensions, command sync."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import discord
import yarl
from discord import app_commands
from discord.ext import commands

from bot.answers import Answers, locale_of, say
from bot.components import DYNAMIC_ITEMS
from bot.i18n import t
from bot.pacing import Pacer
from bot.presenter import Presenter
from bot.settings import Settings
from bot.storage import Storage
from bot.table_store import StorageTableStore
from bot.translator import CatalogTranslator
from tables.movers import MovePool
from tables.outcome import Snapshot, snapshot
from tables.service import TableService
from tables.timers import Timing

log = logging.getLogger(__name__)

EXTENSIONS = ("bot.cogs.tables", "bot.cogs.houserules", "bot.cogs.stats")


def use_discord_at(api_base: str, gateway_url: str) -> None:
    """Point discord.py (REST and gateway, process-wide) at another Discord, e.g. the sandbox."""
    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def make_intents() -> discord.Intents:
    """Ask for guilds only: slash commands and components need no privileged intent."""
    return discord.Intents(guilds=True)


@dataclass(frozen=True)
class Tuning:
    """How fast tables move and how writes are paced (tests make it quick)."""

    timing: Timing = field(default_factory=Timing)
    writes_per_window: int = 4
    window_seconds: float = 5.0
    settle_seconds: float = 0.3
    # The table message shows the newest state at most once per interval.
    table_interval: float = 2.0
    seeds: Callable[[], int] | None = None
    # Processes that think out computer moves: None sizes the pool to the machine, 0 is none.
    move_workers: int | None = None


class ShitheadBot(commands.Bot):
    """The bot: it owns its settings, the table core, the presenter and the storage."""

    def __init__(self, settings: Settings, tuning: Tuning | None = None) -> None:
        # The bot has no voice features: don't warn that voice libraries are missing.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        super().__init__(command_prefix=commands.when_mentioned, intents=make_intents())
        self.settings = settings
        self.tuning = tuning or Tuning()
        self.storage: Storage | None = None
        self.presenter = Presenter(
            self,
            Pacer(self.tuning.writes_per_window, self.tuning.window_seconds),
            command_name=settings.command_name,
            settle=self.tuning.settle_seconds,
            table_interval=self.tuning.table_interval,
        )
        self.movers = MovePool(self.tuning.move_workers)
        self.tables = TableService(
            sink=self.presenter,
            timing=self.tuning.timing,
            seeds=self.tuning.seeds,
            movers=self.movers,
        )
        self.answers = Answers(self.tables, self.presenter, settings.command_name)
        self._to_redraw: list[Snapshot] = []
        self.tree.error(self.on_tree_error)

    def require_storage(self) -> Storage:
        """Return the storage opened in `setup_hook`."""
        if self.storage is None:
            raise RuntimeError("the storage is opened in setup_hook")
        return self.storage

    async def setup_hook(self) -> None:
        """Open storage, restore tables, load the extensions and sync the commands."""
        self.storage = await Storage.open(self.settings.database_path)
        self.movers.start()
        self.tables.store = StorageTableStore(self.storage)
        self.presenter.store = self.storage
        restored = [snapshot(table) for table in await self.tables.restore()]
        await self.presenter.load(restored)
        running = sum(1 for each in restored if each.open)
        log.info("restored %d running tables and %d ended lately", running, len(restored) - running)
        self._to_redraw = self.presenter.to_redraw()
        self.add_dynamic_items(*DYNAMIC_ITEMS)
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

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Remember each member's language: their private views speak it."""
        self.presenter.member_locales[interaction.user.id] = locale_of(interaction)

    async def on_error(self, event_method: str, /, *args: object, **kwargs: object) -> None:
        """Log a failed event handler (a click whose callback raised, say) and go on."""
        log.exception("event %s failed", event_method)

    async def close(self) -> None:
        """Stop timers and pending writes, disconnect, then close storage (once)."""
        try:
            await self.tables.shutdown()
            await self.presenter.close()
            await super().close()
        finally:
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
