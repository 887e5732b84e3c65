"""Two bot processes share PostgreSQL, one shard each: DM clicks reach the table's owner."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

from bench.postgres import Cluster
from bot.client import ShardedShitheadBot, ShitheadBot, Tuning, make_bot
from bot.database import shard_of
from bot.settings import get_settings
from sandbox.driver import Driver
from sandbox.testing import connected_bot, running_sandbox
from tables.model import Table
from tables.timers import Timing
from tests.bot.test_play_e2e import (
    FAST,
    JSON,
    ROOMY,
    latest_dm,
    open_table,
    play_out,
    table_of,
)

NAMES = {0: "ana", 1: "ben", 2: "cid"}


def bot_for(url: str, shards: str, timing: Timing = FAST) -> ShitheadBot:
    """One process's bot, running `shards` (as SHARD_IDS says them) of two."""
    settings = get_settings(database_url=url, discord_token=None, shard_count=2, shard_ids=shards)
    tuning = Tuning(
        timing=timing,
        writes_per_window=50,
        settle_seconds=0.01,
        table_interval=0.05,
        seeds=lambda: 4242,
        identify_gap=0.01,
    )
    return make_bot(settings, tuning)


@contextlib.asynccontextmanager
async def two_processes(postgres: Cluster) -> AsyncIterator[Processes]:
    """A sandbox, a guild on shard 1 with three members, and a bot per shard on one database."""
    url = (await postgres.new_database()).shown()
    async with running_sandbox(rate_limits=ROOMY) as sandbox:
        driver, world = sandbox.driver, sandbox.world
        await driver.create_guild("Second")  # the sandbox's guilds spread over both shards
        guild = next(g for g in world.guilds if shard_of(g, 2) == 1)
        general = next(c for c in world.channels.values() if c.guild_id == guild)
        for name in NAMES.values():
            await driver.create_user(name, guild=str(guild))
        dm_shard, owner_shard = bot_for(url, "0"), bot_for(url, "1")
        assert isinstance(owner_shard, ShardedShitheadBot)
        async with (
            connected_bot(sandbox, dm_shard) as first,
            connected_bot(sandbox, owner_shard) as owner,
        ):
            await driver.wait_ready(timeout=10)
            yield Processes(driver, guild, str(general.id), first, owner)


@dataclass
class Processes:
    driver: Driver
    guild: int
    channel: str
    first: ShitheadBot  # runs shard 0, where DMs come in
    owner: ShitheadBot  # runs shard 1, the guild's


async def test_a_game_whose_dm_clicks_land_on_the_other_process_finishes(
    postgres: Cluster,
) -> None:
    async with two_processes(postgres) as run:
        driver, first, owner = run.driver, run.first, run.owner
        table_id, lobby = await open_table(driver, "ana", run.channel, "ben", "cid")
        started = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
        assert started["status"] == "answered", started
        # The table is the owner's: shard 1 runs its guild. DMs come in on shard 0.
        assert first.tables.find(table_id) is None

        async def view(user: str, table: Table, seat: int) -> JSON:
            return await latest_dm(driver, user, table, seat)

        ended = await play_out(owner, driver, table_id, NAMES, view)
        assert ended.game is not None and ended.game.loser is not None
        assert first.tables.find(table_id) is None and not first.tables.ended
        await owner.presenter.pacer.idle()
        loser = NAMES[ended.game.loser]
        shown = next(m for m in driver.messages(run.channel) if m["id"] == lobby["id"])
        assert f"Shithead: {loser}" in json.dumps(shown["embeds"], ensure_ascii=False)
        rows = await owner.require_storage().leaderboard(run.guild)
        assert sorted((row.name, row.losses) for row in rows) == sorted(
            (name, int(name == loser)) for name in NAMES.values()
        )
        # Every click was answered by the owner: none fell through to "not available".
        for name in NAMES.values():
            assert not any("isn't available" in m.get("content", "") for m in driver.dms(name))
        assert table_of(owner, table_id).phase == "over"


async def test_concurrent_clicks_from_both_processes_apply_once_each(postgres: Cluster) -> None:
    async with two_processes(postgres) as run:
        driver, owner = run.driver, run.owner
        table_id, lobby = await open_table(driver, "ana", run.channel, "ben", "cid")
        await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
        table = table_of(owner, table_id)
        dms = {seat: await latest_dm(driver, name, table, seat) for seat, name in NAMES.items()}
        # 20 clicks at once: each member's Ready five times in their DM (shard 0's process
        # sends them on), and five "My hand" clicks on the table message (the owner's own).
        clicks = [
            driver.click(name, dms[seat]["id"], f"sh:{table_id}:{table.seats[seat].version}:ready")
            for _ in range(5)
            for seat, name in NAMES.items()
        ]
        clicks += [driver.click("ana", lobby["id"], f"sh:{table_id}:0:hand") for _ in range(5)]
        answers = await asyncio.gather(*clicks)
        assert [answer["status"] for answer in answers] == ["answered"] * 20
        # Each Ready was applied once; its repeats found the view already moved on.
        assert sorted(n.params["seat"] for n in table.log if n.code == "ready") == [0, 1, 2]
        assert table.phase == "play"
        stale = [a for a in answers[:15] if a["response"]["ephemeral"]]
        assert len(stale) == 12
        assert all(a["response"]["ephemeral"] for a in answers[15:])  # each its own hand
