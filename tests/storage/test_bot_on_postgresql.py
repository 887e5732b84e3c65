"""The real bot keeps its state in PostgreSQL: a game started by one process ends in the next."""

from __future__ import annotations

import json

import pytest

from bench.postgres import Cluster
from bot.client import ShitheadBot, Tuning
from bot.database import DatabaseUrl, StorageError
from bot.settings import get_settings
from bot.storage import Storage
from sandbox.testing import connected_bot, running_sandbox
from tests.bot.test_play_e2e import (
    FAST,
    JSON,
    ROOMY,
    latest_dm,
    open_table,
    play_out,
    ready_up,
    table_of,
)

NAMES = {0: "ana", 1: "ben", 2: "cid"}


def make_bot(url: DatabaseUrl) -> ShitheadBot:
    settings = get_settings(database_url=url.shown(), discord_token=None)
    tuning = Tuning(
        timing=FAST,
        writes_per_window=50,
        settle_seconds=0.01,
        table_interval=0.05,
        seeds=lambda: 4242,
    )
    return ShitheadBot(settings, tuning)


async def test_a_game_started_by_one_process_is_finished_by_the_next(postgres: Cluster) -> None:
    url = await postgres.new_database()
    async with running_sandbox(rate_limits=ROOMY) as sandbox:
        driver = sandbox.driver
        for name in NAMES.values():
            await driver.create_user(name)
        await driver.create_user("mod", moderator=True)
        async with connected_bot(sandbox, make_bot(url)) as first:
            settings = await driver.command(
                "mod", "general", "houserules set", {"option": "turn_seconds", "value": "120"}
            )
            assert settings["status"] == "answered", settings
            table_id, lobby = await open_table(driver, "ana", "general", "ben", "cid")
            await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
            table = table_of(first, table_id)
            for seat, user in NAMES.items():
                await ready_up(driver, user, await latest_dm(driver, user, table, seat))
            assert table.phase == "play"
            # A second bot on the same database is refused while this one runs.
            with pytest.raises(StorageError, match="Another bot process runs shard 0 on "):
                async with connected_bot(sandbox, make_bot(url)):
                    pass
            await first.presenter.pacer.idle()
            before = table.to_json()
        async with connected_bot(sandbox, make_bot(url)) as second:
            again = table_of(second, table_id)
            # The same table (the reminder may have come meanwhile).
            assert {**again.to_json(), "reminded": None} == {**before, "reminded": None}
            assert again.turn_seconds == 120

            async def view(user: str, table: object, seat: int) -> JSON:
                return await latest_dm(driver, user, again, seat)

            ended = await play_out(second, driver, table_id, NAMES, view)
            assert ended.game is not None and ended.game.loser is not None
            await second.presenter.pacer.idle()
            loser = NAMES[ended.game.loser]
            shown = next(m for m in driver.messages("general") if m["id"] == lobby["id"])
            assert f"Shithead: {loser}" in json.dumps(shown["embeds"], ensure_ascii=False)
    storage = await Storage.open(url)
    try:
        rows = await storage.leaderboard(driver.guild.id)
        assert sorted((row.name, row.games, row.losses) for row in rows) == sorted(
            (name, 1, int(name == loser)) for name in NAMES.values()
        )
        assert await storage.running_tables() == []
    finally:
        await storage.close()
