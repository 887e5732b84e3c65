"""Storage keeps running tables, finished games and server settings, one transaction each.

The contract holds for both dialects: every test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import asyncpg  # type: ignore[import-untyped]
import pytest

from bot.database import DatabaseUrl
from bot.guild_settings import GuildSettings, SettingError, with_value
from bot.storage import (
    GameRecord,
    LeaderRow,
    MessageRef,
    PlayerRecord,
    RunningRow,
    Storage,
    StoredTable,
    _now,
    _timestamp,
)

NOON = datetime(2024, 5, 1, 12, tzinfo=UTC)


def test_a_save_is_stamped_as_every_other_moment_is_written() -> None:
    before = datetime.now(UTC)
    stamp = _now()
    moment = datetime.fromisoformat(stamp)
    assert before <= moment <= datetime.now(UTC)
    assert stamp == _timestamp(moment)
    assert stamp.endswith("+00:00") and len(stamp) == len("2024-05-01T12:00:00.000000+00:00")


def game(
    *players: PlayerRecord, guild: int = 1, ended: datetime = NOON, preset: str | None = "classic"
) -> GameRecord:
    return GameRecord(
        guild_id=guild,
        channel_id=2,
        preset=preset,
        rules={},
        started_at=ended - timedelta(minutes=10),
        ended_at=ended,
        moves=30,
        end_reason="finished",
        players=list(players),
    )


def person(user_id: int, name: str, place: int | None, loser: bool = False) -> PlayerRecord:
    return PlayerRecord(user_id, name, False, place, loser)


# What each dialect raises for a row its schema refuses.
REFUSED_ROW = (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)


@pytest.fixture
async def storage(database_url: DatabaseUrl) -> AsyncIterator[Storage]:
    opened = await Storage.open(database_url)
    yield opened
    await opened.close()


async def test_an_in_memory_sqlite_database_works() -> None:
    storage = await Storage.open(":memory:")
    try:
        await storage.save_table(StoredTable("t", 1, 2, json.dumps({})))
        assert [row.table_id for row in await storage.running_tables()] == ["t"]
    finally:
        await storage.close()


async def test_a_table_is_saved_replaced_and_deleted(storage: Storage) -> None:
    await storage.save_table(StoredTable("b", 1, 2, json.dumps({"version": 1})))
    await storage.save_table(StoredTable("a", 1, 3, json.dumps({"version": 1})))
    await storage.save_table(StoredTable("b", 1, 2, json.dumps({"version": 2, "hands": [["2H"]]})))
    assert await storage.running_tables() == [
        RunningRow("a", 1, 3, '{"version": 1}'),
        RunningRow("b", 1, 2, '{"version": 2, "hands": [["2H"]]}'),
    ]
    await storage.delete_table("a")
    assert [t.table_id for t in await storage.running_tables()] == ["b"]


async def test_finishing_records_the_game_and_keeps_the_final_state_a_day(
    storage: Storage,
) -> None:
    await storage.save_table(StoredTable("t", 1, 2, json.dumps({})))
    final = StoredTable("t", 1, 2, json.dumps({"over": True}))
    await storage.finish_table(final, game(person(1, "ann", 1), person(2, "bo", 2, loser=True)))
    assert await storage.running_tables() == []
    now = datetime.now(UTC)
    assert await storage.ended_tables(now - timedelta(days=1)) == [
        RunningRow("t", 1, 2, '{"over": true}')
    ]
    assert await storage.ended_tables(now + timedelta(seconds=1)) == []
    assert await storage.ended_tables(now - timedelta(days=1)) == []  # forgotten for good
    assert sorted(await storage.leaderboard(1), key=lambda r: r.user_id) == [
        LeaderRow(1, "ann", False, 1, 0),
        LeaderRow(2, "bo", False, 1, 1),
    ]


async def test_a_failed_finish_keeps_the_running_table(storage: Storage) -> None:
    await storage.save_table(StoredTable("t", 1, 2, json.dumps({"version": 7})))
    bad = dataclasses.replace(game(person(1, "ann", 1)), moves=-1)
    with pytest.raises(REFUSED_ROW, match=r"(?i)check"):
        await storage.finish_table(StoredTable("t", 1, 2, json.dumps({"version": 8})), bad)
    assert await storage.running_tables() == [RunningRow("t", 1, 2, '{"version": 7}')]
    assert await storage.ended_tables(datetime.now(UTC) - timedelta(days=1)) == []
    assert await storage.leaderboard(1) == []


async def test_concurrent_writes_do_not_interleave(storage: Storage) -> None:
    bad = dataclasses.replace(game(person(1, "ann", 1)), moves=-1)
    results = await asyncio.gather(
        *(storage.save_table(StoredTable(f"t{i}", 1, 2, json.dumps({"i": i}))) for i in range(20)),
        storage.finish_table(StoredTable("t3", 1, 2, json.dumps({"i": 3})), bad),
        return_exceptions=True,
    )
    assert sum(isinstance(r, Exception) for r in results) == 1
    assert len(await storage.running_tables()) == 20


async def test_guild_settings_default_then_round_trip(storage: Storage) -> None:
    assert await storage.guild_settings(5) == GuildSettings()
    chosen = GuildSettings(
        preset="schwechat",
        overrides={"decks": 3, "powers": {"7": None}},
        turn_seconds=30,
        idle_turns=2,
        host_may_pick_preset=False,
    )
    await storage.update_guild_settings(5, lambda _: chosen)
    await storage.update_guild_settings(6, lambda _: GuildSettings(preset="dutch"))
    assert await storage.guild_settings(5) == chosen
    assert (await storage.guild_settings(6)).preset == "dutch"


async def test_two_changes_at_once_both_land(storage: Storage) -> None:
    await asyncio.gather(
        storage.update_guild_settings(7, lambda s: with_value(s, "runs", "yes")),
        storage.update_guild_settings(7, lambda s: with_value(s, "idle_turns", "5")),
    )
    settings = await storage.guild_settings(7)
    assert settings.overrides == {"runs": True} and settings.idle_turns == 5


async def test_a_refused_change_saves_nothing(storage: Storage) -> None:
    await storage.update_guild_settings(8, lambda s: with_value(s, "decks", "2"))
    with pytest.raises(SettingError):
        await storage.update_guild_settings(8, lambda s: with_value(s, "decks", "many"))
    assert (await storage.guild_settings(8)).overrides == {"decks": 2}


async def test_the_leaderboard_counts_one_server_and_a_period(storage: Storage) -> None:
    await storage.record_game(
        game(person(1, "old name", 1), person(2, "bo", 2, loser=True), ended=NOON)
    )
    later = NOON + timedelta(days=40)
    await storage.record_game(
        game(person(1, "ann", 2, loser=True), person(2, "bo", 1), ended=later)
    )
    await storage.record_game(game(person(1, "ann", 2, loser=True), guild=9, ended=later))
    rows = {r.user_id: r for r in await storage.leaderboard(1)}
    assert rows[1] == LeaderRow(1, "ann", False, 2, 1)  # named as in the latest game
    assert rows[2] == LeaderRow(2, "bo", False, 2, 1)
    recent = await storage.leaderboard(1, since=later - timedelta(days=30))
    assert {(r.user_id, r.games, r.losses) for r in recent} == {(1, 1, 1), (2, 1, 0)}


async def test_computer_players_are_told_apart_by_name(storage: Storage) -> None:
    computer = [PlayerRecord(0, "Robo 1", True, 1, False), PlayerRecord(0, "Robo 2", True, 3, True)]
    await storage.record_game(game(*computer, person(1, "ann", 2)))
    rows = await storage.leaderboard(1)
    assert sorted((r.name, r.is_bot, r.losses) for r in rows) == [
        ("Robo 1", True, 0),
        ("Robo 2", True, 1),
        ("ann", False, 0),
    ]


async def test_played_games_are_one_members_games_oldest_first(storage: Storage) -> None:
    await storage.record_game(game(person(1, "ann", 1), ended=NOON + timedelta(hours=1)))
    await storage.record_game(game(person(1, "ann", 2, loser=True), ended=NOON, preset=None))
    await storage.record_game(game(person(2, "bo", 1)))
    played = await storage.played_games(1, 1)
    assert [(g.ended_at, g.preset, g.loser, g.place) for g in played] == [
        (NOON, None, True, 2),
        (NOON + timedelta(hours=1), "classic", False, 1),
    ]


async def test_forgetting_a_member_removes_only_them(storage: Storage) -> None:
    await storage.record_game(game(person(1, "ann", 1), person(2, "bo", 2, loser=True)))
    await storage.record_game(game(person(2, "bo", 1), guild=7))
    assert await storage.forget_member(2) == 2
    assert await storage.played_games(1, 2) == []
    assert await storage.played_games(7, 2) == []
    assert [r.name for r in await storage.leaderboard(1)] == ["ann"]
    assert await storage.forget_member(2) == 0


WRITER = """
import asyncio, json, sys
from bot.database import DatabaseUrl
from bot.storage import Storage, StoredTable

