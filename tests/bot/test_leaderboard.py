"""Ranking, paging and member stats, from rows the storage gives."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot._leaderboard import (
    MIN_GAMES_FOR_RATE,
    PAGE_SIZE,
    computer_lines,
    loss_rate,
    member_stats,
    page_count,
    page_lines,
    ranked,
    since,
)
from bot.storage import LeaderRow, PlayedGame

NOW = datetime(2024, 6, 1, tzinfo=UTC)
ROWS = [
    LeaderRow(1, "ann", False, 10, 2),
    LeaderRow(2, "bo", False, 4, 4),  # too few games for a loss rate
    LeaderRow(3, "cy", False, 5, 3),
    LeaderRow(4, "di", False, 20, 3),
    LeaderRow(0, "Robo", True, 30, 12),
]


def test_a_period_starts_thirty_days_back_or_never() -> None:
    assert since("30d", NOW) == NOW - timedelta(days=30)
    assert since("all", NOW) is None


def test_ranking_leaves_computer_players_out() -> None:
    assert [r.name for r in ranked(ROWS, "shithead")] == ["bo", "cy", "di", "ann"]
    assert [r.name for r in ranked(ROWS, "games")] == ["di", "ann", "cy", "bo"]


def test_loss_rate_needs_the_minimum_of_games() -> None:
    assert MIN_GAMES_FOR_RATE == 5
    assert loss_rate(ROWS[1]) is None
    assert loss_rate(ROWS[2]) == 0.6
    assert [r.name for r in ranked(ROWS, "loss_rate")] == ["cy", "ann", "di"]


def test_lines_show_every_measure_and_computers_apart() -> None:
    lines = page_lines(ranked(ROWS, "shithead"), 0, "en")
    assert lines[0] == "1. **bo**: Shithead ×4, played 4, loss rate –"
    assert lines[1] == "2. **cy**: Shithead ×3, played 5, loss rate 60%"
    assert computer_lines(ROWS, "en") == ["1. **Robo**: Shithead ×12, played 30, loss rate 40%"]


def test_pages_number_on_from_the_first() -> None:
    many = [LeaderRow(i, f"p{i:02d}", False, 50 - i, 25 - i) for i in range(23)]
    rows = ranked(many, "shithead")
    assert page_count(0) == 1 and page_count(PAGE_SIZE) == 1 and page_count(23) == 3
    assert page_lines(rows, 1, "en")[0].startswith("11. **p10**")
    assert len(page_lines(rows, 2, "en")) == 3
    assert page_lines(rows, 3, "en") == []


def played(*losses: bool, preset: str | None = "classic") -> list[PlayedGame]:
    return [PlayedGame(NOW, preset, lost, 2 if lost else 1) for lost in losses]


def test_member_stats_streaks_and_favourite_preset() -> None:
    games = [
        *played(False, False, True, True, True, preset="dutch"),
        *played(False, False, False, preset=None),
        *played(True, preset="classic"),
    ]
    stats = member_stats(games)
    assert (stats.games, stats.losses, stats.best_streak, stats.worst_streak) == (9, 4, 3, 3)
    assert stats.loss_rate == 4 / 9
    assert stats.favourite_preset == "dutch"


def test_a_favourite_preset_tie_goes_to_the_latest_played() -> None:
    stats = member_stats([*played(True, preset="dutch"), *played(False, preset="karma")])
    assert stats.favourite_preset == "karma"
    assert (stats.best_streak, stats.worst_streak) == (1, 1)


def test_no_games_no_stats() -> None:
    stats = member_stats([])
    assert (stats.games, stats.loss_rate, stats.favourite_preset) == (0, None, None)
