"""A turn timer follows its table's shard to the process that takes it, and fires in one only.

Process A runs shards {0,1} of two and has a game in a server on shard 1 whose turn timer
is pending; nobody moves. Then shard 1 goes to process B: once because A is restarted with
SHARD_IDS=0, once because A's hold on its shards is lost while A still runs (its timer
still armed in its memory). Either way the timer fires in B, which plays for the idle
member, and the timeout is applied once: A never loaded the table again, or its write was
refused (it no longer holds the shard) and undone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from bench.postgres import Cluster
from bot.client import ShitheadBot
from bot.database import shard_of
from bot.storage import Storage
from sandbox.driver import Driver
from sandbox.server import Sandbox
from sandbox.testing import connected_bot, running_sandbox
from tables.model import Table
from tables.timers import Timing
from tests.bot.test_play_e2e import ROOMY, latest_dm, open_table, ready_up, table_of
from tests.storage.test_kill_on_postgresql import stored
from tests.storage.test_two_processes import NAMES, bot_for

# Turns long enough for the shard to change hands before the first one runs out (no reminder).
TURN = 8.0
SLOW_TURNS = Timing(computer_delay=0.01, setup_seconds=60, turn_seconds=TURN, remind_seconds=TURN)


@dataclass
class World:
    sandbox: Sandbox
    url: str
    channel: str  # #general of a server on shard 1
    storage: Storage  # the test's own look at the database

    @property
    def driver(self) -> Driver:
        return self.sandbox.driver

    def bot(self, shards: str) -> ShitheadBot:
        """A bot process running `shards` of two, with turns of TURN seconds."""
        return bot_for(self.url, shards, SLOW_TURNS)


@contextlib.asynccontextmanager
async def world(postgres: Cluster) -> AsyncIterator[World]:
    """A sandbox with a server on shard 1 and its three members, and an empty database."""
    url = await postgres.new_database()
    async with running_sandbox(rate_limits=ROOMY) as sandbox:
        driver = sandbox.driver
        await driver.create_guild("Second")
        guild = next(g for g in driver.world.guilds if shard_of(g, 2) == 1)
        general = next(c for c in driver.world.channels.values() if c.guild_id == guild)
        for name in NAMES.values():
            await driver.create_user(name, guild=str(guild))
        storage = await Storage.open(url)
        try:
            yield World(sandbox, url.shown(), str(general.id), storage)
        finally:
            await storage.close()


async def pending_turn(run: World, bot: ShitheadBot) -> tuple[str, int]:
    """Open, deal and get everyone ready; return the table and the seat whose turn runs."""
    driver = run.driver
    table_id, lobby = await open_table(driver, "ana", run.channel, "ben", "cid")
    started = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    assert started["status"] == "answered", started
    table = table_of(bot, table_id)
    for seat, user in NAMES.items():
        await ready_up(driver, user, await latest_dm(driver, user, table, seat))
    assert table.phase == "play" and table.game is not None and table.game.turn is not None
    await bot.presenter.pacer.idle()
    return table_id, table.game.turn


def timeouts(table: Table) -> list[int]:
    """List the seats whose turn ran out, in the table's log."""
    return [note.params["seat"] for note in table.log if note.code == "timed_out"]


async def handled_once(run: World, owner: ShitheadBot, table_id: str, turn: int) -> Table:
    """Wait for the turn to run out in `owner`; check it was handled there, once."""
    table = table_of(owner, table_id)
    await run.driver.wait_until(lambda: timeouts(table), timeout=TURN + 15)
    assert timeouts(table) == [turn] and table.seats[turn].timeouts == 1
    assert table.game is not None and table.game.turn != turn  # the bot played for them
    await owner.presenter.pacer.idle()
    # Stored as it is in memory (the write follows the change).
    async with asyncio.timeout(10):
        while (saved := await stored(run.storage, table_id)) is None or (
            saved.version != table.version
        ):
            await asyncio.sleep(0.05)
    assert timeouts(saved) == [turn]
    # The table message shows it (a redraw waits a moment for more changes, so wait for it).
    await run.driver.wait_until(
        lambda: any(
            "ran out of time" in str(m["embeds"])
            for m in run.driver.messages(run.channel)
            if m["components"]
        ),
        timeout=10,
    )
    return table


async def test_the_timer_fires_in_the_process_that_took_the_shard_on_a_restart(
    postgres: Cluster,
) -> None:
    async with world(postgres) as run:
        async with connected_bot(run.sandbox, run.bot("0-1")) as a:
            table_id, turn = await pending_turn(run, a)
        before = await stored(run.storage, table_id)
        assert before is not None and timeouts(before) == []
        # A comes back with shard 0 only; B runs shard 1, the table's.
        async with (
            connected_bot(run.sandbox, run.bot("0")) as again,
            connected_bot(run.sandbox, run.bot("1")) as b,
        ):
            assert again.tables.find(table_id) is None
            assert table_of(b, table_id).deadline == before.deadline
            await handled_once(run, b, table_id, turn)
            assert again.tables.find(table_id) is None


async def test_a_process_that_lost_its_shards_does_not_fire_the_timer_too(
    postgres: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    async with world(postgres) as run, connected_bot(run.sandbox, run.bot("0-1")) as a:
        table_id, turn = await pending_turn(run, a)
        stale = table_of(a, table_id)
        # The server loses A's held connection: A runs on, its timer armed, its shards free.
        held = (
            "FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted "
            "AND pid <> pg_backend_pid()"
        )
        await run.storage.database.fetch(f"SELECT pg_terminate_backend(pid) {held}")
        async with asyncio.timeout(10):  # the server ends A's backend a moment later
            while await run.storage.database.fetch(f"SELECT 1 {held}"):
                await asyncio.sleep(0.05)
        with caplog.at_level(logging.ERROR, logger="tables.service"):
            async with connected_bot(run.sandbox, run.bot("1")) as b:
                table = await handled_once(run, b, table_id, turn)
                # A's timer fired as well, and its write was refused and undone.
                await run.driver.wait_until(
                    lambda: any(
                        f"table {table_id} could not be saved" in r.getMessage()
                        for r in caplog.records
                    ),
                    timeout=5,
                )
                assert timeouts(stale) == [] and stale.seats[turn].timeouts == 0
                assert any(
                    "no longer holds shard 1" in str(r.exc_info[1])
                    for r in caplog.records
                    if r.exc_info
                )
                assert timeouts(table) == [turn]
