"""The bot's storage: every SQL statement of the bot lives in this module.

The statements are written once, in the SQL that SQLite and PostgreSQL share, with `?`
placeholders; `bot.database` holds what differs between the two.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.database import (
    MIGRATIONS_DIR,
    Connection,
    Database,
    DatabaseUrl,
    Migration,
    StorageError,
    load_migrations,
    open_database,
)
from bot.guild_settings import GuildSettings

__all__ = ["MIGRATIONS_DIR", "Migration", "StorageError", "load_migrations"]

# Every table the bot keeps, parents before children, with its columns: what a copy from one
# database to another moves (`python -m bot.migrate --from … --to …`).
TABLES: dict[str, tuple[str, ...]] = {
    "games": (
        "id", "guild_id", "channel_id", "preset", "rules", "started_at", "ended_at", "moves",
        "end_reason",
    ),
    "game_players": ("game_id", "seat", "user_id", "name", "is_bot", "place", "loser", "level"),
    "guild_settings": (
        "guild_id", "preset", "overrides", "turn_seconds", "idle_turns",
        "host_may_pick_preset", "updated_at", "remind_seconds", "language", "pictures",
    ),
    "running_tables": (
        "table_id", "guild_id", "channel_id", "state", "updated_at", "unreadable", "ended_at",
    ),
    "message_refs": ("table_id", "user_id", "channel_id", "message_id", "dm_closed"),
    # Rated seats before the players' latest ratings, which point at them.
    "seat_ratings": ("game_id", "seat", "mu_before", "sigma_before", "mu", "sigma"),
    "player_ratings": ("guild_id", "who", "games", "game_id", "seat"),
}  # fmt: skip


@dataclass(frozen=True)
class PlayerRecord:
    """One seat of a finished game."""

    user_id: int
    name: str
    is_bot: bool
    place: int | None
    loser: bool
    # A computer player's level (`basic`, `expert`): the identity its rating moves.
    level: str | None = None


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
    """A running table's full state (its JSON text), as the core writes it after every action."""

    table_id: str
    guild_id: int
    channel_id: int
    text: str


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


