"""The discord.py client: intents, command sync and start-up."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import discord
import yarl
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs import houserules, stats
from bot.cogs.tables import Tables
from bot.custom_ids import ComponentId
from bot.pacing import Pacer
from bot.presenter import Presenter
from bot.settings import Settings
from bot.storage import Storage
from bot.table_store import StorageTableStore
from bot.tables import Table, TableService, Timing
from bot.translator import CatalogTranslator
from bot.views import Control

log = logging.getLogger(__name__)


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
    ping_delay: float = 2.0
    seeds: Callable[[], int] | None = None


class ShitheadBot(commands.Bot):
    """The bot; it owns the settings it was built with and the table service."""

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
            ping_delay=self.tuning.ping_delay,
        )
        self.tables = TableService(
            listener=self.presenter, timing=self.tuning.timing, seeds=self.tuning.seeds
        )
        self.presenter.service = self.tables
        self.table_commands: Tables | None = None
        self._to_redraw: list[Table] = []

    async def handle_control(self, interaction: discord.Interaction, cid: ComponentId) -> None:
        """Pass a component click to the table commands."""
        if self.table_commands is not None:
            await self.table_commands.handle_control(interaction, cid)

    async def setup_hook(self) -> None:
        """Open storage, add the commands and sync them (to the dev guild if set, else globally)."""
        self.storage = await Storage.open(self.settings.database_path)
        self.tables.store = StorageTableStore(self.storage)
        root = app_commands.Group(
            name=self.settings.command_name, description=locale_str("Play Shithead")
        )
        self.table_commands = Tables(self.tables, self.presenter, self.storage)
        self.table_commands.register(root)
        self.add_dynamic_items(Control)
        restored = await self.tables.restore()
        log.info("restored %d running tables", len(restored))
        self._to_redraw = restored
        await houserules.setup(self, self.storage)
        await stats.setup(self, self.storage)
        houserules.register_root(root, self.storage)
        stats.register_root(root)
        self.tree.add_command(root)
        await self.tree.set_translator(CatalogTranslator())
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        log.info("synced %d application commands", len(synced))

    async def close(self) -> None:
        """Stop timers and pending writes, disconnect, then close storage."""
        await self.tables.shutdown()
        await self.presenter.close()
        await super().close()
        if self.storage is not None:
            await self.storage.close()

    async def on_ready(self) -> None:
        log.info("connected as %s to %d guilds", self.user, len(self.guilds))
        # A restored table's messages may be behind its stored state (the last process
        # stopped before writing them): redraw them once, now that names can be shown.
        tables, self._to_redraw = self._to_redraw, []
        for table in tables:
            if table.open:
                self.presenter.restored(table)


def run_bot(settings: Settings) -> None:
    """Connect to Discord and run until stopped."""
    assert settings.discord_token is not None
    bot = ShitheadBot(settings)
    bot.run(settings.discord_token.get_secret_value(), log_handler=None)
