"""The table commands and every click on a table's components."""

from __future__ import annotations

import logging
from typing import Any, cast

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.custom_ids import ComponentId
from bot.guild_settings import GuildSettings
from bot.i18n import t
from bot.presenter import Presenter
from bot.render import rules_summary, table_embed
from bot.storage import Storage
from bot.tables import (
    COMPUTER_LEVELS,
    Player,
    Table,
    TableConfig,
    TableError,
    TableService,
)
from bot.views import Selection, table_view
from engine.rules import RulesError, preset_names

log = logging.getLogger(__name__)

PRESET_CHOICES = [app_commands.Choice(name=name, value=name) for name in preset_names()][:25]
LEVEL_CHOICES = [app_commands.Choice(name=t(level), value=level) for level in COMPUTER_LEVELS]
LOBBY_VERBS = ("join", "leave", "addbot", "start")
SELECTION_VERBS = ("sel", "swh", "swf")


def player_of(interaction: discord.Interaction) -> Player:
    """Who clicked or typed: their id, display name, and whether they moderate."""
    perms = interaction.permissions
    return Player(
        interaction.user.id,
        interaction.user.display_name,
        moderator=perms.manage_guild or perms.manage_messages,
    )


def level_of(cid: ComponentId) -> str | None:
    """Read the computer level an Add computer player button names (by index; none: basic)."""
    if cid.verb != "addbot" or len(cid.numbers) != 1:
        return None
    index = cid.numbers[0]
    if index >= len(COMPUTER_LEVELS):
        raise TableError(t("That move isn't available any more."))
    return COMPUTER_LEVELS[index]


async def refuse(interaction: discord.Interaction, text: str) -> None:
    """Answer with a short explanation only the asker sees."""
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