def _timestamp(moment: datetime) -> str:
    """Write a moment as sortable UTC text (naive moments are taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _now() -> str:
    """Write this moment as `_timestamp` does (it is in UTC already: nothing to normalise)."""
    # Stamped on every table save.
    return datetime.now(UTC).isoformat(timespec="microseconds")


class Storage:
    """The bot's state in SQLite or PostgreSQL; each public method is one transaction."""

    def __init__(self, database: Database) -> None:
        self.database = database

    @classmethod
    async def open(
        cls, where: DatabaseUrl | Path | str, migrations: list[Migration] | None = None
    ) -> Storage:
        """Open the database (a URL, or an SQLite file's path) and migrate it.

        By default to the newest version of its dialect's migrations; a new SQLite file that
        cannot be made ready is removed again.
        """
        url = where if isinstance(where, DatabaseUrl) else DatabaseUrl.sqlite(where)
        return cls(await open_database(url, migrations))

    async def close(self) -> None:
        """Close the database."""
        await self.database.close()

    # Running tables

    async def save_table(self, table: StoredTable) -> None:
        """Insert or replace a running table's state (SQLite commits it with others waiting)."""
        await self.database.write(table.guild_id, _UPSERT_TABLE, _upsert_params(table))

    async def _upsert_table(self, db: Connection, table: StoredTable) -> None:
        """Write a table's state, if this process still owns its guild's shard."""
        await self.database.check_owner(db, table.guild_id)
        await db.execute(_UPSERT_TABLE, _upsert_params(table))

    async def finish_table(self, table: StoredTable, record: GameRecord | None) -> int | None:
        """Record a finished game (if it has a result) and keep the table's final state as ended.

        Both or neither: a game is never recorded twice, nor its ending lost. Give the game's id.
        """
        async with self.database.transaction() as db:
            game_id = None if record is None else await self._insert_game(db, record)
            await self._upsert_table(db, table)
            await db.execute(
                "UPDATE running_tables SET ended_at = ? WHERE table_id = ?",
                (_now(), table.table_id),
            )
        return game_id

    async def delete_table(self, table_id: str) -> None:
        """Forget a table."""
        async with self.database.transaction() as db:
            await db.execute("DELETE FROM running_tables WHERE table_id = ?", (table_id,))

    async def running_tables(self) -> list[RunningRow]:
        """Read every running table not set aside as unreadable, to restore them at start."""
        rows = await self.database.fetch(
            "SELECT table_id, guild_id, channel_id, state FROM running_tables "
            "WHERE unreadable IS NULL AND ended_at IS NULL ORDER BY table_id"
        )
        return [RunningRow(row[0], row[1], row[2], row[3]) for row in rows]

    async def ended_tables(self, since: datetime) -> list[RunningRow]:
        """Read the tables that ended since a moment; forget those that ended before it."""
        async with self.database.transaction() as db:
            await db.execute(
                "DELETE FROM running_tables WHERE ended_at IS NOT NULL AND ended_at < ?",
                (_timestamp(since),),
            )
            rows = await db.fetch(
                "SELECT table_id, guild_id, channel_id, state FROM running_tables "
                "WHERE unreadable IS NULL AND ended_at IS NOT NULL ORDER BY ended_at, table_id"
            )
        return [RunningRow(row[0], row[1], row[2], row[3]) for row in rows]

    async def table_guild(self, table_id: str) -> int | None:
        """Say which server a stored table (running or ended) is in, if it is stored."""
        rows = await self.database.fetch(
            "SELECT guild_id FROM running_tables WHERE table_id = ?", (table_id,)
        )
        return int(rows[0][0]) if rows else None

    async def mark_unreadable(self, table_id: str, reason: str) -> None:
        """Set a running table aside with the reason it cannot be read; start-up skips it."""
        async with self.database.transaction() as db:
            await db.execute(
                "UPDATE running_tables SET unreadable = ? WHERE table_id = ?",
                (reason or "unreadable", table_id),
            )

    # Message references (the Discord layer's own)

    async def message_refs(self) -> list[MessageRef]:
        """Read every table's message references."""
        rows = await self.database.fetch(
            "SELECT table_id, user_id, channel_id, message_id, dm_closed FROM message_refs "
            "ORDER BY table_id, user_id"
        )
        return [MessageRef(row[0], row[1], row[2], row[3], bool(row[4])) for row in rows]

    async def message_refs_by_guild(self) -> list[tuple[MessageRef, int | None]]:
        """Read every message reference with its table's server (None: no longer stored)."""
        rows = await self.database.fetch(
            "SELECT r.table_id, r.user_id, r.channel_id, r.message_id, r.dm_closed, t.guild_id "
            "FROM message_refs r LEFT JOIN running_tables t ON t.table_id = r.table_id "
            "ORDER BY r.table_id, r.user_id"
        )
        return [
            (
                MessageRef(row[0], row[1], row[2], row[3], bool(row[4])),
                None if row[5] is None else int(row[5]),
            )
            for row in rows
        ]

    async def save_message_ref(self, ref: MessageRef) -> None:
        """Insert or replace one message reference."""
        async with self.database.transaction() as db:
            await db.execute(
                "INSERT INTO message_refs (table_id, user_id, channel_id, message_id, dm_closed) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id, user_id) DO UPDATE SET "
                "channel_id = excluded.channel_id, message_id = excluded.message_id, "
                "dm_closed = excluded.dm_closed",
                (ref.table_id, ref.user_id, ref.channel_id, ref.message_id, int(ref.dm_closed)),
            )

    async def forget_message_refs(self, table_id: str) -> None:
        """Drop a table's message references."""
        async with self.database.transaction() as db:
            await db.execute("DELETE FROM message_refs WHERE table_id = ?", (table_id,))

    # Finished games

    @staticmethod
    async def _insert_game(db: Connection, record: GameRecord) -> int:
        [(game_id,)] = await db.fetch(
            "INSERT INTO games (guild_id, channel_id, preset, rules, started_at, ended_at, "
            "moves, end_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
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
        await db.executemany(
            "INSERT INTO game_players (game_id, seat, user_id, name, is_bot, place, loser, level) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (game_id, seat, p.user_id, p.name, int(p.is_bot), p.place, int(p.loser), p.level)
                for seat, p in enumerate(record.players)
            ],
        )
        return int(game_id)

    async def record_game(self, record: GameRecord) -> int:
        """Record a finished game that had no running table; return its id."""
        async with self.database.transaction() as db:
            return await self._insert_game(db, record)

    async def leaderboard(self, guild_id: int, since: datetime | None = None) -> list[LeaderRow]:
        """Total games and losses per player on a server, optionally since a moment."""
        rows = await self.database.fetch(
            # A person is one user id, named as in their latest game; computer players are
            # told apart by name.
            "SELECT user_id, name, is_bot, games, losses FROM ("
            "SELECT p.user_id, p.name, p.is_bot, COUNT(*) OVER player AS games, "
            "SUM(p.loser) OVER player AS losses, "
            "ROW_NUMBER() OVER (player ORDER BY g.ended_at DESC, g.id DESC) AS latest "
            "FROM game_players AS p JOIN games AS g ON g.id = p.game_id "
            "WHERE g.guild_id = ? AND g.ended_at >= ? AND p.user_id IS NOT NULL "
            "WINDOW player AS (PARTITION BY p.is_bot, p.user_id, "
            "CASE WHEN p.is_bot = 1 THEN p.name END)"
            ") AS ranked WHERE latest = 1 ORDER BY is_bot, user_id, name",
            (guild_id, _timestamp(since) if since else ""),
        )
        return [LeaderRow(row[0], row[1], bool(row[2]), row[3], row[4]) for row in rows]

    async def played_games(self, guild_id: int, user_id: int) -> list[PlayedGame]:
        """A member's games on a server, oldest first."""
        rows = await self.database.fetch(
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
        async with self.database.transaction() as db:
            return await db.execute(
                "UPDATE game_players SET user_id = NULL, name = NULL "
                "WHERE user_id = ? AND is_bot = 0",
                (user_id,),
            )

    # Server settings

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """Read a server's settings, or the defaults when it has none."""
        return _guild_settings(await self.database.fetch(_READ_GUILD_SETTINGS, (guild_id,)))

    async def update_guild_settings(
        self, guild_id: int, change: Callable[[GuildSettings], GuildSettings]
    ) -> GuildSettings:
        """Read, change and save a server's settings in one transaction; give the result.

        Two moderators changing different options at once, in one process or two, both keep
        their change. If `change` raises, nothing is saved.
        """
        async with self.database.transaction() as db:
            # Writing the row first (the defaults if it is new, else the same values) holds
            # it: another process's change waits here until this transaction ends.
            await self._write_guild_settings(db, guild_id, GuildSettings(), keep=True)
            current = _guild_settings(await db.fetch(_READ_GUILD_SETTINGS, (guild_id,)))
            updated = change(current)
            await self._write_guild_settings(db, guild_id, updated)
        return updated

    @staticmethod
    async def _write_guild_settings(
        db: Connection, guild_id: int, settings: GuildSettings, *, keep: bool = False
    ) -> None:
        """Insert a server's settings; an existing row takes them, or with `keep` stays as is."""
        update = (
            "updated_at = guild_settings.updated_at"
            if keep
            else "preset = excluded.preset, overrides = excluded.overrides, "
            "turn_seconds = excluded.turn_seconds, idle_turns = excluded.idle_turns, "
            "remind_seconds = excluded.remind_seconds, language = excluded.language, "
            "pictures = excluded.pictures, "
            "host_may_pick_preset = excluded.host_may_pick_preset, "
            "updated_at = excluded.updated_at"
        )
        await db.execute(
            "INSERT INTO guild_settings (guild_id, preset, overrides, turn_seconds, "
            "idle_turns, host_may_pick_preset, updated_at, remind_seconds, language, pictures) "
            f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET {update}",
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

    # Moving everything to another database

    async def rows(self, table: str) -> list[Sequence[Any]]:
        """Read every row of one of the bot's tables, its columns as `TABLES` lists them."""
        columns = ", ".join(TABLES[table])
        return await self.database.fetch(f"SELECT {columns} FROM {table} ORDER BY {columns}")

    async def is_empty(self) -> bool:
        """Say whether none of the bot's tables holds a row."""
        for table in TABLES:
            if await self.database.fetch(f"SELECT 1 FROM {table} LIMIT 1"):
                return False
        return True

    async def copy_from(self, source: Storage) -> dict[str, int]:
        """Copy every row of another storage into this empty one, all or nothing; count them."""
        if not await self.is_empty():
            raise StorageError(
                "The database to copy into already holds data: give an empty database, "
                "so nothing in it is mixed up or overwritten."
            )
        counts = {}
        async with self.database.transaction() as db:
            for table, columns in TABLES.items():
                rows = await source.rows(table)
                marks = ", ".join("?" for _ in columns)
                await db.executemany(
                    f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows
                )
                counts[table] = len(rows)
            await self.database.renumber(db)
        return counts


# A table's guild and channel never change: a save sets its state only, so SQLite leaves
# the guild index alone (a page less to log and sync at every move).
_UPSERT_TABLE = (
    "INSERT INTO running_tables (table_id, guild_id, channel_id, state, updated_at) "
    "VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (table_id) DO UPDATE SET state = excluded.state, "
    "updated_at = excluded.updated_at"
)


def _upsert_params(table: StoredTable) -> tuple[object, ...]:
    """Give `_UPSERT_TABLE` a table's values, stamped now."""
    return (table.table_id, table.guild_id, table.channel_id, table.text, _now())


_READ_GUILD_SETTINGS = (
    "SELECT preset, overrides, turn_seconds, idle_turns, host_may_pick_preset, "
    "remind_seconds, language, pictures FROM guild_settings WHERE guild_id = ?"
)


def _guild_settings(rows: list[Sequence[Any]]) -> GuildSettings:
    """Read a server's settings row, or give the defaults when it has none."""
    if not rows:
        return GuildSettings()
    [row] = rows
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
