"""Migrations build the schema from nothing or from any earlier version, all or nothing."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import aiosqlite
import pytest

from bot.guild_settings import GuildSettings
from bot.storage import (
    MIGRATIONS_DIR,
    GameRecord,
    PlayerRecord,
    Storage,
    StorageError,
    StoredTable,
    load_migrations,
    migrate,
    schema_version,
)

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


def test_the_migration_files_are_numbered_from_one_and_explain_themselves() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, LATEST + 1))
    for migration in MIGRATIONS:
        assert migration.sql.startswith(f"-- {migration.version:04d}: ")


async def test_an_empty_database_gets_the_whole_schema(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "new" / "bot.sqlite3")
    try:
        assert await schema_version(storage._db) == LATEST
        async with storage._db.execute("PRAGMA journal_mode") as cursor:
            assert (await cursor.fetchone()) == ("wal",)
        async with storage._db.execute("PRAGMA foreign_keys") as cursor:
            assert (await cursor.fetchone()) == (1,)
        async with storage._db.execute("PRAGMA index_list(games)") as cursor:
            assert "games_by_guild_end" in [row[1] for row in await cursor.fetchall()]
        assert await storage.running_tables() == []
        assert await storage.guild_settings(1) == GuildSettings()
        assert await storage.leaderboard(1) == []
    finally:
        await storage.close()


async def _seed(storage: Storage, version: int) -> None:
    """Store what the schema at `version` can hold."""
    if version >= 1:
        await storage.record_game(GAME)
    if version >= 2:
        await storage.update_guild_settings(
            1, lambda _: GuildSettings(preset="dutch", turn_seconds=60)
        )


@pytest.mark.parametrize("start", range(LATEST))
async def test_every_earlier_version_upgrades_and_keeps_its_data(
    tmp_path: Path, start: int
) -> None:
    path = tmp_path / "bot.sqlite3"
    old = await Storage.open(path, migrations=MIGRATIONS[:start])
    await _seed(old, start)
    assert await schema_version(old._db) == start
    await old.close()

    storage = await Storage.open(path)
    try:
        assert await schema_version(storage._db) == LATEST
        rows = await storage.leaderboard(1)
        assert sorted((r.name, r.losses) for r in rows) == (
            [("ann", 0), ("bo", 1)] if start >= 1 else []
        )
        expected = GuildSettings(preset="dutch", turn_seconds=60) if start >= 2 else None
        assert await storage.guild_settings(1) == (expected or GuildSettings())
        await storage.save_table(StoredTable("t1", 1, 2, {"version": 1}))
        assert [t.table_id for t in await storage.running_tables()] == ["t1"]
    finally:
        await storage.close()


async def test_a_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    await (await Storage.open(path)).close()
    with pytest.raises(StorageError, match=f"schema version {LATEST}, newer than this bot"):
        await Storage.open(path, migrations=MIGRATIONS[:-1])


async def test_a_failing_migration_leaves_nothing_behind(tmp_path: Path) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    shutil.copy(MIGRATIONS_DIR / "0001_games.sql", folder)
    broken = folder / "0002_broken.sql"
    broken.write_text(
        "-- 0002: test\nCREATE TABLE extra (id INTEGER);\nINSERT INTO nowhere VALUES (1);\n"
    )
    async with aiosqlite.connect(":memory:", isolation_level=None) as db:
        with pytest.raises(StorageError, match="0002_broken failed"):
            await migrate(db, load_migrations(folder))
        assert await schema_version(db) == 1
        assert not db.in_transaction
        broken.write_text("-- 0002: test\nCREATE TABLE extra (id INTEGER);\n")
        # Had the failed attempt left its table, this would fail with "already exists".
        assert await migrate(db, load_migrations(folder)) == 2


@pytest.mark.parametrize("names", [["0001_a.sql", "0003_c.sql"], ["0001_a.sql", "2_b.sql"]])
def test_gaps_and_stray_names_are_refused(tmp_path: Path, names: list[str]) -> None:
    for name in names:
        (tmp_path / name).write_text("-- test\n")
    with pytest.raises(StorageError, match=r"0003|NNNN_name"):
        load_migrations(tmp_path)
