"""`python -m bot.migrate`: migrate one database, or copy everything from SQLite to PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bench.postgres import Cluster
from bot.database import DatabaseUrl, StorageError, migrations_for
from bot.guild_settings import GuildSettings
from bot.instance import InstanceLock
from bot.rating_store import RatingStore
from bot.storage import (
    TABLES,
    GameRecord,
    MessageRef,
    PlayerRecord,
    Storage,
    StoredTable,
)
from tests.bot.test_migrations import LATEST

ROOT = Path(__file__).resolve().parents[2]
NOON = datetime(2024, 5, 1, 12, tzinfo=UTC)
# A Discord id past 32 bits, as every real one is.
GUILD = 1_234_567_890_123_456_789


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the command as an operator would, without a DATABASE_URL of the test's own."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("DATABASE")}
    env["PYTHONPATH"] = str(ROOT)  # these sources, from whatever folder it runs in
    return subprocess.run(
        [sys.executable, "-m", "bot.migrate", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )


def record(ended: datetime, *players: PlayerRecord, guild: int = GUILD) -> GameRecord:
    return GameRecord(
        guild_id=guild,
        channel_id=GUILD + 1,
        preset="dutch",
        rules={"decks": 2, "powers": {"7": None}},
        started_at=ended - timedelta(minutes=20),
        ended_at=ended,
        moves=55,
        end_reason="finished",
        players=list(players),
    )


async def fill(storage: Storage) -> None:
    """Store something of every kind the bot keeps."""
    ann, bo = (
        PlayerRecord(GUILD + 10, "ann", False, 1, False),
        PlayerRecord(11, "bo", False, 2, True),
    )
    robot = PlayerRecord(0, "Computer 1 (expert)", True, 3, False, "expert")
    await storage.record_game(record(NOON, ann, bo, robot))
    await storage.record_game(record(NOON + timedelta(days=1), bo, ann, guild=7))
    await storage.record_game(record(NOON + timedelta(days=2), ann, bo))
    await storage.forget_member(11)  # an anonymised seat is kept as it is
    chosen = GuildSettings(
        preset="schwechat",
        overrides={"decks": 3, "runs": True},
        turn_seconds=45,
        remind_seconds=20,
        idle_turns=2,
        host_may_pick_preset=False,
        language="de",
        pictures=False,
    )
    await storage.update_guild_settings(GUILD, lambda _: chosen)
    await storage.update_guild_settings(7, lambda _: GuildSettings(preset="karma"))
    await storage.save_table(
        StoredTable("run1", GUILD, GUILD + 1, json.dumps({"version": 4, "seats": []}))
    )
    await storage.save_table(StoredTable("bad1", GUILD, GUILD + 2, json.dumps({"seats": 5})))
    await storage.mark_unreadable("bad1", "seats is not a list")
    await storage.save_table(StoredTable("end1", 7, 8, json.dumps({"over": True})))
    await storage.finish_table(
        StoredTable("end1", 7, 8, json.dumps({"over": True, "version": 9})),
        record(NOON + timedelta(days=3), ann, robot, guild=7),
    )
    await storage.save_message_ref(MessageRef("run1", 0, GUILD + 1, GUILD + 3, False))
    await storage.save_message_ref(MessageRef("run1", GUILD + 10, GUILD + 4, GUILD + 5, False))
    await storage.save_message_ref(MessageRef("run1", 11, None, None, True))
    assert await RatingStore(storage).rate_unrated() == 4


async def everything(storage: Storage) -> dict[str, list[tuple[object, ...]]]:
    """Read every row of every table the bot keeps."""
    return {table: [tuple(row) for row in await storage.rows(table)] for table in TABLES}


async def test_a_sqlite_database_is_copied_to_postgresql_whole(
    tmp_path: Path, postgres: Cluster
) -> None:
    source = DatabaseUrl.sqlite(tmp_path / "bot.sqlite3")
    storage = await Storage.open(source)
    await fill(storage)
    before = await everything(storage)
    await storage.close()
    target = await postgres.new_database()

    done = run("--from", source.shown(), "--to", target.shown())

    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "Copied 4 finished games, 9 players of finished games, 2 servers' settings, "
        "3 running or recently ended tables, 3 message references, 9 rated seats of finished "
        f"games, 4 players' latest ratings from {source.shown()} to {target.shown()}.\n"
    )
    copied = await Storage.open(target)
    try:
        assert await everything(copied) == before
        assert all(before.values())  # every table had rows to copy
        # What the bot reads back is the same, and new games go on numbering after the old.
        assert [row.table_id for row in await copied.running_tables()] == ["run1"]
        assert (await copied.guild_settings(GUILD)).language == "de"
        new_id = await copied.record_game(record(NOON + timedelta(days=4)))
        assert new_id == len(before["games"]) + 1  # ids 1 to 4 were copied
    finally:
        await copied.close()
    # A second copy into the now full database is refused, and changes nothing.
    again = run("--from", source.shown(), "--to", target.shown())
    assert again.returncode == 2
    assert again.stderr == (
        "The database to copy into already holds data: give an empty database, so nothing in "
        "it is mixed up or overwritten.\n"
    )
    copied = await Storage.open(target)
    try:
        assert len(await copied.rows("games")) == len(before["games"]) + 1
    finally:
        await copied.close()


async def test_a_copy_that_fails_half_way_leaves_the_target_empty(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    source = DatabaseUrl.sqlite(tmp_path / "source.sqlite3")
    storage = await Storage.open(source)
    await fill(storage)
    # A row the target's schema refuses, past the rows that copy first.
    async with storage.database.transaction() as db:
        await db.execute("PRAGMA ignore_check_constraints = ON")
        await db.execute("UPDATE message_refs SET dm_closed = 5 WHERE user_id = 11")
    await storage.close()
    if database_url.dialect == "sqlite":
        database_url = DatabaseUrl.sqlite(tmp_path / "target.sqlite3")

    done = run("--from", source.shown(), "--to", database_url.shown())

    assert done.returncode != 0
    target = await Storage.open(database_url)
    try:
        assert await target.is_empty()
    finally:
        await target.close()


async def test_a_copy_from_a_missing_file_or_a_running_bots_file_is_refused(
    tmp_path: Path,
) -> None:
    missing = run(
        "--from", f"sqlite:///{tmp_path}/none.sqlite3", "--to", f"sqlite:///{tmp_path}/b.sqlite3"
    )
    assert missing.returncode == 2
    assert missing.stderr == (
        f"--from names sqlite:///{tmp_path}/none.sqlite3, which is not a file: check the path.\n"
    )
    assert list(tmp_path.iterdir()) == []
    source = tmp_path / "bot.sqlite3"
    await (await Storage.open(source)).close()
    with InstanceLock(source):  # a bot runs on it: the copy would miss its later moves
        busy = run("--from", f"sqlite:///{source}", "--to", f"sqlite:///{tmp_path}/b.sqlite3")
    assert busy.returncode == 2
    assert busy.stderr.startswith(f"Another bot (pid {os.getpid()} on ")
    assert f"is running on {source}: stop it first, or point --from at another file." in busy.stderr
    assert not (tmp_path / "b.sqlite3").exists()


def test_bad_command_lines_are_refused_plainly(tmp_path: Path) -> None:
    only_from = run("--from", f"sqlite:///{tmp_path}/a.sqlite3")
    assert only_from.returncode == 2
    assert "--from and --to go together" in only_from.stderr
    bad = run("--from", "mysql://x/y", "--to", "sqlite:///b.sqlite3")
    assert bad.returncode == 2
    assert "argument --from: not usable: a database URL is sqlite:///" in bad.stderr
    assert list(tmp_path.iterdir()) == []


async def test_migrating_brings_a_database_to_the_newest_version(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    done = run(database_url.shown())
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{database_url.shown()} is at schema version {LATEST}, the newest.\n"
    # The database is at the newest version already: a bot that knows one less refuses it.
    older = migrations_for(database_url.dialect)[:-1]
    with pytest.raises(StorageError, match=f"at schema version {LATEST}, newer"):
        await Storage.open(database_url, migrations=older)


def test_without_a_url_the_settings_database_is_migrated(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DATABASE_PATH=state/bot.sqlite3\n")
    done = run(cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout == f"sqlite:///state/bot.sqlite3 is at schema version {LATEST}, the newest.\n"
    )
    assert (tmp_path / "state" / "bot.sqlite3").is_file()
