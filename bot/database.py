"""The two SQL databases the bot can keep its state in: SQLite (one process) and PostgreSQL.

`bot.storage` writes its statements once, with `?` placeholders, in the SQL both dialects
share. What differs between them lives here, once each: connecting, transactions, how the
schema version is kept, how migrations run, how a bot process holds its shards (and checks
it still does before a write), notifications between processes, and the statement that
renumbers after a copy.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit, urlunsplit

import aiosqlite

if TYPE_CHECKING:
    # Imported where PostgreSQL is used: a bot on SQLite never loads it (about 2.9 MB).
    import asyncpg  # type: ignore[import-untyped]


# SQLite's page cache per connection, in KiB.
SQLITE_CACHE_KIB = 512
# Under load, a group commit waits a moment for more writes so that they share its fsync and
# its trip to the database's thread (PostgreSQL's commit_delay): a group whose last commit
# ended under COMMIT_BUSY_SECONDS ago waits COMMIT_GATHER_SECONDS first; a write after a quiet
# spell is committed at once.
COMMIT_BUSY_SECONDS = 0.05
COMMIT_GATHER_SECONDS = 0.004

log = logging.getLogger(__name__)


def _packaged_migrations() -> Path:
    """Find the folder of the `migrations` package, whose SQL files ship as package data."""
    folder = resources.files("migrations")
    # Installed on disk (as pip does), the package is a folder and importlib gives a Path.
    return folder if isinstance(folder, Path) else Path(str(folder))


# SQLite's migrations are the package's own files; PostgreSQL's mirror them number for number.
MIGRATIONS_DIR = _packaged_migrations()
POSTGRESQL_MIGRATIONS_DIR = MIGRATIONS_DIR / "postgresql"
_MIGRATION_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
# The files SQLite keeps beside a database (WAL mode, and a rollback journal).
_SIDE_FILES = ("-wal", "-shm", "-journal")
# The advisory locks of a PostgreSQL database: one process at a time migrates it or claims
# shards; a bot process holds each shard it runs, and shares the lock of its shard count.
_MIGRATION_LOCK = 0x5348_4954  # "SHIT"
_SHARD_LOCK = 0x5348_4955
_SHARD_COUNT_LOCK = 0x5348_4956
# Held while games are rated: every process rates the unrated games, one at a time.
_RATING_LOCK = 0x5348_4957
_PLACEHOLDER = re.compile(r"\?")
Dialect = Literal["sqlite", "postgresql"]


def shard_of(guild_id: int, shard_count: int) -> int:
    """Say which shard Discord sends a guild's events on."""
    return (guild_id >> 22) % shard_count


class StorageError(Exception):
    """The database cannot be used by this version of the bot; the message says why."""


@dataclass(frozen=True)
class Migration:
    """One numbered schema change read from `NNNN_name.sql`."""

    version: int
    name: str
    sql: str


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


@dataclass(frozen=True)
class DatabaseUrl:
    """Where the bot's state is: `sqlite:///path` (a file) or `postgresql://…` (a server)."""

    dialect: Dialect
    # The SQLite file's path, or the PostgreSQL connection string as given.
    target: str

    EXPECTED = (
        "a database URL is sqlite:///path/to/file.sqlite3 (a file) or "
        "postgresql://user:password@host:5432/database (a server)"
    )

    @classmethod
    def parse(cls, text: str) -> DatabaseUrl:
        """Read a URL; a wrong one raises `ValueError` saying what a URL looks like."""
        text = text.strip()
        if text.startswith("sqlite:///") and len(text) > len("sqlite:///"):
            return cls("sqlite", text.removeprefix("sqlite:///"))
        parts = urlsplit(text)
        if parts.scheme in ("postgresql", "postgres") and (parts.netloc or parts.query):
            try:
                parts.port  # noqa: B018 (reading it checks the port)
            except ValueError:
                raise ValueError(f"its port is not a number ({cls.EXPECTED})") from None
            return cls("postgresql", text)
        raise ValueError(cls.EXPECTED)

    @classmethod
    def sqlite(cls, path: Path | str) -> DatabaseUrl:
        """Name an SQLite file."""
        return cls("sqlite", str(path))

    def __repr__(self) -> str:
        """Show the URL without its password."""
        return f"DatabaseUrl({self.shown()!r})"

    @property
    def path(self) -> Path:
        """The SQLite file (only for `sqlite`)."""
        assert self.dialect == "sqlite"
        return Path(self.target)

    def shown(self) -> str:
        """Write the URL for logs and messages, without its password."""
        if self.dialect == "sqlite":
            return f"sqlite:///{self.target}"
        parts = urlsplit(self.target)
        if parts.password is None:
            return self.target
        user = parts.username or ""
        host = parts.netloc.rsplit("@", 1)[1]
        return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


