"""The bot's SQLite storage: every SQL statement of the bot lives in this module."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import aiosqlite

from bot.guild_settings import GuildSettings


def _packaged_migrations() -> Path:
    """Find the folder of the `migrations` package, whose SQL files ship as package data."""
    folder = resources.files("migrations")
    # Installed on disk (as pip does), the package is a folder and importlib gives a Path.
    return folder if isinstance(folder, Path) else Path(str(folder))


MIGRATIONS_DIR = _packaged_migrations()
_MIGRATION_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
# The files SQLite keeps beside a database (WAL mode, and a rollback journal).
_SIDE_FILES = ("-wal", "-shm", "-journal")


class StorageError(Exception):
    """The database cannot be used by this version of the bot; the message says why."""


@dataclass(frozen=True)
class Migration:
    """One numbered schema change read from `migrations/NNNN_name.sql`."""

    version: int
    name: str
    sql: str


@dataclass(frozen=True)
class PlayerRecord:
    """One seat of a finished game."""

    user_id: int
    name: str
    is_bot: bool
    place: int | None
    loser: bool


@dataclass(frozen=True)
class GameRecord:
    """A finished game as the leaderboard and stats read it."""

    guild_id: int
    channel_id: int
    preset: str | None
    rules: dict[str, Any]
    started_at: datetime
    ended_at: datetime
    moves: int
    end_reason: str
    players: list[PlayerRecord]


@dataclass(frozen=True)
class StoredTable:
    """A running table's full state, as the table service writes it after every action."""

    table_id: str
    guild_id: int
    channel_id: int
    state: dict[str, Any]


@dataclass(frozen=True)
class RunningRow:
    """A running table as stored, its JSON text not yet read (it may not be readable)."""

    table_id: str
    guild_id: int
    channel_id: int
    text: str


@dataclass(frozen=True)
class MessageRef:
    """Where a table's message is: the table message (`user_id` 0) or a member's DM."""

    table_id: str
    user_id: int
    channel_id: int | None
    message_id: int | None
    dm_closed: bool


@dataclass(frozen=True)
class LeaderRow:
    """One player's totals on a server's leaderboard."""

    user_id: int
    name: str
    is_bot: bool
    games: int
    losses: int


@dataclass(frozen=True)
class PlayedGame:
    """One game a member played, for their stats."""

    ended_at: datetime
    preset: str | None
    loser: bool
    place: int | None


def load_migrations(directory: Traversable = MIGRATIONS_DIR) -> list[Migration]:
    """Read the migration files in order; refuse gaps, stray names and an empty folder."""
    migrations = []
    files = sorted(
        (each for each in directory.iterdir() if each.name.endswith(".sql")),
        key=lambda each: each.name,
    )
    for file in files:
        match = _MIGRATION_FILE.match(file.name)
        if match is None:
            raise StorageError(f"{file}: a migration file is named NNNN_name.sql")
        migrations.append(Migration(int(match[1]), match[2], file.read_text(encoding="utf-8")))
    if not migrations:
        raise StorageError(
            f"There are no migration files in {directory}: reinstall the bot (pip install .)."
        )
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise StorageError(
                f"migration {migration.version:04d}_{migration.name}: "
                f"expected number {expected:04d}"
            )
    return migrations


