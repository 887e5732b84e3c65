"""Show tables on Discord: the table message, private views by DM or ephemeral, pings.

All writes are paced per channel (`bot.pacing`): the table message and each private view
are redrawn from the latest state when their turn comes, so a burst of moves costs one
edit. Writes that would show what is already shown are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable

import discord

from bot.i18n import t
from bot.pacing import Pacer
from bot.render import private_embed, table_embed
from bot.tables import Table, TableService
from bot.views import Selection, private_view, table_view

log = logging.getLogger(__name__)

# Discord lets an interaction's token edit its messages for 15 minutes.
EPHEMERAL_LIFETIME = 14 * 60.0


def signature(embed: discord.Embed, view: discord.ui.View) -> str:
    """Fingerprint a message's content, to skip edits that change nothing."""
    components = view.to_components()
    return json.dumps([embed.to_dict(), components], sort_keys=True, default=str)


class Presenter:
    """The table service's listener: redraws tables and private views, pings players."""

    def __init__(
        self,
        client: discord.Client,
        pacer: Pacer,
        *,
        command_name: str = "shithead",
        settle: float = 0.3,
        ping_delay: float = 2.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.client = client
        self.pacer = pacer
        self.command_name = command_name
        self.settle = settle
        self.ping_delay = ping_delay
        self.sleep = sleep
        self.service: TableService | None = None
        self.shown: dict[tuple[str, str, int], str] = {}
        self.ephemeral: dict[tuple[str, int], tuple[discord.Interaction, float]] = {}
        self.last_turn: dict[str, int | None] = {}
        self.selections: dict[tuple[str, int], tuple[int, Selection]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ the listener

    def changed(self, table: Table) -> None:
        """Queue redraws of the table message and every member's private view."""
        self.pacer.submit(
            ("channel", table.channel_id), ("table", table.id), lambda: self._edit_table(table)
        )
        if table.game is not None:
            for seat in table.humans():
                self.update_private(table, seat)
        self._maybe_ping(table)
        if not table.open:
            self.last_turn.pop(table.id, None)

    def restored(self, table: Table) -> None:
        """Redraw a table taken up after a restart, without pinging its player to act again."""
        if table.game is not None:
            self.last_turn[table.id] = table.game.turn
        self.changed(table)

    async def remind(self, table: Table, seat: int) -> None:
        """Tell the player to act, in the channel, that their time runs out."""
        user_id = table.seats[seat].user_id
        version = table.version

        async def job() -> bool:
            if table.version != version or not table.open:
                return False
            text = t(
                "⏰ <@{user}>, your time to play at table {id} is running out.",
                user=user_id,
                id=table.id,
            )
            await self._say(table, text, user_id)
            return True

        self.pacer.submit(("channel", table.channel_id), ("remind", table.id), job)

    # ------------------------------------------------------------------ the table message

    async def _edit_table(self, table: Table) -> bool:
        await self.sleep(self.settle)
        if table.message_id is None:
            return False
        embed, view = table_embed(table), table_view(table)
        key = ("table", table.id, 0)
        mark = signature(embed, view)
        if self.shown.get(key) == mark:
            return False
        message_id = table.message_id
        channel = self.client.get_partial_messageable(table.channel_id)
        try:
            await channel.get_partial_message(message_id).edit(embed=embed, view=view)
        except discord.NotFound:
            if table.message_id != message_id:
                return False  # reposted meanwhile: the new message is drawn by its own edit
            # Someone deleted the table message: post it again so the table stays playable.
            message = await channel.send(embed=embed, view=view)
            if self.service is not None:
                await self.service.persist_message(table, message.id)
        self.shown[key] = mark
        if not table.open:
            self._forget(table)
        return True

    async def delete_message(self, channel_id: int, message_id: int) -> None:
        """Delete an old table message, if it is still there."""
        channel = self.client.get_partial_messageable(channel_id)
        with contextlib.suppress(discord.NotFound):
            await channel.get_partial_message(message_id).delete()

    def table_shown(self, table: Table, embed: discord.Embed, view: discord.ui.View) -> None:
        """Note that an interaction answer just drew the table message."""
        self.shown[("table", table.id, 0)] = signature(embed, view)

    # ------------------------------------------------------------------ private views

    def where(self, table: Table) -> str:
        """Say which server, channel and table a private view belongs to."""
        channel = self.client.get_channel(table.channel_id)
        guild = self.client.get_guild(table.guild_id)
        return t(
            "Table {id} in #{channel} on {guild}",
            id=table.id,
            channel=getattr(channel, "name", table.channel_id),
            guild=guild.name if guild else table.guild_id,
        )

    def private(
        self, table: Table, seat: int, selection: Selection | None = None
    ) -> tuple[discord.Embed, discord.ui.View]:
        """Draw a player's private view (with their pending menu choice, if still current)."""
        version = table.seats[seat].version
        if selection is None:
            held = self.selections.get((table.id, seat))
            selection = held[1] if held is not None and held[0] == version else None
        else:
            self.selections[(table.id, seat)] = (version, selection)
        player = table.view(seat)
        embed = private_embed(table, player, self.where(table))
        view = private_view(table, player, selection) if table.open else discord.ui.View()
        return embed, view

    def private_shown(
        self,
        table: Table,
        seat: int,
        interaction: discord.Interaction,
        embed: discord.Embed,
        view: discord.ui.View,
    ) -> None:
        """Note that an interaction answer drew a private view (in a DM or ephemeral)."""
        if not table.open:
            # A closed table's views are final: keep no fingerprint that nothing will clear.
            self._drop_if_closed(table, ("dm", table.id, seat))
            self._drop_if_closed(table, ("eph", table.id, seat))
        elif interaction.guild_id is None:
            self.shown[("dm", table.id, seat)] = signature(embed, view)
        else:
            self.ephemeral[(table.id, seat)] = (interaction, time.monotonic())
            self.shown[("eph", table.id, seat)] = signature(embed, view)

    def update_private(self, table: Table, seat: int) -> None:
        """Queue a redraw of a member's DM view and of their live ephemeral view."""
        user_id = table.seats[seat].user_id
        if not table.seats[seat].dm_closed:
            self.pacer.submit(("dm", user_id), table.id, lambda: self._edit_dm(table, seat))
        if (table.id, seat) in self.ephemeral:
            self.pacer.submit(("eph", user_id), table.id, lambda: self._edit_ephemeral(table, seat))

    async def _edit_dm(self, table: Table, seat: int) -> bool:
        await self.sleep(self.settle)
        player = table.seats[seat]
        embed, view = self.private(table, seat)
        key = ("dm", table.id, seat)
        mark = signature(embed, view)
        if self.shown.get(key) == mark or player.dm_closed:
            self._drop_if_closed(table, key)
            return False
        try:
            if player.dm_message_id is None or player.dm_channel_id is None:
                channel = await self.client.create_dm(discord.Object(player.user_id))
                message = await channel.send(embed=embed, view=view)
                player.dm_channel_id, player.dm_message_id = channel.id, message.id
                await self._persist(table)
            else:
                dm = self.client.get_partial_messageable(player.dm_channel_id)
                await dm.get_partial_message(player.dm_message_id).edit(embed=embed, view=view)
        except discord.Forbidden:
            player.dm_closed = True
            await self._persist(table)
            text = t(
                "<@{user}>, I can't send you direct messages. Use the **My hand** button on "
                "the table, or `/{command} hand`, to see your cards and play.",
                user=player.user_id,
                command=self.command_name,
            )
            self.pacer.submit(
                ("channel", table.channel_id),
                ("dm-closed", player.user_id),
                lambda: self._say_bool(table, text, player.user_id),
            )
            return True
        self.shown[key] = mark
        self._drop_if_closed(table, key)
        return True

    async def _edit_ephemeral(self, table: Table, seat: int) -> bool:
        held = self.ephemeral.get((table.id, seat))
        if held is None:
            return False
        interaction, since = held
        await self.sleep(self.settle)
        if time.monotonic() - since > EPHEMERAL_LIFETIME:
            self.ephemeral.pop((table.id, seat), None)
            return False
        embed, view = self.private(table, seat)
        key = ("eph", table.id, seat)
        mark = signature(embed, view)
        if self.shown.get(key) == mark:
            self._drop_if_closed(table, key)
            return False
        await interaction.edit_original_response(embed=embed, view=view)
        self.shown[key] = mark
        self._drop_if_closed(table, key)
        return True

    # ------------------------------------------------------------------ pings

    def _maybe_ping(self, table: Table) -> None:
        """Mention the player to act when the turn moves to someone else, after a pause."""
        game = table.game
        if game is None or table.phase != "play" or game.turn is None:
            return
        turn = game.turn
        if self.last_turn.get(table.id) == turn:
            return
        self.last_turn[table.id] = turn
        if table.seats[turn].automatic:
            return
        moves = game.moves
        task = asyncio.create_task(self._ping(table, turn, moves))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ping(self, table: Table, seat: int, moves: int) -> None:
        await self.sleep(self.ping_delay)

        def still_waiting() -> bool:
            return table.open and table.game is not None and table.game.moves == moves

        if not still_waiting():
            return
        user_id = table.seats[seat].user_id

        async def job() -> bool:
            if not still_waiting():
                return False
            await self._say(
                table,
                t("<@{user}>, it's your turn at table {id}.", user=user_id, id=table.id),
                user_id,
            )
            return True

        self.pacer.submit(("channel", table.channel_id), ("ping", table.id), job)

    # ------------------------------------------------------------------ helpers

    async def _say(self, table: Table, text: str, user_id: int) -> None:
        channel = self.client.get_partial_messageable(table.channel_id)
        mentions = discord.AllowedMentions(
            users=[discord.Object(user_id)], everyone=False, roles=False
        )
        await channel.send(text, allowed_mentions=mentions)

    async def _say_bool(self, table: Table, text: str, user_id: int) -> bool:
        await self._say(table, text, user_id)
        return True

    async def _persist(self, table: Table) -> None:
        if self.service is not None:
            await self.service.persist(table)

    def _drop_if_closed(self, table: Table, key: tuple[str, str, int]) -> None:
        """Forget a private view's fingerprint once its table is closed: it won't change."""
        if not table.open:
            self.shown.pop(key, None)
            if key[0] == "eph":
                self.ephemeral.pop((table.id, key[2]), None)

    def _forget(self, table: Table) -> None:
        self.shown.pop(("table", table.id, 0), None)
        for held in [k for k in self.selections if k[0] == table.id]:
            self.selections.pop(held, None)

    async def close(self) -> None:
        """Stop pending pings and writes."""
        for task in list(self._tasks):
            task.cancel()
        await self.pacer.close()