class Connection(ABC):
    """One connection inside a transaction, taking `?` placeholders in either dialect."""

    @abstractmethod
    async def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run one statement; return how many rows it changed."""

    @abstractmethod
    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        """Run one statement once per row of parameters."""

    @abstractmethod
    async def fetch(self, sql: str, params: Sequence[object] = ()) -> list[Sequence[Any]]:
        """Run one statement and read the rows it gives."""


class Database(ABC):
    """A database of one dialect: transactions, reads, its schema version and migrations."""

    dialect: Dialect

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Connection]:
        """Run statements as one transaction: all of them or, if the block raises, none."""

    @abstractmethod
    async def fetch(self, sql: str, params: Sequence[object] = ()) -> list[Sequence[Any]]:
        """Read rows, never seeing another transaction's unfinished writes."""

    @abstractmethod
    async def close(self) -> None:
        """Close the connections."""

    @abstractmethod
    async def schema_version(self) -> int:
        """Read the schema version kept in the database."""

    @abstractmethod
    async def claim(self, shards: Sequence[int], shard_count: int) -> None:
        """Hold this process's shards until it closes; refuse shards another process runs."""

    @abstractmethod
    async def check_owner(self, connection: Connection, guild_id: int) -> None:
        """Refuse, in a write's transaction, to write a guild's table this process lost."""

    async def write(self, guild_id: int, sql: str, params: Sequence[object]) -> None:
        """Run one statement of a guild's as a transaction, if this process still owns it."""
        async with self.transaction() as db:
            await self.check_owner(db, guild_id)
            await db.execute(sql, params)

    @abstractmethod
    async def hold_ratings(self, connection: Connection) -> None:
        """Hold the ratings until the transaction ends: processes rate games one at a time."""

    @abstractmethod
    def _migrating(self) -> AbstractAsyncContextManager[None]:
        """Hold the database for migrations, so one process at a time migrates it."""

    @abstractmethod
    async def _apply(self, migration: Migration) -> None:
        """Apply one migration and set the schema version, all or nothing."""

    @staticmethod
    def _errors() -> tuple[type[Exception], ...]:
        """Name the errors the database's driver raises for a failed statement."""
        return (sqlite3.Error,)

    @abstractmethod
    async def renumber(self, connection: Connection) -> None:
        """Let new games take ids after the highest one copied in."""

    async def migrate(self, migrations: list[Migration], target: int | None = None) -> int:
        """Apply the migrations the database lacks, each in one transaction; give the version."""
        latest = migrations[-1].version if migrations else 0
        target = latest if target is None else target
        async with self._migrating():
            current = await self.schema_version()
            if current > latest:
                raise StorageError(
                    f"The database is at schema version {current}, newer than this bot knows "
                    f"(up to {latest}). Run a newer version of the bot, or point DATABASE_URL "
                    "(or DATABASE_PATH) at another database."
                )
            for migration in migrations:
                if current < migration.version <= target:
                    try:
                        await self._apply(migration)
                    except self._errors() as exc:
                        raise StorageError(
                            f"migration {migration.version:04d}_{migration.name} failed: {exc}"
                        ) from exc
                    current = migration.version
        return current


