"""Leaderboard ranking, pages and member stats, without Discord."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, TypeVar

from bot.i18n import t
from bot.rating_store import RatingRow
from bot.storage import LeaderRow, PlayedGame
from bot.words import level_word, plain, rating_change_text, rating_text

Period = Literal["all", "30d"]
Order = Literal["shithead", "loss_rate", "games"]
# What a leaderboard ranks by: skill ratings, or losses (in one of the orders).
By = Literal["losses", "rating"]
PERIODS: tuple[Period, ...] = ("all", "30d")
ORDERS: tuple[Order, ...] = ("shithead", "loss_rate", "games")
BYS: tuple[By, ...] = ("losses", "rating")
Row = TypeVar("Row")
# A loss rate from fewer games says little; below this it is neither shown nor ranked.
MIN_GAMES_FOR_RATE = 5
PAGE_SIZE = 10


def since(period: Period, now: datetime) -> datetime | None:
    """Give the first moment a period covers (None for all time)."""
    return now - timedelta(days=30) if period == "30d" else None


def loss_rate(row: LeaderRow) -> float | None:
    """Give the share of games lost, once a player has played enough of them."""
    return row.losses / row.games if row.games >= MIN_GAMES_FOR_RATE else None


def ranked(rows: Sequence[LeaderRow], order: Order) -> list[LeaderRow]:
    """Order people for a leaderboard; by loss rate only those with enough games count."""
    people = [row for row in rows if not row.is_bot]
    if order == "loss_rate":
        rated = [row for row in people if loss_rate(row) is not None]
        return sorted(rated, key=lambda r: (-(loss_rate(r) or 0.0), -r.games, r.name.lower()))
    if order == "games":
        return sorted(people, key=lambda r: (-r.games, -r.losses, r.name.lower()))
    # Equal losses: the fewer games, the more shameful.
    return sorted(people, key=lambda r: (-r.losses, r.games, r.name.lower()))


def page_count(rows: int) -> int:
    """Count the pages rows fill (an empty leaderboard still has one)."""
    return max(1, -(-rows // PAGE_SIZE))


def _line(place: int, row: LeaderRow, locale: str) -> str:
    rate = loss_rate(row)
    return t(
        "{place}. **{name}**: Shithead ×{losses}, played {games}, loss rate {rate}",
        locale,
        place=place,
        name=plain(row.name or "?"),
        losses=row.losses,
        games=row.games,
        rate=f"{rate:.0%}" if rate is not None else "–",
    )


def page_lines(rows: Sequence[LeaderRow], page: int, locale: str) -> list[str]:
    """Write one page of ranked rows, numbered from the top of the whole list."""
    return _page(rows, page, _line, locale)


def _page(
    rows: Sequence[Row], page: int, line: Callable[[int, Row, str], str], locale: str
) -> list[str]:
    start = page * PAGE_SIZE
    shown = rows[start : start + PAGE_SIZE]
    return [line(start + i + 1, row, locale) for i, row in enumerate(shown)]


def computer_lines(rows: Sequence[LeaderRow], locale: str) -> list[str]:
    """Write the computer players' totals, apart from the people."""
    bots = sorted((r for r in rows if r.is_bot), key=lambda r: (-r.losses, -r.games, r.name))
    return [_line(i + 1, row, locale) for i, row in enumerate(bots)]


def by_rating(rows: Sequence[RatingRow]) -> list[RatingRow]:
    """Order people by the rating they are shown, best first; computers are left out."""
    people = [row for row in rows if not row.is_bot]
    return sorted(people, key=lambda r: (-r.rating.ordinal, -r.games, r.name.lower()))


def rated_name(row: RatingRow, locale: str) -> str:
    """Name a rated player: a member by their latest name, a computer by its level."""
    if row.is_bot:
        level = row.identity.partition(":")[2]
        return t("Computer ({level})", locale, level=level_word(level, locale))
    return plain(row.name)


def _rating_line(place: int, row: RatingRow, locale: str) -> str:
    return t(
        "{place}. **{name}**: rating {rating} ({change} in the last game), played {games}",
        locale,
        place=place,
        name=rated_name(row, locale),
        rating=rating_text(row.rating, locale),
        change=rating_change_text(row.last_change.delta, locale),
        games=row.games,
    )


def rating_page_lines(rows: Sequence[RatingRow], page: int, locale: str) -> list[str]:
    """Write one page of people ranked by rating, numbered from the top of the whole list."""
    return _page(rows, page, _rating_line, locale)


def rating_computer_lines(rows: Sequence[RatingRow], locale: str) -> list[str]:
    """Write the computer players' ratings, apart from the people."""
    bots = sorted((r for r in rows if r.is_bot), key=lambda r: (-r.rating.ordinal, r.identity))
    return [_rating_line(i + 1, row, locale) for i, row in enumerate(bots)]


@dataclass(frozen=True)
class MemberStats:
    """A member's record on one server."""

    games: int
    losses: int
    best_streak: int
    worst_streak: int
    favourite_preset: str | None

    @property
    def loss_rate(self) -> float | None:
        """Give the share of games lost, or None before any game."""
        return self.losses / self.games if self.games else None


def member_stats(games: Sequence[PlayedGame]) -> MemberStats:
    """Sum up a member's games, oldest first: streaks are games in a row without / with a loss."""
    best = worst = run_safe = run_lost = 0
    for game in games:
        if game.loser:
            run_lost, run_safe = run_lost + 1, 0
        else:
            run_safe, run_lost = run_safe + 1, 0
        best, worst = max(best, run_safe), max(worst, run_lost)
    presets = Counter(game.preset or "custom" for game in games)
    # most_common keeps first-seen order on ties; prefer the most recently played instead.
    favourite = max(presets, key=lambda p: (presets[p], _last_index(games, p)), default=None)
    return MemberStats(
        games=len(games),
        losses=sum(game.loser for game in games),
        best_streak=best,
        worst_streak=worst,
        favourite_preset=favourite,
    )


def _last_index(games: Sequence[PlayedGame], preset: str) -> int:
    return max(i for i, game in enumerate(games) if (game.preset or "custom") == preset)
