"""`/leaderboard`, `/stats` and `forget-me`: the hall of shame and a way out of it."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot._leaderboard import (
    MIN_GAMES_FOR_RATE,
    ORDERS,
    PERIODS,
    Order,
    Period,
    computer_lines,
    member_stats,
    page_count,
    page_lines,
    ranked,
    since,
)
from bot.i18n import t
from bot.storage import PlayedGame, Storage

# Source texts: translated with t() in messages and by the command translator in menus.
PERIOD_NAMES: dict[Period, str] = {"all": "all time", "30d": "last 30 days"}
ORDER_NAMES: dict[Order, str] = {
    "shithead": "times Shithead",
    "loss_rate": "loss rate",
    "games": "games played",
}

if TYPE_CHECKING:
    from bot.client import ShitheadBot


async def leaderboard_page(
    storage: Storage, guild: discord.Guild, period: Period, order: Order, page: int
) -> tuple[discord.Embed, discord.ui.View]:
    """Build one page of a server's leaderboard with its paging buttons."""
    rows = await storage.leaderboard(guild.id, since(period, datetime.now(UTC)))
    people = ranked(rows, order)
    pages = page_count(len(people))
    page = min(max(page, 0), pages - 1)
    lines = page_lines(people, page) or [t("No games recorded yet.")]
    embed = discord.Embed(
        title=t(
            "Hall of shame of {guild}: {order}, {period}",
            guild=guild.name,
            order=t(ORDER_NAMES[order]),
            period=t(PERIOD_NAMES[period]),
        ),
        description="\n".join(lines),
    )
    bots = computer_lines(rows)
    if bots:
        embed.add_field(name=t("Computer players"), value="\n".join(bots)[:1024], inline=False)
    embed.set_footer(
        text=t(
            "Page {page} of {pages}. A loss rate counts from {minimum} games.",
            page=page + 1,
            pages=pages,
            minimum=MIN_GAMES_FOR_RATE,
        )
    )
    view = discord.ui.View(timeout=None)
    view.add_item(PageButton(period, order, page - 1, "prev", disabled=page == 0))
    view.add_item(PageButton(period, order, page + 1, "next", disabled=page >= pages - 1))
    return embed, view


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lb:(?P<period>all|30d):(?P<order>[a-z_]+):(?P<page>-?\d+):(?P<way>prev|next)",
):
    """A leaderboard page button; its custom_id says everything, so it outlives restarts."""

    storage: Storage | None = None  # set by `setup`

    def __init__(
        self, period: Period, order: Order, page: int, way: str, *, disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label="◀" if way == "prev" else "▶",
                custom_id=f"lb:{period}:{order}:{page}:{way}",
                disabled=disabled,
            )
        )
        self.period, self.order, self.page = period, order, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PageButton:
        """Rebuild the button from its custom_id."""
        order = match["order"] if match["order"] in ORDERS else "shithead"
        period, page, way = cast(Period, match["period"]), int(match["page"]), match["way"]
        return cls(period, cast(Order, order), page, way)

    async def callback(self, interaction: discord.Interaction) -> None:
        """Show the page the button points at."""
        assert self.storage is not None
        if interaction.guild is None:
            return
        embed, view = await leaderboard_page(
            self.storage, interaction.guild, self.period, self.order, self.page
        )
        await interaction.response.edit_message(embed=embed, view=view)


class ForgetButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"forget:(?P<user>\d+):(?P<answer>yes|no)",
):
    """Confirm or cancel forgetting a member's stats; only that member may press it."""

    storage: Storage | None = None  # set by `setup`

    def __init__(self, user_id: int, answer: str) -> None:
        yes = answer == "yes"
        super().__init__(
            discord.ui.Button(
                label=t("Delete my stats") if yes else t("Cancel"),
                style=discord.ButtonStyle.danger if yes else discord.ButtonStyle.secondary,
                custom_id=f"forget:{user_id}:{answer}",
            )
        )
        self.user_id, self.answer = user_id, answer

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ForgetButton:
        """Rebuild the button from its custom_id."""
        return cls(int(match["user"]), match["answer"])

    async def callback(self, interaction: discord.Interaction) -> None:
        """Delete the member's stats, or leave them."""
        assert self.storage is not None
        if interaction.user.id != self.user_id:
            await interaction.response.send_message(
                t("Only the member who asked can answer this."), ephemeral=True
            )
            return
        if self.answer != "yes":
            await interaction.response.edit_message(content=t("Nothing was deleted."), view=None)
            return
        seats = await self.storage.forget_member(self.user_id)
        await interaction.response.edit_message(
            content=t(
                "Done: your name was removed from {seats} recorded games on every server.",
                seats=seats,
            ),
            view=None,
        )