class _SqliteConnection(Connection):
    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    async def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run one statement; return how many rows it changed."""
        cursor = await self._db.execute(sql, params)
        return cursor.rowcount

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        """Run one statement once per row of parameters."""
        await self._db.executemany(sql, rows)

    async def fetch(self, sql: str, params: Sequence[object] = ()) -> list[Sequence[Any]]:
        """Run one statement and read the rows it gives."""
        async with self._db.execute(sql, params) as cursor:
            return list(await cursor.fetchall())


# One write waiting for the next group commit: its statement, and the future that tells its
# caller whether it was stored.
_Write = tuple[str, Sequence[object], "asyncio.Future[None]"]


def _commit_writes(
    connection: sqlite3.Connection, writes: Sequence[tuple[str, Sequence[object]]]
) -> list[sqlite3.Error | None]:
    """Run the writes in one transaction on the database's thread; give each one's error.

    A statement that fails is undone alone (its savepoint) and the others are committed; if
    the transaction itself fails (the commit: disk full, I/O error), it raises and none is.
    """
    errors: list[sqlite3.Error | None] = []
    connection.execute("BEGIN IMMEDIATE")
    try:
        for sql, params in writes:
            connection.execute("SAVEPOINT one_write")
            try:
                connection.execute(sql, params)
            except sqlite3.Error as exc:
                connection.execute("ROLLBACK TO one_write")
                errors.append(exc)
            else:
                errors.append(None)
            connection.execute("RELEASE one_write")
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    return errors


class _GroupCommit(asyncio.Future[list[sqlite3.Error | None]]):
    """A group commit's outcome: each of its writes is told whether it was stored as it is set.

    aiosqlite's thread sets it through the loop; telling the writes right then, not in a done
    callback, saves the loop a turn per commit. The writes are told even if the leader that
    waits for `ended` was cancelled: the thread finishes the commit regardless.
    """

    def __init__(self, writes: Sequence[_Write], loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop=loop)
        self.writes = writes
        self.ended: asyncio.Future[None] = loop.create_future()

    def set_result(self, result: list[sqlite3.Error | None], /) -> None:
        """Keep each write's error (None: stored) and tell it."""
        super().set_result(result)
        for (_sql, _params, done), error in zip(self.writes, result, strict=True):
            if done.done():
                continue
            if error is None:
                done.set_result(None)
            else:
                done.set_exception(error)
        self._end()

    def set_exception(self, exception: type | BaseException, /) -> None:
        """Keep the error of a commit that stored none of its writes, and tell each."""
        super().set_exception(exception)
        for _sql, _params, done in self.writes:
            if not done.done():
                done.set_exception(exception)
        self._end()

    def _end(self) -> None:
        """Wake the leader for the next group."""
        if not self.ended.done():  # its leader waits for this, unless it was cancelled
            self.ended.set_result(None)


