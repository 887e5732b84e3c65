"""A bot on PostgreSQL killed mid-game: the next process is not locked out, and goes on."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from bench.postgres import Cluster
from bot.storage import Storage
from sandbox.driver import Driver
from sandbox.testing import running_sandbox
from tables.model import Table
from tests.bot.test_play_e2e import JSON, ROOMY, act, footer, open_table
from tests.bot.test_restart_e2e import NAMES, QUICK_SETTLE, bot_process, mark, tail


async def stored(storage: Storage, table_id: str) -> Table | None:
    """Read a running table as the bot last committed it."""
    for row in await storage.running_tables():
        if row.table_id == table_id:
            return Table.from_json(json.loads(row.text))
    return None


async def move(driver: Driver, storage: Storage, table_id: str) -> bool:
    """Make the next move from the DM of a player to act; False once the game is over."""
    table = await stored(storage, table_id)
    if table is None:
        return False
    assert table.game is not None
    seat = table.game.to_act()[0]
    name = NAMES[seat]
    message: JSON = await driver.wait_until(
        lambda: next((m for m in driver.dms(name) if footer(m) == mark(table, seat)), None),
        timeout=10,
    )
    answer = await act(driver, name, message)
    assert answer["status"] == "answered", answer
    return True


async def test_a_killed_bot_is_replaced_and_its_game_ends(
    postgres: Cluster, tmp_path: Path
) -> None:
    url, log = await postgres.new_database(), tmp_path / "bot.log"
    storage = await Storage.open(url)  # the test's own look at the database
    try:
        async with running_sandbox(rate_limits=ROOMY) as sandbox:
            driver = sandbox.driver
            for name in NAMES.values():
                await driver.create_user(name)
            async with bot_process(sandbox, url.shown(), QUICK_SETTLE, log) as first:
                table_id, lobby = await open_table(driver, "ana", "general", "ben", "cid")
                started = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
                assert started["status"] == "answered", tail(log)
                for _ in range(len(NAMES) + 4):  # everyone gets ready, then four moves
                    assert await move(driver, storage, table_id)
                os.kill(first.pid, signal.SIGKILL)
                await first.wait()
            before = await stored(storage, table_id)
            assert before is not None and before.phase == "play"
            await driver.wait_until(lambda: not driver.state()["bot"]["connected"])
            # The dead process's hold on its shard went with its connection.
            async with bot_process(sandbox, url.shown(), QUICK_SETTLE, log):
                moves = 0
                while await move(driver, storage, table_id):
                    moves += 1
                    assert moves < 800, "the game did not end"
        games = await storage.rows("games")
        assert len(games) == 1, tail(log)
        assert sorted(r.name for r in await storage.leaderboard(driver.guild.id)) == sorted(
            NAMES.values()
        )
        assert await storage.running_tables() == []
    finally:
        await storage.close()