async def main() -> None:
    storage = await Storage.open(DatabaseUrl.parse(sys.argv[1]))
    version = 0
    while True:
        version += 1
        state = {"version": version, "hands": [[version] * 13 for _ in range(6)]}
        await storage.save_table(StoredTable("t", 1, 2, json.dumps(state)))
        print(version, flush=True)

asyncio.run(main())
"""


async def test_a_killed_writer_leaves_the_last_whole_state(database_url: DatabaseUrl) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, database_url.shown()], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    committed = 0
    while committed < 25:
        committed = int(process.stdout.readline())
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    storage = await Storage.open(database_url)
    try:
        [table] = await storage.running_tables()
    finally:
        await storage.close()
    state = json.loads(table.text)
    version = state["version"]
    assert version >= committed
    assert state["hands"] == [[version] * 13 for _ in range(6)]


async def test_a_read_never_sees_another_coroutines_unfinished_transaction(
    storage: Storage,
) -> None:
    release = asyncio.Event()

    async def rolled_back_write() -> None:
        with pytest.raises(RuntimeError):
            async with storage.database.transaction() as db:
                await storage._upsert_table(db, StoredTable("t-half", 1, 2, json.dumps({"v": 1})))
                await release.wait()
                raise RuntimeError("the action failed half way")

    writer = asyncio.create_task(rolled_back_write())
    await asyncio.sleep(0.05)  # the writer holds its transaction open
    # SQLite's read waits for the transaction to end; PostgreSQL's reads what is committed.
    reader = asyncio.create_task(storage.running_tables())
    await asyncio.sleep(0.05)
    release.set()
    await writer
    assert await reader == []


async def test_message_refs_are_kept_replaced_and_forgotten_per_table(storage: Storage) -> None:
    await storage.save_message_ref(MessageRef("t1", 0, 5, 50, False))
    await storage.save_message_ref(MessageRef("t1", 7, 70, 71, False))
    await storage.save_message_ref(MessageRef("t1", 7, None, None, True))
    await storage.save_message_ref(MessageRef("t2", 0, 6, 60, False))
    assert await storage.message_refs() == [
        MessageRef("t1", 0, 5, 50, False),
        MessageRef("t1", 7, None, None, True),
        MessageRef("t2", 0, 6, 60, False),
    ]
    await storage.forget_message_refs("t1")
    assert [ref.table_id for ref in await storage.message_refs()] == ["t2"]


async def test_every_table_setting_is_kept(storage: Storage) -> None:
    wanted = GuildSettings(
        preset="dutch",
        turn_seconds=120,
        remind_seconds=45,
        idle_turns=5,
        host_may_pick_preset=False,
    )
    await storage.update_guild_settings(7, lambda _: wanted)
    assert await storage.guild_settings(7) == wanted
