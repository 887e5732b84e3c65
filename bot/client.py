"""The discord.py client: intents, command sync and start-up."""

from __future__ import annotations

import logging

import discord
import yarl
from discord import app_commands
from discord.ext import commands

from bot.cogs import houserules, stats
from bot.i18n import t
from bot.settings import Settings
from bot.storage import Storage

log = logging.getLogger(__name__)


def use_discord_at(api_base: str, gateway_url: str) -> None:
    """Point discord.py (REST and gateway, process-wide) at another Discord, e.g. the sandbox."""
    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def make_intents() -> discord.Intents:
    """Ask for guilds only: slash commands and components need no privileged intent."""
    return discord.Intents(guilds=True)


class ShitheadBot(commands.Bot):
    """The bot; it owns the settings it was built with."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=make_intents())
        self.settings = settings
        self.storage: Storage | None = None

    async def setup_hook(self) -> None:
        """Open storage, add the commands and sync them (to the dev guild if set, else globally)."""
        self.storage = await Storage.open(self.settings.database_path)
        root = app_commands.Group(name=self.settings.command_name, description=t("Play Shithead"))
        await houserules.setup(self, self.storage)
        await stats.setup(self, self.storage)
        houserules.register_root(root, self.storage)
        stats.register_root(root, self.storage)
        self.tree.add_command(root)
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        log.info("synced %d application commands", len(synced))

    async def close(self) -> None:
        """Disconnect, then close storage."""
        await super().close()
        if self.storage is not None:
            await self.storage.close()

    async def on_ready(self) -> None:
        log.info("connected as %s to %d guilds", self.user, len(self.guilds))


def run_bot(settings: Settings) -> None:
    """Connect to Discord and run until stopped."""
    assert settings.discord_token is not None
    bot = ShitheadBot(settings)
    bot.run(settings.discord_token.get_secret_value(), log_handler=None)
