"""Migrations build the schema from nothing or from any earlier version, all or nothing.

SQLite's files are `migrations/NNNN_name.sql`, PostgreSQL's `migrations/postgresql/`, number
for number; each test that touches a database runs on both.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.postgres import Cluster
from bot.database import (
    MIGRATIONS_DIR,
    POSTGRESQL_MIGRATIONS_DIR,
    DatabaseUrl,
    StorageError,
    load_migrations,
    migrations_for,
    open_database,
)
from bot.guild_settings import GuildSettings
from bot.storage import (
    TABLES,
    GameRecord,
    MessageRef,
    PlayerRecord,
    Storage,
    StoredTable,
)
from bot.table_store import StorageTableStore
from tables.service import TableService
from tests.bot.test_rating_store import record_before_levels
from tests.bot.test_storage import REFUSED_ROW

MIGRATIONS = load_migrations()
LATEST = MIGRATIONS[-1].version
NOON = datetime(2024, 5, 1, 12, tzinfo=UTC)
GAME = GameRecord(
    guild_id=1,
    channel_id=2,
    preset="classic",
    rules={"decks": 1},
    started_at=NOON,
    ended_at=NOON,
    moves=40,
    end_reason="finished",
    players=[PlayerRecord(10, "ann", False, 1, False), PlayerRecord(11, "bo", False, 2, True)],
)


@pytest.mark.parametrize("folder", [MIGRATIONS_DIR, POSTGRESQL_MIGRATIONS_DIR])
def test_the_migration_files_are_numbered_from_one_and_explain_themselves(folder: Path) -> None:
    migrations = load_migrations(folder)
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))
    for migration in migrations:
        assert migration.sql.startswith(f"-- {migration.version:04d}: ")


def test_both_dialects_have_the_same_migrations() -> None:
    sqlite = [(m.version, m.name) for m in migrations_for("sqlite")]
    assert [(m.version, m.name) for m in migrations_for("postgresql")] == sqlite


async def test_an_empty_database_gets_the_whole_schema(database_url: DatabaseUrl) -> None:
    storage = await Storage.open(database_url)
    try:
        assert await storage.database.schema_version() == LATEST
        for table in TABLES:  # every table, with every column a copy moves
            assert await storage.rows(table) == []
        assert await storage.running_tables() == []
        assert await storage.guild_settings(1) == GuildSettings()
        assert await storage.leaderboard(1) == []
        with pytest.raises(REFUSED_ROW):  # a player of no game
            async with storage.database.transaction() as db:
                await db.execute(
                    "INSERT INTO game_players (game_id, seat, is_bot, loser) VALUES (99, 0, 0, 0)"
                )
    finally:
        await storage.close()


async def test_sqlite_runs_in_wal_mode_with_its_indexes(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "new" / "bot.sqlite3")
    try:
        assert await storage.database.fetch("PRAGMA journal_mode") == [("wal",)]
        assert await storage.database.fetch("PRAGMA foreign_keys") == [(1,)]
        indexes = await storage.database.fetch("PRAGMA index_list(games)")
        assert "games_by_guild_end" in [row[1] for row in indexes]
    finally:
        await storage.close()


async def test_postgresql_has_the_same_indexes(postgres: Cluster) -> None:
    storage = await Storage.open(await postgres.new_database())
    try:
        rows = await storage.database.fetch("SELECT indexname FROM pg_indexes")
        names = {row[0] for row in rows}
        assert {"games_by_guild_end", "game_players_by_user", "running_tables_by_guild"} <= names
    finally:
        await storage.close()


async def test_processes_starting_at_once_migrate_one_at_a_time(postgres: Cluster) -> None:
    url = await postgres.new_database()
    # Without the advisory lock, each would create the tables and all but one would fail.
    opened = await asyncio.gather(*(Storage.open(url) for _ in range(4)))
    try:
        assert [await each.database.schema_version() for each in opened] == [LATEST] * 4
    finally:
        for each in opened:
            await each.close()


async def _seed(storage: Storage, version: int) -> None:
    """Store what the schema at `version` can hold."""
    if version >= 1:
        await record_before_levels(storage, GAME)
    if version >= 2:
        # The columns of 0002, which every later version keeps.
        async with storage.database.transaction() as db:
            await db.execute(
                "INSERT INTO guild_settings (guild_id, preset, overrides, turn_seconds, "
                "idle_turns, host_may_pick_preset, updated_at) "
                "VALUES (1, 'dutch', '{}', 60, 3, 1, 'x')"
            )


@pytest.mark.parametrize("start", range(LATEST))
async def test_every_earlier_version_upgrades_and_keeps_its_data(
    database_url: DatabaseUrl, start: int
) -> None:
    migrations = migrations_for(database_url.dialect)
    old = await Storage.open(database_url, migrations=migrations[:start])
    await _seed(old, start)
    assert await old.database.schema_version() == start
    await old.close()

    storage = await Storage.open(database_url)
    try:
        assert await storage.database.schema_version() == LATEST
        rows = await storage.leaderboard(1)
        assert sorted((r.name, r.losses) for r in rows) == (
            [("ann", 0), ("bo", 1)] if start >= 1 else []
        )
        expected = GuildSettings(preset="dutch", turn_seconds=60) if start >= 2 else None
        assert await storage.guild_settings(1) == (expected or GuildSettings())
        await storage.save_table(StoredTable("t1", 1, 2, json.dumps({"version": 1})))
        assert [t.table_id for t in await storage.running_tables()] == ["t1"]
    finally:
        await storage.close()


async def test_a_database_newer_than_the_code_is_refused(database_url: DatabaseUrl) -> None:
    await (await Storage.open(database_url)).close()
    older = migrations_for(database_url.dialect)[:-1]
    with pytest.raises(StorageError, match=f"schema version {LATEST}, newer than this bot"):
        await Storage.open(database_url, migrations=older)


async def test_a_failing_migration_leaves_nothing_behind(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    source = MIGRATIONS_DIR if database_url.dialect == "sqlite" else POSTGRESQL_MIGRATIONS_DIR
    folder = tmp_path / "migrations"
    folder.mkdir()
    shutil.copy(source / "0001_games.sql", folder)
    broken = folder / "0002_broken.sql"
    broken.write_text(
        "-- 0002: test\nCREATE TABLE extra (id INTEGER);\nINSERT INTO nowhere VALUES (1);\n"
    )
    database = await open_database(database_url, load_migrations(folder)[:1])
    try:
        with pytest.raises(StorageError, match="0002_broken failed"):
            await database.migrate(load_migrations(folder))
        assert await database.schema_version() == 1
        broken.write_text("-- 0002: test\nCREATE TABLE extra (id INTEGER);\n")
        # Had the failed attempt left its table, this would fail with "already exists".
        assert await database.migrate(load_migrations(folder)) == 2
    finally:
        await database.close()


@pytest.mark.parametrize("names", [["0001_a.sql", "0003_c.sql"], ["0001_a.sql", "2_b.sql"]])
def test_gaps_and_stray_names_are_refused(tmp_path: Path, names: list[str]) -> None:
    for name in names:
        (tmp_path / name).write_text("-- test\n")
    with pytest.raises(StorageError, match=r"0003|NNNN_name"):
        load_migrations(tmp_path)


def version_one_table(table_id: str) -> dict[str, object]:
    """A running table as the bot before the table core wrote it (message ids inside)."""
    from engine.game import Game
    from engine.rules import make_rules, rules_to_json
    from engine.serialize import game_to_json

    rules = make_rules("classic")
    game = Game.deal(rules, 2, seed=9)
    seat = {"computer": None, "timeouts": 0, "removed": False, "version": 3}
    return {
        "id": table_id,
        "guild_id": 1,
        "channel_id": 2,
        "host_id": 10,
        "preset": "classic",
        "rules": rules_to_json(rules),
        "seed": 9,
        "turn_seconds": 90.0,
        "idle_turns": 3,
        "seats": [
            {
                **seat,
                "user_id": 10,
                "name": "ann",
                "dm_channel_id": 70,
                "dm_message_id": 71,
                "dm_closed": False,
            },
            {
                **seat,
                "user_id": 11,
                "name": "bo",
                "dm_channel_id": None,
                "dm_message_id": None,
                "dm_closed": True,
            },
        ],
        "phase": "setup",
        "game": game_to_json(game),
        "version": 5,
        "message_id": 55,
        "log": ["The cards are dealt. Get ready!"],
        "deadline": 4_000_000_000.0,
        "reminded": False,
        "created_at": 1000.0,
        "started_at": 1100.0,
        "ended_at": None,
        "ended_reason": None,
        "previous_loser": None,
    }


async def test_running_tables_of_version_3_move_their_message_ids_out_and_resume(
    database_url: DatabaseUrl,
) -> None:
    old = await Storage.open(database_url, migrations=migrations_for(database_url.dialect)[:3])
    await old.save_table(StoredTable("t1", 1, 2, json.dumps(version_one_table("t1"))))
    await old.save_table(StoredTable("t2", 1, 2, json.dumps({})))
    async with old.database.transaction() as db:
        await db.execute(
            "INSERT INTO running_tables (table_id, guild_id, channel_id, state, updated_at) "
            "VALUES ('bad', 1, 2, 'not json', 'x')"
        )
    await old.close()

    storage = await Storage.open(database_url)
    try:
        assert await storage.message_refs() == [
            MessageRef("t1", 0, 2, 55, False),
            MessageRef("t1", 10, 70, 71, False),
            MessageRef("t1", 11, None, None, True),
        ]
        rows = {
            row.table_id: json.loads(row.text)
            for row in await storage.running_tables()
            if row.table_id != "bad"
        }
        assert "message_id" not in rows["t1"]
        assert [sorted(seat) for seat in rows["t1"]["seats"]] == [
            ["computer", "name", "removed", "timeouts", "user_id", "version"]
        ] * 2
        service = TableService(store=StorageTableStore(storage))
        restored = await service.restore()
        assert [table.id for table in restored] == ["t1"]
        assert restored[0].phase == "setup" and restored[0].names == ["ann", "bo"]
        assert [row.table_id for row in await storage.running_tables()] == ["t1"]
        await service.shutdown()
    finally:
        await storage.close()
