"""Ratings in words: the end of a game, the leaderboard by rating and /stats."""

from __future__ import annotations

from datetime import UTC, datetime

import discord
import pytest

from bot import ratings
from bot._leaderboard import by_rating, rating_computer_lines, rating_page_lines
from bot.cogs.stats import stats_embed
from bot.i18n import LANGUAGES
from bot.rating_store import RatingRow
from bot.ratings import NEWCOMER, Change, Rating, replay, trend
from bot.rendering import render_table
from bot.storage import PlayedGame
from bot.words import decimal_text, rating_change_text, rating_line, rating_text
from engine.actions import Resign
from engine.game import Game
from engine.rules import make_rules
from tables.model import Seat, Table
from tables.outcome import snapshot

NOW = datetime(2024, 6, 1, tzinfo=UTC)
# Shown as 0.0 → 2.0 and 0.0 → -1.5.
UP = Change(NEWCOMER, Rating(26.0, 8.0))
DOWN = Change(NEWCOMER, Rating(25.5, 9.0))


def over_table() -> Table:
    """Ana, Ben and a computer player; Ben leaves, so the game is over."""
    rules = make_rules("classic")
    seats = [Seat(1, "Ana"), Seat(2, "Ben"), Seat(0, "", computer="basic")]
    table = Table("abc", 1, 2, 1, "classic", rules, 5, 90, 3, seats)
    table.game = Game.deal(rules, 3, seed=5)
    table.game.apply(Resign(1))
    return table


def fields(embed: discord.Embed) -> dict[str, str]:
    return {str(f.name): str(f.value) for f in embed.fields}


@pytest.mark.parametrize(
    ("delta", "locale", "text"),
    [(1.26, "en", "+1.3"), (-0.44, "en", "-0.4"), (-0.04, "en", "±0.0"), (2.5, "de", "+2,5")],
)
def test_a_change_is_signed_to_one_decimal_the_readers_way(
    delta: float, locale: str, text: str
) -> None:
    assert rating_change_text(delta, locale) == text


def test_the_shown_rating_is_the_conservative_one() -> None:
    assert rating_text(Rating(30.0, 2.0), "en") == "24.0"
    assert rating_text(NEWCOMER, "pl") == "0,0"
    assert rating_line("Ana", UP, "en") == "Ana: 0.0 → 2.0 (+2.0)"
    assert rating_line("Ana", DOWN, "nl") == "Ana: 0,0 → -1,5 (-1,5)"


def test_the_end_of_a_game_shows_each_players_rating_change() -> None:
    shown = snapshot(over_table())
    assert shown.phase == "over"
    changes = (UP, DOWN, Change(NEWCOMER, NEWCOMER))
    embed = render_table(shown, "en", ratings=changes).embeds[0]
    assert fields(embed)["Ratings"] == (
        "Ana: 0.0 → 2.0 (+2.0)\nBen: 0.0 → -1.5 (-1.5)\nComputer 1 (basic): 0.0 → 0.0 (±0.0)"
    )
    german = render_table(shown, "de", ratings=changes).embeds[0]
    assert fields(german)["Wertungen"].startswith("Ana: 0,0 → 2,0 (+2,0)\n")
    # Before the game is rated, the end shows no ratings.
    assert "Ratings" not in fields(render_table(shown, "en").embeds[0])


def row(identity: str, name: str, rating: Rating, games: int, *, bot: bool = False) -> RatingRow:
    return RatingRow(identity, name, bot, games, rating, Change(NEWCOMER, rating), NOW)


ROWS = [
    row("member:1", "ann", Rating(30.0, 3.0), 12),  # 21.0
    row("member:2", "bo", Rating(27.0, 6.0), 3),  # 9.0
    row("member:3", "cy", Rating(33.0, 4.0), 20),  # 21.0, more games
    row("computer:expert", "Computer 2 (expert)", Rating(29.0, 2.0), 40, bot=True),
    row("computer:basic", "Computer 1 (basic)", Rating(24.0, 2.0), 40, bot=True),
]


