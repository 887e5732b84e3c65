"""Shards: which process runs which guilds, and holds them while it runs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from bench.postgres import Cluster
from bot.database import DatabaseUrl, StorageError, shard_of
from bot.pacing import Pacer
from bot.presenter import Presenter
from bot.settings import SettingsError, get_settings, parse_shard_ids
from bot.shard_refs import ShardMessageRefs
from bot.storage import MessageRef, Storage, StoredTable
from bot.table_store import StorageTableStore
from tables.service import TableService
from tests.bot.test_table_store import playing, soon
from tests.tables.conftest import TIMING, FakeClock, Recorder

PG = "postgresql://bot@db/shithead"


def guild_on(shard: int, count: int, n: int = 0) -> int:
    """A guild id (a snowflake) that Discord sends on `shard` of `count`."""
    return ((count * n + shard) << 22) | 0x2A


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no stray .env
    for key in ("DATABASE_URL", "DATABASE_PATH", "SHARD_COUNT", "SHARD_IDS"):
        monkeypatch.delenv(key, raising=False)


def test_a_guild_is_on_the_shard_of_its_snowflakes_timestamp() -> None:
    # A snowflake's top bits are its timestamp: 197038439483310086 >> 22 is 46977624770.
    assert [shard_of(197038439483310086, count) for count in (1, 3, 7)] == [0, 2, 6]
    assert [shard_of(guild_on(s, 4, n=7), 4) for s in range(4)] == [0, 1, 2, 3]
    assert shard_of(guild_on(3, 4), 1) == 0


@pytest.mark.parametrize(
    ("text", "ids"),
    [("0-3", (0, 1, 2, 3)), ("5", (5,)), ("0, 2,5-7", (0, 2, 5, 6, 7)), ("1-1,1", (1,))],
)
def test_shard_ids_are_numbers_and_ranges(text: str, ids: tuple[int, ...]) -> None:
    assert parse_shard_ids(text) == ids


def test_every_shard_is_run_unless_shard_ids_says_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert get_settings().shards == (0,)
    monkeypatch.setenv("SHARD_COUNT", "4")
    assert get_settings().shards == (0, 1, 2, 3)
    monkeypatch.setenv("SHARD_IDS", "2-3")
    monkeypatch.setenv("DATABASE_URL", PG)
    settings = get_settings()
    assert (settings.shards, settings.shard_count) == ((2, 3), 4)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"SHARD_IDS": "0-x"},
            "SHARD_IDS (in the environment) is '0-x', which is refused (must be shard "
            "numbers and ranges, such as 0-3 or 0,2,5-7): change it.",
        ),
        (
            {"SHARD_IDS": "3-1", "DATABASE_URL": PG},
            "SHARD_IDS (in the environment) is '3-1', which is refused (the range 3-1 goes "
            "down: write it low to high, as 1-3): change it.",
        ),
        (
            {"SHARD_COUNT": "4", "SHARD_IDS": "2-4", "DATABASE_URL": PG},
            "SHARD_IDS names shard 4, but the shards are 0 to 3 (SHARD_COUNT is 4): change one "
            "of them.",
        ),
        (
            {"SHARD_COUNT": "4", "SHARD_IDS": "0-1"},
            "SHARD_IDS names a part of the shards, so other processes run the rest, and "
            "processes cannot share an SQLite file: set DATABASE_URL to a PostgreSQL database, "
            "or leave SHARD_IDS unset.",
        ),
    ],
)
def test_bad_shard_settings_are_one_sentence(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(SettingsError) as refused:
        get_settings()
    assert str(refused.value) == message


async def test_a_process_restores_only_its_shards_tables(database_url: DatabaseUrl) -> None:
    storage = await Storage.open(database_url)
    try:
        for shard in range(4):
            guild = guild_on(shard, 4, n=shard + 1)
            await storage.save_table(StoredTable(f"run{shard}", guild, 1, json.dumps({})))
            await storage.save_table(StoredTable(f"end{shard}", guild, 2, json.dumps({})))
            await storage.finish_table(StoredTable(f"end{shard}", guild, 2, json.dumps({})), None)
        store = StorageTableStore(storage, shards=(1, 3), shard_count=4)
        assert [state.table_id for state in await store.load()] == ["run1", "run3"]
        assert [state.table_id for state in await store.load_ended()] == ["end1", "end3"]
        everything = StorageTableStore(storage)
        assert len(await everything.load()) == len(await everything.load_ended()) == 4
    finally:
        await storage.close()


@pytest.fixture
async def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def storage(database_url: DatabaseUrl) -> AsyncIterator[Storage]:
    opened = await Storage.open(database_url)
    yield opened
    await opened.close()


def service(
    storage: Storage,
    clock: FakeClock,
    shards: tuple[int, ...],
    count: int,
    recorder: Recorder | None = None,
) -> TableService:
    return TableService(
        store=StorageTableStore(storage, shards, count),
        sink=recorder or Recorder(),
        timing=TIMING,
        clock=clock,
        later=clock.later,
        seeds=lambda: 7,
    )


async def test_a_table_moves_with_its_timer_when_the_shard_set_changes(
    storage: Storage, clock: FakeClock
) -> None:
    # The tables of tests.bot.test_table_store are in guild 10, on shard 0 of 2.
    first = service(storage, clock, (0,), 2)
    table = await playing(first)
    await first.shutdown()
    assert table.deadline is not None and table.game is not None and table.game.turn is not None
    turn = table.game.turn
    other = service(storage, clock, (1,), 2)
    assert await other.restore() == []
    await other.shutdown()
    # The bot now runs one shard: its process owns the table and its turn timer.
    recorder = Recorder()
    single = service(storage, clock, (0,), 1, recorder)
    try:
        (again,) = await single.restore()
        assert again.deadline == table.deadline

        async def reminded() -> bool:
            return recorder.reminders == [turn]

        async def timed_out() -> bool:
            return again.seats[turn].timeouts == 1

        # The turn is 60 s and the reminder comes 30 s into it; then the turn times out.
        await clock.advance(table.deadline - 30 - clock.now + 0.5)
        await soon(reminded)
        await clock.advance(table.deadline - clock.now + 0.5)
        await soon(timed_out)
    finally:
        await single.shutdown()


async def test_processes_hold_their_own_shards_only(postgres: Cluster) -> None:
    url = await postgres.new_database()
    first, second, third = [await Storage.open(url) for _ in range(3)]
    try:
        await first.database.claim((0, 1), 4)
        await second.database.claim((2, 3), 4)
        with pytest.raises(StorageError, match=r"Another bot process runs shard 1 on postgresql"):
            await third.database.claim((1, 2), 4)
        with pytest.raises(StorageError, match=r"count 4 shards, and this one 8 \(SHARD_COUNT\)"):
            await third.database.claim((4,), 8)
        await first.close()
        # The first process is gone: its shards are free, and a refused claim held nothing.
        await third.database.claim((0, 1), 4)
    finally:
        await second.close()
        await third.close()


async def test_a_process_that_lost_its_shards_writes_nothing_more(postgres: Cluster) -> None:
    url = await postgres.new_database()
    first, second = await Storage.open(url), await Storage.open(url)
    try:
        await first.database.claim((0, 1), 2)
        await first.save_table(StoredTable("t", guild_on(1, 2), 1, json.dumps({"version": 1})))
        # The server loses the first process's held connection: its shards are free.
        async with second.database.transaction() as db:
            await db.fetch(
                # Waits (up to 10 s) until the backend is gone and its locks with it.
                "SELECT pg_terminate_backend(pid, 10000) FROM pg_locks WHERE locktype = 'advisory' "
                "AND objsubid = 2 AND granted AND pid <> pg_backend_pid()"
            )
        await second.database.claim((1,), 2)
        await second.save_table(StoredTable("t", guild_on(1, 2), 1, json.dumps({"version": 2})))
        with pytest.raises(StorageError, match="no longer holds shard 1 on postgresql"):
            await first.save_table(StoredTable("t", guild_on(1, 2), 1, json.dumps({"version": 3})))
        with pytest.raises(StorageError, match="no longer holds shard 1"):
            await first.finish_table(
                StoredTable("t", guild_on(1, 2), 1, json.dumps({"version": 3})), None
            )
        assert [row.text for row in await second.running_tables()] == ['{"version": 2}']
    finally:
        await first.close()
        await second.close()


async def test_a_process_is_shown_the_message_refs_of_its_shards_tables_only(
    database_url: DatabaseUrl,
) -> None:
    storage = await Storage.open(database_url)
    try:
        for shard in range(2):
            await storage.save_table(StoredTable(f"t{shard}", guild_on(shard, 2), 1, "{}"))
            await storage.save_message_ref(MessageRef(f"t{shard}", 0, 5, 6 + shard, False))
            await storage.save_message_ref(MessageRef(f"t{shard}", 7, 8, 10 + shard, False))
        await storage.save_message_ref(MessageRef("gone", 0, 5, 9, False))  # no table stored
        refs = ShardMessageRefs(storage, (1,), 2)
        # Shard 0's table is another process's: its references are neither shown nor
        # forgotten; those of a table no longer stored are shown, for the presenter to forget.
        shown = [(ref.table_id, ref.user_id) for ref in await refs.message_refs()]
        assert shown == [("gone", 0), ("t1", 0), ("t1", 7)]
        client = discord.Client(intents=discord.Intents.none())
        presenter = Presenter(client, Pacer(), store=refs)
        await presenter.load([])
        assert [ref.table_id for ref in await storage.message_refs()] == ["t0", "t0"]
    finally:
        await storage.close()


async def test_a_process_whose_held_connection_was_ended_still_closes(postgres: Cluster) -> None:
    url = await postgres.new_database()
    for _ in range(5):
        first, second = await Storage.open(url), await Storage.open(url)
        try:
            await first.database.claim((0, 1), 2)
            async with second.database.transaction() as db:
                await db.fetch(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' "
                    "AND objsubid = 2 AND granted AND pid <> pg_backend_pid()"
                )
            # Closed at once, before the client has read that the server ended it.
            await asyncio.wait_for(first.close(), 10)
        finally:
            await second.close()
