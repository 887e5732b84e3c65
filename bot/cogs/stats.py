"""`/leaderboard`, `/stats` and `forget-me`: the hall of shame and a way out of it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot._leaderboard import (
    BYS,
    MIN_GAMES_FOR_RATE,
    ORDERS,
    PERIODS,
    By,
    Order,
    Period,
    by_rating,
    computer_lines,
    member_stats,
    page_count,
    page_lines,
    ranked,
    rating_computer_lines,
    rating_page_lines,
    since,
)
from bot.answers import locale_of
from bot.i18n import t, tn
from bot.rating_store import RatingStore
from bot.ratings import TREND_GAMES, Change, trend
from bot.storage import PlayedGame, Storage
from bot.words import plain, rating_change_text, rating_text

# Source texts: translated with t() in messages and by the command translator in menus.
PERIOD_NAMES: dict[Period, str] = {"all": "all time", "30d": "last 30 days"}
ORDER_NAMES: dict[Order, str] = {
    "shithead": "times Shithead",
    "loss_rate": "loss rate",
    "games": "games played",
}
BY_NAMES: dict[By, str] = {"losses": "losses", "rating": "skill rating"}
# A page button of the ratings board carries this in place of an order.
RATING_PAGES = "rating"

if TYPE_CHECKING:
    from bot.client import ShitheadBot


@runtime_checkable
class Stored(Protocol):
    """The bot, which hands its storage to the buttons that outlive a restart."""

    def require_storage(self) -> Storage:
        """Return the open storage."""
        ...


def storage_of(interaction: discord.Interaction) -> Storage:
    """Return the storage of the bot that got the interaction."""
    client = interaction.client
    assert isinstance(client, Stored)
    return client.require_storage()


async def leaderboard_page(
    storage: Storage,
    guild: discord.Guild,
    period: Period,
    order: Order | None,
    page: int,
    locale: str,
) -> tuple[discord.Embed, discord.ui.View]:
    """Build one page of a server's leaderboard with its paging buttons (no order: ratings)."""
    if order is None:
        return await ratings_page(storage, guild, period, page, locale)
    rows = await storage.leaderboard(guild.id, since(period, datetime.now(UTC)))
    people = ranked(rows, order)
    pages = page_count(len(people))
    page = min(max(page, 0), pages - 1)
    title = t(
        "Hall of shame of {guild}: {order}, {period}",
        locale,
        guild=plain(guild.name),
        order=t(ORDER_NAMES[order], locale),
        period=t(PERIOD_NAMES[period], locale),
    )
    footer = t(
        "Page {page} of {pages}. A loss rate counts from {minimum} games.",
        locale,
        page=page + 1,
        pages=pages,
        minimum=MIN_GAMES_FOR_RATE,
    )
    embed = board(
        title, page_lines(people, page, locale), computer_lines(rows, locale), footer, locale
    )
    return embed, page_buttons(period, order, page, pages)


async def ratings_page(
    storage: Storage, guild: discord.Guild, period: Period, page: int, locale: str
) -> tuple[discord.Embed, discord.ui.View]:
    """Build one page of a server's skill ratings with its paging buttons."""
    rows = await RatingStore(storage).standings(guild.id, since(period, datetime.now(UTC)))
    people = by_rating(rows)
    pages = page_count(len(people))
    page = min(max(page, 0), pages - 1)
    title = t(
        "Skill ratings of {guild}: {period}",
        locale,
        guild=plain(guild.name),
        period=t(PERIOD_NAMES[period], locale),
    )
    footer = t(
        "Page {page} of {pages}. A rating is skill minus three times its uncertainty: "
        "it grows as the games show how good a player is.",
        locale,
        page=page + 1,
        pages=pages,
    )
    lines = rating_page_lines(people, page, locale)
    embed = board(title, lines, rating_computer_lines(rows, locale), footer, locale)
    return embed, page_buttons(period, None, page, pages)


def board(title: str, lines: list[str], bots: list[str], footer: str, locale: str) -> discord.Embed:
    """Lay out one page of a board: its lines, the computer players apart, the footer."""
    empty = [t("No games recorded yet.", locale)]
    embed = discord.Embed(title=title, description="\n".join(lines or empty))
    if bots:
        embed.add_field(
            name=t("Computer players", locale), value="\n".join(bots)[:1024], inline=False
        )
    embed.set_footer(text=footer)
    return embed


def page_buttons(period: Period, order: Order | None, page: int, pages: int) -> discord.ui.View:
    """The buttons to the previous and the next page."""
    view = discord.ui.View(timeout=None)
    view.add_item(PageButton(period, order, page - 1, "prev", disabled=page == 0))
    view.add_item(PageButton(period, order, page + 1, "next", disabled=page >= pages - 1))
    return view


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lb:(?P<period>all|30d):(?P<order>[a-z_]+):(?P<page>-?\d+):(?P<way>prev|next)",
):
    """A leaderboard page button; its custom_id says everything, so it outlives restarts."""

    def __init__(
        self, period: Period, order: Order | None, page: int, way: str, *, disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label="◀" if way == "prev" else "▶",
                custom_id=f"lb:{period}:{order or RATING_PAGES}:{page}:{way}",
                disabled=disabled,
            )
        )
        self.period, self.order, self.page = period, order, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PageButton:
        """Rebuild the button from its custom_id."""
        period, page, way = cast(Period, match["period"]), int(match["page"]), match["way"]
        if match["order"] == RATING_PAGES:
            return cls(period, None, page, way)
        order = match["order"] if match["order"] in ORDERS else "shithead"
        return cls(period, cast(Order, order), page, way)

    async def callback(self, interaction: discord.Interaction) -> None:
        """Show the page the button points at."""
        if interaction.guild is None:
            return
        embed, view = await leaderboard_page(
            storage_of(interaction),
            interaction.guild,
            self.period,
            self.order,
            self.page,
            locale_of(interaction),
        )
        await interaction.response.edit_message(embed=embed, view=view)


class ForgetButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"forget:(?P<user>\d+):(?P<answer>yes|no)",
):
    """Confirm or cancel forgetting a member's stats; only that member may press it."""

    def __init__(self, user_id: int, answer: str, locale: str) -> None:
        yes = answer == "yes"
        super().__init__(
            discord.ui.Button(
                label=t("Delete my stats", locale) if yes else t("Cancel", locale),
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
        return cls(int(match["user"]), match["answer"], locale_of(interaction))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Delete the member's stats, or leave them."""
        locale = locale_of(interaction)
        if interaction.user.id != self.user_id:
            await interaction.response.send_message(
                t("Only the member who asked can answer this.", locale), ephemeral=True
            )
            return
        if self.answer != "yes":
            await interaction.response.edit_message(
                content=t("Nothing was deleted.", locale), view=None
            )
            return
        seats = await storage_of(interaction).forget_member(self.user_id)
        await interaction.response.edit_message(
            content=t(
                "Done: your name was removed from {seats} recorded games on every server.",
                locale,
                seats=seats,
            ),
            view=None,
        )


class Records(commands.Cog):
    """`/leaderboard` and `/stats`, and the buttons of the leaderboard and `forget-me`."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.ratings = RatingStore(storage)

    @app_commands.command(
        name="leaderboard", description=locale_str("Show this server's hall of shame")
    )
    @app_commands.describe(
        period=locale_str("Which games count"),
        order=locale_str("What to rank by"),
        by=locale_str("Losses (the hall of shame) or skill ratings"),
    )
    @app_commands.choices(
        period=[app_commands.Choice(name=locale_str(PERIOD_NAMES[p]), value=p) for p in PERIODS],
        order=[app_commands.Choice(name=locale_str(ORDER_NAMES[o]), value=o) for o in ORDERS],
        by=[app_commands.Choice(name=locale_str(BY_NAMES[b]), value=b) for b in BYS],
    )
    @app_commands.guild_only()
    async def leaderboard(
        self,
        interaction: discord.Interaction,
        period: str = "all",
        order: str = "shithead",
        by: str = "losses",
    ) -> None:
        """Show the first page of the leaderboard: losses in an order, or ratings."""
        assert interaction.guild is not None
        embed, view = await leaderboard_page(
            self.storage,
            interaction.guild,
            cast(Period, period),
            None if by == "rating" else cast(Order, order),
            0,
            locale_of(interaction),
        )
        await interaction.response.send_message(embed=embed, view=view)

    @app_commands.command(
        name="stats", description=locale_str("Show a member's record on this server")
    )
    @app_commands.describe(member=locale_str("Whose record (yours when left out)"))
    @app_commands.guild_only()
    async def stats(
        self, interaction: discord.Interaction, member: discord.User | None = None
    ) -> None:
        """Show a member's games, losses, streaks, favourite preset and rating."""
        assert interaction.guild_id is not None
        who = member or interaction.user
        games = await self.storage.played_games(interaction.guild_id, who.id)
        ratings = await self.ratings.member_history(interaction.guild_id, who.id)
        await interaction.response.send_message(
            embed=stats_embed(who.display_name, games, locale_of(interaction), ratings)
        )


async def setup(bot: ShitheadBot) -> None:
    """Add the records commands and the buttons that outlive a restart."""
    bot.add_dynamic_items(PageButton, ForgetButton)
    await bot.add_cog(Records(bot.require_storage()))


def stats_embed(
    name: str, games: list[PlayedGame], locale: str, ratings: Sequence[Change] = ()
) -> discord.Embed:
    """Show a member's games, losses, loss rate, streaks, favourite preset and rating.

    `ratings` are the member's rating changes on the server, oldest first.
    """
    record = member_stats(games)
    embed = discord.Embed(title=t("{name}'s record", locale, name=plain(name)))
    if record.games == 0:
        embed.description = t("No games recorded on this server.", locale)
        return embed
    for field, value in (
        (t("Games", locale), str(record.games)),
        (t("Times Shithead", locale), str(record.losses)),
        (t("Loss rate", locale), f"{record.loss_rate or 0.0:.0%}"),
        (t("Best streak (games without losing)", locale), str(record.best_streak)),
        (t("Worst streak (losses in a row)", locale), str(record.worst_streak)),
        (t("Favourite preset", locale), record.favourite_preset or "–"),
    ):
        embed.add_field(name=field, value=value)
    if ratings:
        recent = min(len(ratings), TREND_GAMES)
        for field, value in (
            (t("Rating", locale), rating_text(ratings[-1].after, locale)),
            (t("Change in the last game", locale), rating_change_text(ratings[-1].delta, locale)),
            (
                tn("Trend over the last game", "Trend over the last {count} games", recent, locale),
                rating_change_text(trend(ratings), locale),
            ),
        ):
            embed.add_field(name=field, value=value)
    return embed


async def forget_me_prompt(interaction: discord.Interaction) -> None:
    """Ask the member to confirm deleting their stats."""
    locale = locale_of(interaction)
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetButton(interaction.user.id, "yes", locale))
    view.add_item(ForgetButton(interaction.user.id, "no", locale))
    await interaction.response.send_message(
        t(
            "This removes your name from every game recorded on every server, for good. "
            "Your stats and leaderboard places go; the other players' records stay.",
            locale,
        ),
        view=view,
        ephemeral=True,
    )