class SqliteDatabase(Database):
    """One aiosqlite connection; one coroutine at a time uses it.

    Single-statement writes (a table stored after a move) are committed in groups: every
    write waiting when the connection comes free goes in one transaction, in one call on the
    database's thread, and each caller is told whether its own write was stored.
    """

    dialect: Dialect = "sqlite"

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._connection = _SqliteConnection(db)
        self._lock = asyncio.Lock()
        # The writes waiting for the next group commit, in the order they were asked for ...
        self._waiting: list[_Write] = []
        # ... and the one task that commits them, group after group, while any wait ...
        self._leader: asyncio.Task[None] | None = None
        # ... and when (loop time) the last group commit ended, to tell load from a quiet spell.
        self._ended_at = float("-inf")

    @classmethod
    async def open(cls, path: Path | str, migrations: list[Migration]) -> SqliteDatabase:
        """Open (creating) the file with WAL and foreign keys on, and migrate it.

        If that fails, a database file this call created is removed again; a file that was
        there before is left as it was.
        """
        created: list[Path] = []
        if str(path) != ":memory:":
            file = Path(path)
            file.parent.mkdir(parents=True, exist_ok=True)
            if not file.exists():
                created = [file, *(Path(f"{file}{suffix}") for suffix in _SIDE_FILES)]
        db = await aiosqlite.connect(str(path), isolation_level=None)
        database = cls(db)
        try:
            await db.execute("PRAGMA journal_mode = WAL")
            await db.execute("PRAGMA synchronous = FULL")
            await db.execute("PRAGMA foreign_keys = ON")
            await db.execute("PRAGMA busy_timeout = 5000")
            # A page cache of 512 KiB, not SQLite's 2 MiB: a write touches a few pages of a
            # small file the system caches anyway, and the bot's memory is counted.
            await db.execute(f"PRAGMA cache_size = {-SQLITE_CACHE_KIB}")
            await database.migrate(migrations)
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
        return database

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        """Run statements as one transaction that no other coroutine interleaves with."""
        async with self._lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._connection
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            await self._db.execute("COMMIT")

    async def fetch(self, sql: str, params: Sequence[object] = ()) -> list[Sequence[Any]]:
        """Read rows, never in the middle of another coroutine's transaction."""
        async with self._lock:
            return await self._connection.fetch(sql, params)

    async def close(self) -> None:
        """Close the connection."""
        await self._db.close()

    async def claim(self, shards: Sequence[int], shard_count: int) -> None:
        """Nothing to hold here: `bot.instance` locks the file, with every shard, beforehand."""

    async def check_owner(self, connection: Connection, guild_id: int) -> None:
        """Nothing to check: the file's lock is held until the process ends."""

    async def write(self, guild_id: int, sql: str, params: Sequence[object]) -> None:
        """Run a statement in the next group commit; raise its own error if it was not stored.

        One task (`_lead`) waits for the connection and commits every write waiting, in
        order, group after group; the writers only wait for their own outcome (with a waiter
        each on the connection's lock, every commit would wake them all in turn to find
        theirs done). No owner to check (`check_owner`): the file is ours.
        """
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        write = (sql, params, done)
        self._waiting.append(write)
        if self._leader is None:
            self._leader = asyncio.create_task(self._lead(), name="sqlite-group-commit")
        try:
            await done
        except asyncio.CancelledError:
            if write in self._waiting:  # never taken into a commit: it is not made
                self._waiting.remove(write)
            raise

    async def _lead(self) -> None:
        """Commit the waiting writes, a group at a time, until none wait."""
        loop = asyncio.get_running_loop()
        try:
            while self._waiting:
                if loop.time() - self._ended_at < COMMIT_BUSY_SECONDS:
                    await asyncio.sleep(COMMIT_GATHER_SECONDS)  # under load: gather more
                async with self._lock:
                    writes, self._waiting = self._waiting, []
                    commit = _GroupCommit(writes, loop)
                    db = self._db
                    if db._running and db._connection is not None:
                        # One call on aiosqlite's thread, queued as its `_execute` queues one
                        # (aiosqlite 0.22's internals, pinned): no task to run and await it.
                        work = partial(_commit_writes, db._conn, [w[:2] for w in writes])
                        db._tx.put_nowait((commit, work))
                    else:
                        commit.set_exception(ValueError("Connection closed"))
                    await commit.ended
                self._ended_at = loop.time()
        finally:
            self._leader = None
            # Cancelled (the bot stopping) before taking them: these writes are not made.
            waiting, self._waiting = self._waiting, []
            for _sql, _params, done in waiting:
                done.cancel()

    async def hold_ratings(self, connection: Connection) -> None:
        """Nothing to hold: one process owns the file, and its transactions take turns."""

    async def schema_version(self) -> int:
        """Read `PRAGMA user_version`, where SQLite keeps the schema version."""
        [row] = await self.fetch("PRAGMA user_version")
        return int(row[0])

    @asynccontextmanager
    async def _migrating(self) -> AsyncIterator[None]:
        """Nothing to hold: one process owns the file (`bot.instance`)."""
        yield

    async def _apply(self, migration: Migration) -> None:
        """Run the file as written, version included, in one transaction."""
        async with self._lock:
            try:
                # BEGIN..COMMIT makes the script all or nothing (PRAGMA user_version is
                # transactional).
                await self._db.executescript(
                    f"BEGIN IMMEDIATE;\n{migration.sql}\n"
                    f"PRAGMA user_version = {migration.version:d};\nCOMMIT;"
                )
            except sqlite3.Error:
                if self._db.in_transaction:
                    await self._db.execute("ROLLBACK")
                raise

    async def renumber(self, connection: Connection) -> None:
        """Nothing to do: SQLite gives a new row the highest id plus one."""


