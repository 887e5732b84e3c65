"""The `/shithead` command group: open, join, start, show and end tables; rules and records.

The root group's name is the `COMMAND_NAME` setting. Its table commands turn into the core's
intents and are answered through `bot.answers`; `houserules` and `forget-me` show a server's
rules and delete a member's records (the work is in `bot.cogs.houserules` and `.stats`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.answers import Acknowledged, Answers, locale_of, member_of, say, server_language
from bot.cogs.houserules import show_house_rules
from bot.cogs.stats import forget_me_prompt
from bot.guild_settings import GuildSettings
from bot.rulebook import rules_embed
from bot.storage import Storage
from bot.words import plain
from engine.rules import RulesError, preset_names
from tables.errors import TableError
from tables.intents import AddComputer, End, Join, Kick, Leave, LobbyIntent, Start
from tables.model import TableConfig
from tables.outcome import snapshot
from tables.service import COMPUTER_LEVELS, TableService

if TYPE_CHECKING:
    from bot.client import ShitheadBot

PRESET_CHOICES = [app_commands.Choice(name=name, value=name) for name in preset_names()][:25]
LEVEL_CHOICES = [
    app_commands.Choice(name=locale_str(level), value=level) for level in COMPUTER_LEVELS
]
DONE = {
    "join": "You sit at table {id}.",
    "leave": "You left table {id}.",
    "addbot": "A computer player sits at table {id}.",
    "start": "The cards are dealt. Your cards come by DM (or use `hand`).",
}


class Play(commands.GroupCog, group_name="shithead", group_description=locale_str("Play Shithead")):
    """The table commands, bound to the core, the answerer and the storage."""

    def __init__(
        self, service: TableService, answers: Answers, storage: Storage, command_name: str
    ) -> None:
        super().__init__()
        # The root command is named by the COMMAND_NAME setting.
        self.__cog_app_commands_group__.name = command_name  # type: ignore[union-attr]
        self.service = service
        self.answers = answers
        self.storage = storage

    async def _settings(self, guild_id: int) -> GuildSettings:
        return await self.storage.guild_settings(guild_id)

    async def _lobby_command(
        self, interaction: discord.Interaction, verb: str, intent: LobbyIntent
    ) -> None:
        """Run a lobby intent typed as a command; the table message updates by itself."""
        async with Acknowledged(interaction, edit=False, ephemeral=True):
            try:
                table = self.service.channel_table(interaction.channel_id or 0)
                await self.service.submit(table.id, member_of(interaction), intent)
            except TableError as error:
                await self.answers.refuse(interaction, error)
                return
            await say(interaction, self.answers.done(DONE[verb], interaction, id=table.id))

    @app_commands.command(name="create", description=locale_str("Open a table in this channel"))
    @app_commands.describe(preset=locale_str("House-rule preset (if the server allows choosing)"))
    @app_commands.choices(preset=PRESET_CHOICES)
    async def create(
        self, interaction: discord.Interaction, preset: app_commands.Choice[str] | None = None
    ) -> None:
        """Open a lobby and post its table message."""
        async with Acknowledged(interaction, edit=False):
            await self._create(interaction, preset.value if preset else None)

    async def _create(self, interaction: discord.Interaction, chosen: str | None) -> None:
        """Open a lobby with the server's house rules (or a chosen preset)."""
        if interaction.guild_id is None or interaction.channel_id is None:
            await say(
                interaction, self.answers.done("Open a table in a server channel.", interaction)
            )
            return
        settings = await self._settings(interaction.guild_id)
        if chosen is not None and chosen != settings.preset and not settings.host_may_pick_preset:
            text = "On this server every table uses the house rules."
            await say(interaction, self.answers.done(text, interaction))
            return
        try:
            rules = settings.rules(chosen)
            config = TableConfig(
                rules,
                chosen or settings.preset,
                settings.turn_seconds,
                settings.idle_turns,
                settings.remind_seconds,
                server_language(interaction, settings.language),
                settings.pictures,
            )
            outcome = await self.service.create(
                interaction.guild_id, interaction.channel_id, member_of(interaction), config
            )
        except RulesError as error:
            text = "These house rules don't work: {error}"
            await say(interaction, self.answers.done(text, interaction, error=error))
            return
        except TableError as error:
            await self.answers.refuse(interaction, error)
            return
        await self.answers.post_table(interaction, outcome.snapshot)

    @app_commands.command(name="join", description=locale_str("Sit down at this channel's table"))
    async def join(self, interaction: discord.Interaction) -> None:
        """Sit down at the channel's table."""
        await self._lobby_command(interaction, "join", Join())

    @app_commands.command(
        name="leave", description=locale_str("Leave this channel's table or game")
    )
    async def leave(self, interaction: discord.Interaction) -> None:
        """Leave the channel's table (a running game is lost)."""
        await self._lobby_command(interaction, "leave", Leave())

    @app_commands.command(name="start", description=locale_str("Deal the cards (host only)"))
    async def start(self, interaction: discord.Interaction) -> None:
        """Deal the cards."""
        await self._lobby_command(interaction, "start", Start())

    @app_commands.command(name="addbot", description=locale_str("Seat a computer player"))
    @app_commands.choices(difficulty=LEVEL_CHOICES)
    async def addbot(
        self, interaction: discord.Interaction, difficulty: app_commands.Choice[str] | None = None
    ) -> None:
        """Seat a computer player of a level."""
        level = difficulty.value if difficulty else "basic"
        await self._lobby_command(interaction, "addbot", AddComputer(level))

    @app_commands.command(
        name="hand", description=locale_str("See your cards and play (only you see it)")
    )
    async def hand(self, interaction: discord.Interaction) -> None:
        """Show the member their private view of the channel's table."""
        try:
            table = self.service.channel_table(interaction.channel_id or 0)
        except TableError as error:
            await self.answers.refuse(interaction, error)
            return
        await self.answers.hand(interaction, table.id)

    @app_commands.command(
        name="table", description=locale_str("Post this channel's table again, at the bottom")
    )
    async def table(self, interaction: discord.Interaction) -> None:
        """Post the table message again at the bottom of the channel; delete the old one."""
        try:
            table = self.service.channel_table(interaction.channel_id or 0)
        except TableError as error:
            await self.answers.refuse(interaction, error)
            return
        await self.answers.repost_table(interaction, snapshot(table))

    @app_commands.command(
        name="rules", description=locale_str("Show the rules of this channel's table")
    )
    async def rules(self, interaction: discord.Interaction) -> None:
        """Show the rules of the channel's table, or the server's house rules."""
        locale = locale_of(interaction)
        table = self.service.in_channel(interaction.channel_id or 0)
        if table is not None:
            embed = rules_embed(table.rules, table.preset, locale)
        else:
            settings = await self._settings(interaction.guild_id or 0)
            embed = rules_embed(settings.rules(), settings.preset, locale)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(
        name="kick", description=locale_str("Remove a member from the table (host or moderator)")
    )
    async def kick(self, interaction: discord.Interaction, member: discord.User) -> None:
        """Unseat or remove a member (also one who has left the server)."""
        try:
            table = self.service.channel_table(interaction.channel_id or 0)
            await self.service.submit(table.id, member_of(interaction), Kick(member.id))
        except TableError as error:
            await self.answers.refuse(interaction, error)
            return
        text = "{name} was removed."
        name = plain(member.display_name)
        await say(interaction, self.answers.done(text, interaction, name=name))

    @app_commands.command(
        name="end", description=locale_str("Close this channel's table (host or moderator)")
    )
    async def end(self, interaction: discord.Interaction) -> None:
        """Close the channel's table without a result."""
        try:
            table = self.service.channel_table(interaction.channel_id or 0)
            await self.service.submit(table.id, member_of(interaction), End())
        except TableError as error:
            await self.answers.refuse(interaction, error)
            return
        await say(interaction, self.answers.done("The table is closed.", interaction))

    @app_commands.command(
        name="houserules", description=locale_str("Show this server's house rules")
    )
    async def houserules(self, interaction: discord.Interaction) -> None:
        """Show the server's house rules (anyone may look)."""
        await show_house_rules(interaction, self.storage)

    @app_commands.command(
        name="forget-me", description=locale_str("Delete your recorded games and stats")
    )
    async def forget_me(self, interaction: discord.Interaction) -> None:
        """Ask the member to confirm deleting their stats."""
        await forget_me_prompt(interaction)


async def setup(bot: ShitheadBot) -> None:
    """Add the `/shithead` group, wired to the bot's core, answerer and storage."""
    await bot.add_cog(
        Play(bot.tables, bot.answers, bot.require_storage(), bot.settings.command_name)
    )
