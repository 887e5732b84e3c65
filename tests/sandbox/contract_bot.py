"""A discord.py bot that uses every part of the API the sandbox promises to speak.

Run as a separate process for the restart test:
`python -m tests.sandbox.contract_bot API_BASE GATEWAY_URL TOKEN`.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import struct
import sys
import zlib
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from discord.webhook.async_ import async_context, interaction_response_params

from bot.client import use_discord_at

SLOW_SECONDS = 0.6


def png(width: int, height: int, shade: int = 0) -> bytes:
    """Return a valid grey PNG of the given size."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + bytes([shade]) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def png_file(width: int, height: int, shade: int = 0, name: str = "table.png") -> discord.File:
    """Return a PNG as discord.py uploads it."""
    return discord.File(io.BytesIO(png(width, height, shade)), filename=name)


class PlayButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"play:(?P<game>\d+)"):
    """A button that carries its game id and survives restarts."""

    def __init__(self, game: int) -> None:
        super().__init__(discord.ui.Button(label="Play", custom_id=f"play:{game}"))
        self.game = game

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PlayButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"played in game {self.game} by pid {os.getpid()}", ephemeral=True
        )


class TableView(discord.ui.View):
    """A persistent view: every item has a custom_id and there is no timeout."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Join", custom_id="join")
    async def join(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.edit_message(content=f"{interaction.user.name} joined")

    @discord.ui.button(label="Ack", custom_id="ack")
    async def ack(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content="acknowledged")

    @discord.ui.select(
        custom_id="pick",
        options=[discord.SelectOption(label=v, value=v) for v in ("low", "high")],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.edit_message(content=f"picked {select.values[0]}")


class PictureView(discord.ui.View):
    """A persistent Redraw button that replaces its message's picture (a type 7 answer)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Redraw", custom_id="redraw")
    async def redraw(
        self, interaction: discord.Interaction, button: discord.ui.Button[Any]
    ) -> None:
        await interaction.response.edit_message(
            content="redrawn", attachments=[png_file(3, 2, shade=200, name="redrawn.png")]
        )


def table_view(game: int) -> TableView:
    """Return the table's view with a dynamic Play button for one game."""
    view = TableView()
    view.add_item(PlayButton(game))
    return view


class ContractBot(commands.Bot):
    """Commands that each exercise one part of the contract; records what happened."""

    def __init__(self, *, guild_id: int | None = None) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents(guilds=True))
        self.guild_id = guild_id
        self.errors: list[discord.HTTPException] = []
        self.interactions: list[discord.Interaction] = []
        self.resumed = asyncio.Event()
        self.tree.add_command(game_commands())
        self.tree.add_command(admin_commands())

    async def setup_hook(self) -> None:
        self.add_view(TableView())
        self.add_view(PictureView())
        self.add_dynamic_items(PlayButton)
        if self.guild_id is not None:
            guild = discord.Object(self.guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()

    async def on_resumed(self) -> None:
        self.resumed.set()


def _bot(interaction: discord.Interaction) -> ContractBot:
    assert isinstance(interaction.client, ContractBot)
    interaction.client.interactions.append(interaction)
    return interaction.client


def game_commands() -> app_commands.Group:
    """Build `/shithead ...`."""
    group = app_commands.Group(name="shithead", description="Play Shithead")

    @group.command(description="Open a table")
    @app_commands.choices(
        preset=[app_commands.Choice(name=n, value=n) for n in ("classic", "fast")]
    )
    async def create(
        interaction: discord.Interaction,
        preset: app_commands.Choice[str],
        game: int = 1,
        opponent: discord.Member | None = None,
    ) -> None:
        _bot(interaction)
        against = f" against {opponent.display_name}" if opponent else ""
        await interaction.response.send_message(
            f"{preset.value} table{against}", view=table_view(game)
        )

    @group.command(description="Join a game")
    async def join(interaction: discord.Interaction, game: str) -> None:
        await interaction.response.send_message(f"joined {game}")

    @join.autocomplete("game")
    async def join_games(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        names = ("alpha", "beta", "albatross")
        return [app_commands.Choice(name=n, value=n) for n in names if n.startswith(current)]

    @group.command(description="Only you see this")
    async def secret(interaction: discord.Interaction) -> None:
        _bot(interaction)
        await interaction.response.send_message("your hand", ephemeral=True, view=table_view(7))

    @group.command(description="Think, then answer")
    async def think(interaction: discord.Interaction, ephemeral: bool = False) -> None:
        _bot(interaction)
        await interaction.response.defer(thinking=True, ephemeral=ephemeral)
        await asyncio.sleep(0.05)
        await interaction.followup.send("thought it through")

    @group.command(description="Send a DM")
    async def dm(interaction: discord.Interaction) -> None:
        bot = _bot(interaction)
        try:
            await interaction.user.send("your cards: 3♠ 7♥", view=table_view(9))
        except discord.Forbidden as error:
            bot.errors.append(error)
            await interaction.response.send_message(f"DMs closed ({error.code})", ephemeral=True)
        else:
            await interaction.response.send_message("sent you a DM", ephemeral=True)

    @group.command(description="Edit everything")
    async def edits(interaction: discord.Interaction) -> None:
        _bot(interaction)
        await interaction.response.send_message("original v1")
        await interaction.edit_original_response(content="original v2")
        followup = await interaction.followup.send("followup v1", wait=True)
        await followup.edit(content="followup v2")
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)
        posted = await channel.send("channel v1")
        await posted.edit(content="channel v2")
        fetched = await channel.fetch_message(posted.id)
        doomed = await channel.send(f"fetched {fetched.content}")
        await doomed.delete()

    @group.command(description="Answer too late")
    async def slow(interaction: discord.Interaction) -> None:
        bot = _bot(interaction)
        await asyncio.sleep(SLOW_SECONDS)
        try:
            await interaction.response.send_message("too late")
        except discord.HTTPException as error:
            bot.errors.append(error)

    @group.command(description="Answer twice")
    async def twice(interaction: discord.Interaction) -> None:
        bot = _bot(interaction)
        await interaction.response.send_message("first")
        params = interaction_response_params(4, {"content": "second"})
        try:
            await async_context.get().create_interaction_response(
                interaction.id, interaction.token, session=interaction._session, params=params
            )
        except discord.HTTPException as error:
            bot.errors.append(error)

    @group.command(description="Show a picture")
    async def picture(interaction: discord.Interaction) -> None:
        _bot(interaction)
        await interaction.response.send_message(
            "a picture", file=png_file(4, 3), view=PictureView()
        )

    @group.command(description="Say too much")
    async def shout(interaction: discord.Interaction, length: int) -> None:
        _bot(interaction)
        await interaction.response.send_message("x" * length)

    return group


def admin_commands() -> app_commands.Group:
    """Build `/shithead-admin ...`, for Manage Server only."""
    group = app_commands.Group(
        name="shithead-admin",
        description="Moderate games",
        default_permissions=discord.Permissions(manage_guild=True),
    )

    @group.command(description="Reset a channel")
    async def reset(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("reset", ephemeral=True)

    return group


def main(argv: list[str]) -> None:
    """Connect a fresh ContractBot to a running sandbox."""
    api_base, gateway_url, token = argv
    use_discord_at(api_base, gateway_url)
    ContractBot().run(token, log_handler=None)


if __name__ == "__main__":
    main(sys.argv[1:])