def _numbered(sql: str) -> str:
    """Turn `?` placeholders into PostgreSQL's `$1`, `$2`, …"""
    count = 0

    def number(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    return _PLACEHOLDER.sub(number, sql)


class _PostgresConnection(Connection):
    def __init__(self, connection: asyncpg.Connection) -> None:
        self._connection = connection

    async def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run one statement; return how many rows it changed (the status's last number)."""
        status: str = await self._connection.execute(_numbered(sql), *params)
        count = status.rsplit(" ", 1)[-1]
        return int(count) if count.isdigit() else 0

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        """Run one statement once per row of parameters."""
        await self._connection.executemany(_numbered(sql), list(rows))

    async def fetch(self, sql: str, params: Sequence[object] = ()) -> list[Sequence[Any]]:
        """Run one statement and read the rows it gives."""
        return list(await self._connection.fetch(_numbered(sql), *params))


class PostgresDatabase(Database):
    """A pool of asyncpg connections to a PostgreSQL server, shared with other processes."""

    dialect: Dialect = "postgresql"

    @staticmethod
    def _errors() -> tuple[type[Exception], ...]:
        """Name the errors asyncpg raises for a failed statement."""
        import asyncpg

        return (asyncpg.PostgresError,)

    def __init__(self, pool: asyncpg.Pool, shown: str) -> None:
        self._pool = pool
        self._shown = shown
        self._held: asyncpg.Connection | None = None
        # The server process of the held connection, and the shard count claimed with it.
        self._holder: tuple[int, int] | None = None
        self._listeners: list[tuple[str, Callable[..., None]]] = []
        # Notifications go out on the held connection, one at a time, not behind the pool's
        # transactions.
        self._notifying = asyncio.Lock()

    @classmethod
    async def open(
        cls, url: DatabaseUrl, migrations: list[Migration], pool_size: int = 5
    ) -> PostgresDatabase:
        """Connect and migrate; a server that cannot be reached or refuses is one sentence."""
        import asyncpg

        try:
            pool = await asyncpg.create_pool(url.target, min_size=1, max_size=pool_size, timeout=10)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as exc:
            raise StorageError(
                f"Cannot use the PostgreSQL database {url.shown()} ({exc}): check DATABASE_URL "
                "and that the server runs."
            ) from exc
        database = cls(pool, url.shown())
        try:
            await database.migrate(migrations)
        except BaseException:
            await pool.close()
            raise
        return database

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        """Run statements as one transaction on one pooled connection."""
        async with self._pool.acquire() as connection, connection.transaction():
            yield _PostgresConnection(connection)

    async def fetch(self, sql: str, params: Sequence[object] = ()) -> list[Sequence[Any]]:
        """Read rows as committed (each statement sees only finished transactions)."""
        return list(await self._pool.fetch(_numbered(sql), *params))

    async def close(self) -> None:
        """Let the database go, and close the pool."""
        if self._held is not None:
            held, self._held = self._held, None
            try:
                for channel, callback in self._listeners:
                    await held.remove_listener(channel, callback)
                await self._pool.release(held)
            except Exception:  # asyncpg's release fails in several ways on an ended connection
                # The server ended the held connection (its shards were taken): the pool has
                # dropped it already, and still closes.
                log.debug("the held connection was ended by the server", exc_info=True)
        await self._pool.close()

    async def claim(self, shards: Sequence[int], shard_count: int) -> None:
        """Hold one advisory lock per shard on one connection; the server drops them if we die.

        Every process must count the shards alike, or one guild would be two processes'.
        """
        connection = await self._pool.acquire()
        try:
            # One process at a time claims, so two cannot both see no other shard count.
            await connection.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
            try:
                await self._claim(connection, shards, shard_count)
            finally:
                await connection.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)
        except BaseException:
            # Back in the pool, the connection is reset: every lock it took goes.
            await self._pool.release(connection)
            raise
        self._held = connection
        self._holder = (connection.get_server_pid(), shard_count)

    async def hold_ratings(self, connection: Connection) -> None:
        """Take the ratings' advisory lock for the transaction (it goes at its end)."""
        await connection.fetch("SELECT pg_advisory_xact_lock(?)", (_RATING_LOCK,))

    async def check_owner(self, connection: Connection, guild_id: int) -> None:
        """Refuse the write unless our held connection still holds the guild's shard.

        Its lock goes if that connection dies (the network, the server); another process
        may then run the shard, and this one must not write over what that one writes.
        """
        if self._holder is None:
            return  # a tool (python -m bot.migrate) or a test, not a bot running shards
        pid, shard_count = self._holder
        shard = shard_of(guild_id, shard_count)
        held = await connection.fetch(
            "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = ? "
            "AND objid = ? AND objsubid = 2 AND pid = ? AND granted",
            (_SHARD_LOCK, shard, pid),
        )
        if not held:
            raise StorageError(
                f"This process no longer holds shard {shard} on {self._shown} (its connection "
                "was lost): it writes nothing more there, so restart it."
            )

    async def _claim(
        self, connection: asyncpg.Connection, shards: Sequence[int], shard_count: int
    ) -> None:
        rows = await connection.fetch(
            "SELECT DISTINCT objid::BIGINT FROM pg_locks WHERE locktype = 'advisory' "
            "AND classid = $1 AND objsubid = 2 AND granted AND database = "
            "(SELECT oid FROM pg_database WHERE datname = current_database())",
            _SHARD_COUNT_LOCK,
        )
        others = sorted({row[0] for row in rows} - {shard_count})
        if others:
            raise StorageError(
                f"Other bot processes on {self._shown} count {others[0]} shards, and this one "
                f"{shard_count} (SHARD_COUNT): give every process the same SHARD_COUNT, and stop "
                "them all to change it."
            )
        await connection.execute(
            "SELECT pg_advisory_lock_shared($1, $2)", _SHARD_COUNT_LOCK, shard_count
        )
        for shard in shards:
            if not await connection.fetchval(
                "SELECT pg_try_advisory_lock($1, $2)", _SHARD_LOCK, shard
            ):
                raise StorageError(
                    f"Another bot process runs shard {shard} on {self._shown}: give each "
                    "process shards of its own (SHARD_IDS), or stop the other one first."
                )

    async def notify(self, notes: Sequence[tuple[str, str]]) -> None:
        """Send notifications (channel, payload) to the processes listening, in one round trip."""
        channels, payloads = [note[0] for note in notes], [note[1] for note in notes]
        sql = "SELECT pg_notify(c, p) FROM unnest($1::TEXT[], $2::TEXT[]) AS notes (c, p)"
        import asyncpg

        try:
            if self._held is None:
                await self._pool.execute(sql, channels, payloads)
            else:
                async with self._notifying:
                    await self._held.execute(sql, channels, payloads)
        except (asyncpg.PostgresError, asyncpg.InterfaceError) as exc:  # too long; connection lost
            raise StorageError(f"cannot notify {sorted(set(channels))}: {exc}") from exc

    async def listen(self, channel: str, heard: Callable[[str], None]) -> None:
        """Hear a channel's notifications on the claimed connection, while this process runs."""
        assert self._held is not None, "claim the shards first"

        def callback(_connection: object, _pid: int, _channel: str, payload: str) -> None:
            heard(payload)

        await self._held.add_listener(channel, callback)
        self._listeners.append((channel, callback))

    async def schema_version(self) -> int:
        """Read the version row of `schema_version` (0 before the first migration)."""
        async with self._pool.acquire() as connection:
            await self._version_table(connection)
            version = await connection.fetchval("SELECT max(version) FROM schema_version")
        return int(version or 0)

    @staticmethod
    async def _version_table(connection: asyncpg.Connection) -> None:
        await connection.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
        )

    @asynccontextmanager
    async def _migrating(self) -> AsyncIterator[None]:
        """Hold a session advisory lock: other processes wait, then find the schema current."""
        async with self._pool.acquire() as connection:
            await connection.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
            try:
                yield
            finally:
                await connection.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)

    async def _apply(self, migration: Migration) -> None:
        """Run the file (DDL is transactional in PostgreSQL) and the new version, as one."""
        async with self._pool.acquire() as connection, connection.transaction():
            await self._version_table(connection)
            await connection.execute(migration.sql)
            await connection.execute("DELETE FROM schema_version")
            await connection.execute(
                "INSERT INTO schema_version (version) VALUES ($1)", migration.version
            )

    async def renumber(self, connection: Connection) -> None:
        """Move the games' identity past the highest id copied in."""
        await connection.fetch(
            "SELECT setval(pg_get_serial_sequence('games', 'id'), COALESCE(MAX(id), 0) + 1, "
            "false) FROM games"
        )


async def open_database(url: DatabaseUrl, migrations: list[Migration] | None = None) -> Database:
    """Connect to the database a URL names and migrate it (by default to the newest version)."""
    migrations = migrations_for(url.dialect) if migrations is None else migrations
    if url.dialect == "sqlite":
        return await SqliteDatabase.open(url.target, migrations)
    return await PostgresDatabase.open(url, migrations)


def migrations_for(dialect: Dialect) -> list[Migration]:
    """Read the packaged migrations of a dialect."""
    return load_migrations(MIGRATIONS_DIR if dialect == "sqlite" else POSTGRESQL_MIGRATIONS_DIR)
