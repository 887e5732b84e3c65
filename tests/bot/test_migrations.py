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
        # The columns of 0002, which every later version keeps.
        await storage._db.execute(
            "INSERT INTO guild_settings (guild_id, preset, overrides, turn_seconds, idle_turns, "
            "host_may_pick_preset, updated_at) VALUES (1, 'dutch', '{}', 60, 3, 1, 'x')"
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
    tmp_path: Path,
) -> None:
    import json

    from bot.storage import MessageRef
    from bot.table_store import StorageTableStore
    from tables.service import TableService

    path = tmp_path / "bot.sqlite3"
    old = await Storage.open(path, migrations=MIGRATIONS[:3])
    await old.save_table(StoredTable("t1", 1, 2, version_one_table("t1")))
    await old.save_table(StoredTable("t2", 1, 2, {}))
    await old._db.execute(
        "INSERT INTO running_tables (table_id, guild_id, channel_id, state, updated_at) "
        "VALUES ('bad', 1, 2, 'not json', 'x')"
    )
    await old.close()

    storage = await Storage.open(path)
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