class Tables:
    """The table commands, bound to the table service and the presenter."""

    def __init__(
        self, service: TableService, presenter: Presenter, storage: Storage | None
    ) -> None:
        self.service = service
        self.presenter = presenter
        self.storage = storage

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """Read the server's settings (the defaults without storage)."""
        if self.storage is None:
            return GuildSettings()
        return await self.storage.guild_settings(guild_id)

    # ------------------------------------------------------------------ commands

    def register(self, root: app_commands.Group) -> None:
        """Add the table commands to the root command group."""

        @root.command(name="create", description=locale_str("Open a table in this channel"))
        @app_commands.describe(
            preset=locale_str("House-rule preset (if the server allows choosing)")
        )
        @app_commands.choices(preset=PRESET_CHOICES)
        async def create(
            interaction: discord.Interaction, preset: app_commands.Choice[str] | None = None
        ) -> None:
            await self.create(interaction, preset.value if preset else None)

        @root.command(name="join", description=locale_str("Sit down at this channel's table"))
        async def join(interaction: discord.Interaction) -> None:
            await self.lobby_command(interaction, "join")

        @root.command(name="leave", description=locale_str("Leave this channel's table or game"))
        async def leave(interaction: discord.Interaction) -> None:
            await self.lobby_command(interaction, "leave")

        @root.command(name="start", description=locale_str("Deal the cards (host only)"))
        async def start(interaction: discord.Interaction) -> None:
            await self.lobby_command(interaction, "start")

        @root.command(name="addbot", description=locale_str("Seat a computer player"))
        @app_commands.choices(difficulty=LEVEL_CHOICES)
        async def addbot(
            interaction: discord.Interaction, difficulty: app_commands.Choice[str] | None = None
        ) -> None:
            await self.lobby_command(
                interaction, "addbot", difficulty.value if difficulty else None
            )

        @root.command(
            name="hand", description=locale_str("See your cards and play (only you see it)")
        )
        async def hand(interaction: discord.Interaction) -> None:
            table = await self.channel_table(interaction)
            if table is not None:
                await self.show_hand(interaction, table)

        @root.command(
            name="table", description=locale_str("Post this channel's table again, at the bottom")
        )
        async def show_table(interaction: discord.Interaction) -> None:
            table = await self.channel_table(interaction)
            if table is None:
                return
            old = table.message_id
            await self.post_table(interaction, table)
            if old is not None and old != table.message_id:
                await self.presenter.delete_message(table.channel_id, old)

        @root.command(
            name="rules", description=locale_str("Show the rules of this channel's table")
        )
        async def rules(interaction: discord.Interaction) -> None:
            table = self.service.in_channel(interaction.channel_id or 0)
            if table is not None:
                text = rules_summary(table.rules, table.preset)
            else:
                settings = await self.guild_settings(interaction.guild_id or 0)
                text = rules_summary(settings.rules(), settings.preset)
            await interaction.response.send_message(text, ephemeral=True)

        @root.command(
            name="kick",
            description=locale_str("Remove a member from the table (host or moderator)"),
        )
        async def kick(interaction: discord.Interaction, member: discord.Member) -> None:
            try:
                table = self.service.channel_table(interaction.channel_id or 0)
                await self.service.kick(table.id, player_of(interaction), member.id)
            except TableError as error:
                await refuse(interaction, str(error))
                return
            await interaction.response.send_message(
                t("{name} was removed.", name=member.display_name), ephemeral=True
            )

        @root.command(
            name="end", description=locale_str("Close this channel's table (host or moderator)")
        )
        async def end(interaction: discord.Interaction) -> None:
            try:
                table = self.service.channel_table(interaction.channel_id or 0)
                await self.service.end(table.id, player_of(interaction))
            except TableError as error:
                await refuse(interaction, str(error))
                return
            await interaction.response.send_message(t("The table is closed."), ephemeral=True)

    async def channel_table(self, interaction: discord.Interaction) -> Table | None:
        """Find the channel's open table, or tell the member there is none."""
        try:
            return self.service.channel_table(interaction.channel_id or 0)
        except TableError as error:
            await refuse(interaction, str(error))
            return None

    async def create(self, interaction: discord.Interaction, preset: str | None) -> None:
        """Open a lobby and post its table message."""
        if interaction.guild_id is None or interaction.channel_id is None:
            await refuse(interaction, t("Open a table in a server channel."))
            return
        settings = await self.guild_settings(interaction.guild_id)
        if preset is not None and preset != settings.preset and not settings.host_may_pick_preset:
            await refuse(interaction, t("On this server every table uses the house rules."))
            return
        try:
            rules = settings.rules(preset)
            config = TableConfig(
                rules, preset or settings.preset, settings.turn_seconds, settings.idle_turns
            )
            table = await self.service.create(
                interaction.guild_id, interaction.channel_id, player_of(interaction), config
            )
        except RulesError as error:
            await refuse(interaction, t("These house rules don't work: {error}", error=error))
            return
        except TableError as error:
            await refuse(interaction, str(error))
            return
        await self.post_table(interaction, table)

    async def post_table(self, interaction: discord.Interaction, table: Table) -> None:
        """Answer with the table message and remember it."""
        embed, view = table_embed(table), table_view(table)
        response = await interaction.response.send_message(embed=embed, view=view)
        self.presenter.table_shown(table, embed, view)
        if response.message_id is not None:
            await self.service.persist_message(table, response.message_id)

    async def lobby_command(
        self, interaction: discord.Interaction, verb: str, level: str | None = None
    ) -> None:
        """Run a lobby verb typed as a command; the table message updates by itself."""
        try:
            table = self.service.channel_table(interaction.channel_id or 0)
            await self.lobby_action(table.id, verb, player_of(interaction), level)
        except TableError as error:
            await refuse(interaction, str(error))
            return
        done = {
            "join": t("You sit at table {id}.", id=table.id),
            "leave": t("You left table {id}.", id=table.id),
            "addbot": t("A computer player sits at table {id}.", id=table.id),
            "start": t("The cards are dealt. Your cards come by DM (or use `hand`)."),
        }
        await interaction.response.send_message(done[verb], ephemeral=True)

    async def lobby_action(
        self, table_id: str, verb: str, player: Player, level: str | None = None
    ) -> Table:
        """Join, leave, add a computer player or start."""
        if verb == "join":
            return await self.service.join(table_id, player)
        if verb == "leave":
            return await self.service.leave(table_id, player)
        if verb == "addbot":
            return await self.service.add_computer(table_id, player, level or "basic")
        return await self.service.start(table_id, player)

    async def show_hand(self, interaction: discord.Interaction, table: Table) -> None:
        """Answer with the player's private view, only for them, kept up to date."""
        seat = table.seat_of(interaction.user.id)
        if seat is None or table.seats[seat].removed:
            await refuse(interaction, t("You're not playing at this table."))
            return
        if table.game is None:
            await refuse(interaction, t("The game hasn't started yet."))
            return
        embed, view = self.presenter.private(table, seat)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True)
        self.presenter.private_shown(table, seat, interaction, embed, view)

    # ------------------------------------------------------------------ clicks

    async def handle_control(self, interaction: discord.Interaction, cid: ComponentId) -> None:
        """Answer a click on any of the bot's components."""
        try:
            await self._control(interaction, cid)
        except TableError as error:
            await refuse(interaction, str(error))

    async def _control(self, interaction: discord.Interaction, cid: ComponentId) -> None:
        player = player_of(interaction)
        verb = cid.verb
        if verb in LOBBY_VERBS:
            table = await self.lobby_action(cid.table, verb, player, level_of(cid))
            embed, view = table_embed(table), table_view(table)
            await interaction.response.edit_message(embed=embed, view=view)
            if interaction.message is not None and interaction.message.id == table.message_id:
                self.presenter.table_shown(table, embed, view)
            return
        if verb == "hand":
            await self.show_hand(interaction, self.service.get(cid.table))
            return
        if verb == "rematch":
            table = await self.service.rematch(cid.table, player)
            await self.post_table(interaction, table)
            return
        data = cast(dict[str, Any], interaction.data or {})
        raw: list[str] = data.get("values") or []
        values = [int(v) for v in raw if v.isdigit()]
        if verb in SELECTION_VERBS:
            table, seat = await self.service.viewer(cid.table, player.user_id, cid.version)
            other = cid.numbers[0] if cid.numbers else None
            picked = values[0] if values else None
            selection = {
                "sel": Selection(play=picked),
                "swh": Selection(swap_hand=picked, swap_face_up=other),
                "swf": Selection(swap_hand=other, swap_face_up=picked),
            }[verb]
        else:
            numbers = tuple(values) if verb in ("choose", "stack") else cid.numbers
            table = await self.service.act(cid.table, player.user_id, cid.version, verb, numbers)
            seat_of = table.seat_of(player.user_id)
            assert seat_of is not None
            seat, selection = seat_of, Selection()
        embed, view = self.presenter.private(table, seat, selection)
        await interaction.response.edit_message(embed=embed, view=view)
        self.presenter.private_shown(table, seat, interaction, embed, view)
