"""Ratings through the sandbox: a game's end shows the changes; an old database is rated."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from bot.client import ShitheadBot
from bot.rating_store import RatingStore
from bot.storage import GameRecord, PlayerRecord, Storage, load_migrations
from bot.words import rating_line
from sandbox.driver import Driver
from sandbox.server import Sandbox
from sandbox.testing import connected_bot
from tests.bot.test_play_e2e import bot, deal_for_two, driver, field, make_bot, sandbox
from tests.bot.test_rating_store import record_before_levels

__all__ = ["bot", "driver", "sandbox"]


async def test_the_end_of_a_game_shows_each_players_rating_change(
    bot: ShitheadBot, driver: Driver
) -> None:
    _, table = await deal_for_two(bot, driver, "classic")
    left = await driver.command("ben", "general", "shithead leave")
    assert left["status"] == "answered"
    assert table.phase == "over"
    changes = bot.presenter.rating_changes[table.id]
    expected = f"{rating_line('ana', changes[0], 'en')}\n{rating_line('ben', changes[1], 'en')}"
    assert changes[0].delta > 0 > changes[1].delta

    def ended() -> str | None:
        for message in driver.messages("general"):
            if "Ratings" in json.dumps(message["embeds"]):
                return field(message, "Ratings")
        return None

    assert await driver.wait_until(ended, timeout=10) == expected
    storage = bot.require_storage()
    guild = table.guild_id
    assert [row.games for row in await RatingStore(storage).standings(guild)] == [1, 1]


async def test_games_recorded_before_ratings_are_rated_when_the_bot_starts(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    old = await Storage.open(tmp_path / "bot.sqlite3", migrations=load_migrations()[:7])
    moment = datetime(2024, 5, 1, tzinfo=UTC)
    for game in range(3):
        loser = game % 2
        players = [
            PlayerRecord(10 + seat, f"p{seat}", False, None if seat == loser else 1, seat == loser)
            for seat in range(2)
        ]
        record = GameRecord(1, 2, "classic", {}, moment, moment, 9, "out", players)
        await record_before_levels(old, record)
    await old.close()

    async with connected_bot(sandbox, make_bot(tmp_path)) as client:
        ratings = RatingStore(client.require_storage())
        found = await ratings.recompute(write=False)
        assert (found.games, found.seats, found.agrees) == (3, 6, True)
        assert {row.games for row in await ratings.standings(1)} == {3}