async def setup(bot: ShitheadBot, storage: Storage) -> None:
    """Add `/leaderboard` and `/stats`, and the buttons of the leaderboard and `forget-me`."""
    PageButton.storage = ForgetButton.storage = storage
    bot.add_dynamic_items(PageButton, ForgetButton)

    @app_commands.command(
        name="leaderboard", description=locale_str("Show this server's hall of shame")
    )
    @app_commands.describe(
        period=locale_str("Which games count"), order=locale_str("What to rank by")
    )
    @app_commands.choices(
        period=[app_commands.Choice(name=locale_str(PERIOD_NAMES[p]), value=p) for p in PERIODS],
        order=[app_commands.Choice(name=locale_str(ORDER_NAMES[o]), value=o) for o in ORDERS],
    )
    @app_commands.guild_only()
    async def leaderboard(
        interaction: discord.Interaction, period: str = "all", order: str = "shithead"
    ) -> None:
        """Show the first page of the leaderboard."""
        assert interaction.guild is not None
        embed, view = await leaderboard_page(
            storage, interaction.guild, cast(Period, period), cast(Order, order), 0
        )
        await interaction.response.send_message(embed=embed, view=view)

    @app_commands.command(
        name="stats", description=locale_str("Show a member's record on this server")
    )
    @app_commands.describe(member=locale_str("Whose record (yours when left out)"))
    @app_commands.guild_only()
    async def stats(interaction: discord.Interaction, member: discord.User | None = None) -> None:
        """Show a member's games, losses, streaks and favourite preset."""
        assert interaction.guild_id is not None
        who = member or interaction.user
        await interaction.response.send_message(
            embed=stats_embed(
                who.display_name, await storage.played_games(interaction.guild_id, who.id)
            )
        )

    bot.tree.add_command(leaderboard)
    bot.tree.add_command(stats)


def stats_embed(name: str, games: list[PlayedGame]) -> discord.Embed:
    """Show a member's games, losses, loss rate, streaks and favourite preset."""
    record = member_stats(games)
    embed = discord.Embed(title=t("{name}'s record", name=name))
    if record.games == 0:
        embed.description = t("No games recorded on this server.")
        return embed
    for field, value in (
        (t("Games"), str(record.games)),
        (t("Times Shithead"), str(record.losses)),
        (t("Loss rate"), f"{record.loss_rate or 0.0:.0%}"),
        (t("Best streak (games without losing)"), str(record.best_streak)),
        (t("Worst streak (losses in a row)"), str(record.worst_streak)),
        (t("Favourite preset"), record.favourite_preset or "–"),
    ):
        embed.add_field(name=field, value=value)
    return embed


def register_root(root: app_commands.Group) -> None:
    """Add `forget-me` under the root command (`setup` registers its buttons)."""

    @root.command(name="forget-me", description=locale_str("Delete your recorded games and stats"))
    async def forget_me(interaction: discord.Interaction) -> None:
        """Ask the member to confirm deleting their stats."""
        view = discord.ui.View(timeout=None)
        view.add_item(ForgetButton(interaction.user.id, "yes"))
        view.add_item(ForgetButton(interaction.user.id, "no"))
        await interaction.response.send_message(
            t(
                "This removes your name from every game recorded on every server, for good. "
                "Your stats and leaderboard places go; the other players' records stay."
            ),
            view=view,
            ephemeral=True,
        )