def test_the_rating_board_ranks_people_by_shown_rating_and_computers_by_level() -> None:
    people = by_rating(ROWS)
    assert [r.name for r in people] == ["cy", "ann", "bo"]
    assert rating_page_lines(people, 0, "en") == [
        "1. **cy**: rating 21.0 (+21.0 in the last game), played 20",
        "2. **ann**: rating 21.0 (+21.0 in the last game), played 12",
        "3. **bo**: rating 9.0 (+9.0 in the last game), played 3",
    ]
    assert rating_page_lines(people, 1, "en") == []
    assert rating_computer_lines(ROWS, "de") == [
        "1. **Computer (Experte)**: Wertung 23,0 (+23,0 im letzten Spiel), gespielt 40",
        "2. **Computer (einfach)**: Wertung 18,0 (+18,0 im letzten Spiel), gespielt 40",
    ]


def test_stats_show_the_rating_its_last_change_and_the_trend() -> None:
    games = [PlayedGame(NOW, "classic", False, 1)] * 12
    history = [
        Change(Rating(25.0, 8.0 - i / 4), Rating(25.0, 8.0 - (i + 1) / 4)) for i in range(12)
    ]
    embed = stats_embed("ann", games, "en", history)
    shown = fields(embed)
    # sigma 5.0 at the end; each game lowers it by 0.25, the shown rating rising by 0.75.
    assert shown["Rating"] == "10.0"
    assert shown["Change in the last game"] == "+0.8"
    assert shown["Trend over the last 10 games"] == "+7.5"
    one = fields(stats_embed("ann", games[:1], "pl", history[:1]))
    assert one["Trend w ostatniej grze"] == "+0,8"
    assert "Rating" not in fields(stats_embed("ann", games, "en"))


def test_the_readme_example() -> None:
    games = [
        [
            ratings.Seat("Ana", 1),
            ratings.Seat("Ben", 4),
            ratings.Seat("Cleo", 2),
            ratings.Seat("expert", 3),
        ],
        [
            ratings.Seat("Ana", 2),
            ratings.Seat("Ben", 3),
            ratings.Seat("Cleo", 1),
            ratings.Seat("expert", 4),
        ],
        [
            ratings.Seat("Ana", 1),
            ratings.Seat("Ben", 4),
            ratings.Seat("Cleo", 3),
            ratings.Seat("expert", 2),
        ],
        [
            ratings.Seat("Ana", 1),
            ratings.Seat("Ben", 2),
            ratings.Seat("Cleo", 3),
            ratings.Seat("expert", 4),
        ],
    ]
    changes = replay(games)
    names = ["Ana", "Ben", "Cleo", "Computer 1 (expert)"]
    assert [rating_line(n, c, "en") for n, c in zip(names, changes[-1], strict=True)] == [
        "Ana: 7.5 → 10.1 (+2.6)",
        "Ben: -4.8 → -2.5 (+2.3)",
        "Cleo: 4.4 → 4.1 (-0.3)",
        "Computer 1 (expert): -0.7 → -3.3 (-2.6)",
    ]
    ana = [game[0] for game in changes]
    assert rating_change_text(trend(ana), "en") == "+10.1"
    rows = [
        RatingRow(
            "computer:expert" if seat.identity == "expert" else f"member:{seat.rank}",
            seat.identity,
            seat.identity == "expert",
            4,
            change.after,
            change,
            NOW,
        )
        for seat, change in zip(games[-1], changes[-1], strict=True)
    ]
    assert [line.replace("**", "") for line in rating_page_lines(by_rating(rows), 0, "en")] == [
        "1. Ana: rating 10.1 (+2.6 in the last game), played 4",
        "2. Cleo: rating 4.1 (-0.3 in the last game), played 4",
        "3. Ben: rating -2.5 (+2.3 in the last game), played 4",
    ]
    assert rating_computer_lines(rows, "en") == [
        "1. **Computer (expert)**: rating -3.3 (-2.6 in the last game), played 4"
    ]


@pytest.mark.parametrize("locale", LANGUAGES)
def test_numbers_are_written_as_babels_format_decimal_writes_them(locale: str) -> None:
    # Babel's locale data is not loaded by the bot (5 MB); its formatting is the reference.
    from babel.numbers import format_decimal

    values = [0.0, -0.0, 0.04, -0.04, 0.05, -0.05, 0.15, 0.25, 2.35, 2.45, -2.45, 12.34]
    values += [1234.56, -987.65, 99.95, -99.95, 1e-7, 31.0499999, 31.05]
    values += [n / 100 for n in range(-1000, 1000, 7)]
    for value in values:
        assert decimal_text(value, locale) == format_decimal(value, "0.0", locale=locale)
        if round(value, 1) != 0:
            signed = format_decimal(value, "+0.0;-0.0", locale=locale)
            assert decimal_text(value, locale, signed=True) == signed