def _timestamp(moment: datetime) -> str:
    """Write a moment as sortable UTC text (naive moments are taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _now() -> str:
    return _timestamp(datetime.now(UTC))


async def schema_version(db: aiosqlite.Connection) -> int:
    """Read the schema version kept in the database."""
    async with db.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def migrate(
    db: aiosqlite.Connection, migrations: list[Migration], target: int | None = None
) -> int:
    """Apply the migrations the database lacks, each in its own transaction; return the version."""
    latest = migrations[-1].version if migrations else 0
    target = latest if target is None else target
    current = await schema_version(db)
    if current > latest:
        raise StorageError(
            f"The database is at schema version {current}, newer than this bot knows "
            f"(up to {latest}). Run a newer version of the bot, or point DATABASE_PATH "
            "at another file."
        )
    for migration in migrations:
        if current < migration.version <= target:
            try:
                # executescript runs the file as written; BEGIN..COMMIT makes it all or nothing,
                # version included (PRAGMA user_version is transactional).
                await db.executescript(
                    f"BEGIN IMMEDIATE;\n{migration.sql}\n"
                    f"PRAGMA user_version = {migration.version:d};\nCOMMIT;"
                )
            except sqlite3.Error as exc:
                if db.in_transaction:
                    await db.execute("ROLLBACK")
                raise StorageError(
                    f"migration {migration.version:04d}_{migration.name} failed: {exc}"
                ) from exc
            current = migration.version
    return current


class Storage:
    """One aiosqlite connection; each public method is one transaction."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path | str, migrations: list[Migration] | None = None) -> Storage:
        """Open (creating) the database, turn on WAL and foreign keys, and migrate it.

        If that fails, a database file this call created is removed again; a file that was
        there before is left as it was.
        """
        migrations = load_migrations() if migrations is None else migrations
        created: list[Path] = []
        if str(path) != ":memory:":
            file = Path(path)
            file.parent.mkdir(parents=True, exist_ok=True)
            if not file.exists():
                created = [file, *(Path(f"{file}{suffix}") for suffix in _SIDE_FILES)]
        db = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            await db.execute("PRAGMA journal_mode = WAL")
            await db.execute("PRAGMA synchronous = FULL")
            await db.execute("PRAGMA foreign_keys = ON")
            await db.execute("PRAGMA busy_timeout = 5000")
            await migrate(db, migrations)
        except BaseException as exc:
            await db.close()
            for each in created:
                each.unlink(missing_ok=True)
            if isinstance(exc, sqlite3.DatabaseError):
                raise StorageError(
                    f"{path} is not a database this bot can use ({exc}): "
                    "point DATABASE_PATH at another file."
                ) from exc
            raise
        return cls(db)

    async def close(self) -> None:
        """Close the connection."""
        await self._db.close()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """Run statements as one transaction that no other coroutine interleaves with."""
        async with self._lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            await self._db.execute("COMMIT")

    async def _fetch(self, sql: str, params: tuple[object, ...] = ()) -> list[aiosqlite.Row]:
        """Read rows, never in the middle of another coroutine's transaction."""
        async with self._lock, self._db.execute(sql, params) as cursor:
            return list(await cursor.fetchall())

    # Running tables

    async def save_table(self, table: StoredTable) -> None:
        """Insert or replace a running table's state."""
        async with self._transaction() as db:
            await self._upsert_table(db, table)

    @staticmethod
    async def _upsert_table(db: aiosqlite.Connection, table: StoredTable) -> None:
        await db.execute(
            "INSERT INTO running_tables (table_id, guild_id, channel_id, state, updated_at) "
            "VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (table_id) DO UPDATE SET guild_id = excluded.guild_id, "
            "channel_id = excluded.channel_id, state = excluded.state, "
            "updated_at = excluded.updated_at",
            (
                table.table_id,
                table.guild_id,
                table.channel_id,
                json.dumps(table.state, separators=(",", ":")),
                _now(),
            ),
        )

    async def finish_table(self, table: StoredTable, record: GameRecord | None) -> int | None:
        """Record a finished game (if it has a result) and keep the table's final state as ended.

        Both or neither: a game is never recorded twice, nor its ending lost. Give the game's id.
        """
        async with self._transaction() as db:
            game_id = None if record is None else await self._insert_game(db, record)
            await self._upsert_table(db, table)
            await db.execute(
                "UPDATE running_tables SET ended_at = ? WHERE table_id = ?",
                (_now(), table.table_id),
            )
        return game_id

    async def delete_table(self, table_id: str) -> None:
        """Forget a table."""
        async with self._transaction() as db:
            await db.execute("DELETE FROM running_tables WHERE table_id = ?", (table_id,))

    async def running_tables(self) -> list[RunningRow]:
        """Read every running table not set aside as unreadable, to restore them at start."""
        rows = await self._fetch(
            "SELECT table_id, guild_id, channel_id, state FROM running_tables "
            "WHERE unreadable IS NULL AND ended_at IS NULL ORDER BY table_id"
        )
        return [RunningRow(row[0], row[1], row[2], row[3]) for row in rows]

    async def ended_tables(self, since: datetime) -> list[RunningRow]:
        """Read the tables that ended since a moment; forget those that ended before it."""
        async with self._transaction() as db:
            await db.execute(
                "DELETE FROM running_tables WHERE ended_at IS NOT NULL AND ended_at < ?",
                (_timestamp(since),),
            )
            async with db.execute(
                "SELECT table_id, guild_id, channel_id, state FROM running_tables "
                "WHERE unreadable IS NULL AND ended_at IS NOT NULL ORDER BY ended_at, table_id"
            ) as cursor:
                rows = list(await cursor.fetchall())
        return [RunningRow(row[0], row[1], row[2], row[3]) for row in rows]

    async def mark_unreadable(self, table_id: str, reason: str) -> None:
        """Set a running table aside with the reason it cannot be read; start-up skips it."""
        async with self._transaction() as db:
            await db.execute(
                "UPDATE running_tables SET unreadable = ? WHERE table_id = ?",
                (reason or "unreadable", table_id),
            )

    # Message references (the Discord layer's own)

    async def message_refs(self) -> list[MessageRef]:
        """Read every table's message references."""
        rows = await self._fetch(
            "SELECT table_id, user_id, channel_id, message_id, dm_closed FROM message_refs "
            "ORDER BY table_id, user_id"
        )
        return [MessageRef(row[0], row[1], row[2], row[3], bool(row[4])) for row in rows]

    async def save_message_ref(self, ref: MessageRef) -> None:
        """Insert or replace one message reference."""
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO message_refs (table_id, user_id, channel_id, message_id, dm_closed) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id, user_id) DO UPDATE SET "
                "channel_id = excluded.channel_id, message_id = excluded.message_id, "
                "dm_closed = excluded.dm_closed",
                (ref.table_id, ref.user_id, ref.channel_id, ref.message_id, int(ref.dm_closed)),
            )

    async def forget_message_refs(self, table_id: str) -> None:
        """Drop a table's message references."""
        async with self._transaction() as db:
            await db.execute("DELETE FROM message_refs WHERE table_id = ?", (table_id,))

    # Finished games

    @staticmethod
    async def _insert_game(db: aiosqlite.Connection, record: GameRecord) -> int:
        cursor = await db.execute(
            "INSERT INTO games (guild_id, channel_id, preset, rules, started_at, ended_at, "
            "moves, end_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.guild_id,
                record.channel_id,
                record.preset,
                json.dumps(record.rules, separators=(",", ":")),
                _timestamp(record.started_at),
                _timestamp(record.ended_at),
                record.moves,
                record.end_reason,
            ),
        )
        game_id = cursor.lastrowid
        assert game_id is not None
        await db.executemany(
            "INSERT INTO game_players (game_id, seat, user_id, name, is_bot, place, loser) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (game_id, seat, p.user_id, p.name, int(p.is_bot), p.place, int(p.loser))
                for seat, p in enumerate(record.players)
            ],
        )
        return game_id

    async def record_game(self, record: GameRecord) -> int:
        """Record a finished game that had no running table; return its id."""
        async with self._transaction() as db:
            return await self._insert_game(db, record)

    async def leaderboard(self, guild_id: int, since: datetime | None = None) -> list[LeaderRow]:
        """Total games and losses per player on a server, optionally since a moment."""
        rows = await self._fetch(
            # A person is one user id (named as in their latest game: SQLite takes bare columns
            # from the MAX row); computer players are told apart by name.
            "SELECT p.user_id, p.name, p.is_bot, COUNT(*), SUM(p.loser), MAX(g.ended_at) "
            "FROM game_players AS p JOIN games AS g ON g.id = p.game_id "
            "WHERE g.guild_id = ? AND g.ended_at >= ? AND p.user_id IS NOT NULL "
            "GROUP BY p.is_bot, p.user_id, CASE WHEN p.is_bot THEN p.name END",
            (guild_id, _timestamp(since) if since else ""),
        )
        return [LeaderRow(row[0], row[1], bool(row[2]), row[3], row[4]) for row in rows]

    async def played_games(self, guild_id: int, user_id: int) -> list[PlayedGame]:
        """A member's games on a server, oldest first."""
        rows = await self._fetch(
            "SELECT g.ended_at, g.preset, p.loser, p.place "
            "FROM game_players AS p JOIN games AS g ON g.id = p.game_id "
            "WHERE p.user_id = ? AND p.is_bot = 0 AND g.guild_id = ? "
            "ORDER BY g.ended_at, g.id",
            (user_id, guild_id),
        )
        return [
            PlayedGame(datetime.fromisoformat(row[0]), row[1], bool(row[2]), row[3]) for row in rows
        ]

    async def forget_member(self, user_id: int) -> int:
        """Anonymise a person's seats in every recorded game; return how many there were."""
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE game_players SET user_id = NULL, name = NULL "
                "WHERE user_id = ? AND is_bot = 0",
                (user_id,),
            )
            return cursor.rowcount

    # Server settings

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """Read a server's settings, or the defaults when it has none."""
        async with self._lock:
            return await self._read_guild_settings(self._db, guild_id)

    async def update_guild_settings(
        self, guild_id: int, change: Callable[[GuildSettings], GuildSettings]
    ) -> GuildSettings:
        """Read, change and save a server's settings in one transaction; give the result.

        Two moderators changing different options at once both keep their change. If `change`
        raises, nothing is saved.
        """
        async with self._transaction() as db:
            updated = change(await self._read_guild_settings(db, guild_id))
            await self._write_guild_settings(db, guild_id, updated)
        return updated

    @staticmethod
    async def _read_guild_settings(db: aiosqlite.Connection, guild_id: int) -> GuildSettings:
        async with db.execute(
            "SELECT preset, overrides, turn_seconds, idle_turns, host_may_pick_preset, "
            "remind_seconds, language, pictures FROM guild_settings WHERE guild_id = ?",
            (guild_id,),
        ) as cursor:
            row = await cursor.fetchone()
        if row is None:
            return GuildSettings()
        return GuildSettings(
            preset=row[0],
            overrides=json.loads(row[1]),
            turn_seconds=row[2],
            idle_turns=row[3],
            host_may_pick_preset=bool(row[4]),
            remind_seconds=row[5],
            language=row[6],
            pictures=bool(row[7]),
        )

    @staticmethod
    async def _write_guild_settings(
        db: aiosqlite.Connection, guild_id: int, settings: GuildSettings
    ) -> None:
        await db.execute(
            "INSERT INTO guild_settings (guild_id, preset, overrides, turn_seconds, "
            "idle_turns, host_may_pick_preset, updated_at, remind_seconds, language, pictures) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (guild_id) DO UPDATE SET preset = excluded.preset, "
            "overrides = excluded.overrides, turn_seconds = excluded.turn_seconds, "
            "idle_turns = excluded.idle_turns, remind_seconds = excluded.remind_seconds, "
            "language = excluded.language, pictures = excluded.pictures, "
            "host_may_pick_preset = excluded.host_may_pick_preset, "
            "updated_at = excluded.updated_at",
            (
                guild_id,
                settings.preset,
                json.dumps(settings.overrides, separators=(",", ":")),
                settings.turn_seconds,
                settings.idle_turns,
                int(settings.host_may_pick_preset),
                _now(),
                settings.remind_seconds,
                settings.language,
                int(settings.pictures),
            ),
        )
