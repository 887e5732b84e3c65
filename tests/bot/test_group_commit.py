"""SQLite's group commit: the table writes waiting together are stored in one transaction.

Each caller is still told of its own write: a failed commit fails every write of its
group (and the core puts each table back as stored), a statement that fails alone fails
only its own write, and the writes of one table land in the order they were asked for.
Faults are injected in SQLite itself: an authorizer that refuses COMMIT (as a full disk
refuses it), a trigger that refuses one table's row.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import bot.database
from bot.database import SqliteDatabase
from bot.storage import RunningRow, Storage, StoredTable
from bot.table_store import StorageTableStore
from tables.model import Table
from tables.service import TableService
from tests.bot.test_table_store import move, playing
from tests.tables.conftest import TIMING, FakeClock
from tests.tables.test_service import refused


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Storage]:
    opened = await Storage.open(tmp_path / "bot.sqlite3")
    yield opened
    await opened.close()


def sqlite_of(storage: Storage) -> SqliteDatabase:
    database = storage.database
    assert isinstance(database, SqliteDatabase)
    return database


def deny_commit(action: int, what: str | None, *_: Any) -> int:
    """Refuse every COMMIT, as a disk that is full or failing refuses it."""
    if action == sqlite3.SQLITE_TRANSACTION and what == "COMMIT":
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


async def on_thread(storage: Storage, name: str, *args: Any) -> None:
    """Call a method of the sqlite3 connection on its own thread."""
    database = sqlite_of(storage)
    await database._db._execute(getattr(database._db._conn, name), *args)  # type: ignore[no-untyped-call]


async def failing_disk(storage: Storage, failing: bool) -> None:
    """Make every commit fail, or work again."""
    await on_thread(storage, "set_authorizer", deny_commit if failing else None)


def state(table_id: str, version: int) -> StoredTable:
    return StoredTable(table_id, 1, 2, json.dumps({"version": version}))


@pytest.fixture
def commits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the writes each group commit carried."""
    counted: list[int] = []
    real = bot.database._commit_writes

    def counting(
        connection: sqlite3.Connection, writes: Sequence[tuple[str, Sequence[object]]]
    ) -> list[sqlite3.Error | None]:
        counted.append(len(writes))
        return real(connection, writes)

    monkeypatch.setattr(bot.database, "_commit_writes", counting)
    return counted


async def test_writes_waiting_together_are_committed_in_one_transaction(
    storage: Storage, commits: list[int]
) -> None:
    first = [asyncio.create_task(storage.save_table(state(f"t{i:02d}", i))) for i in range(20)]
    while not commits:  # the 20 asked for together are being committed together ...
        await asyncio.sleep(0.001)
    # ... and the 10 asked for meanwhile go in the next group.
    await asyncio.gather(*(storage.save_table(state(f"u{i:02d}", i)) for i in range(10)))
    await asyncio.gather(*first)
    assert commits == [20, 10]
    assert [row.text for row in await storage.running_tables()] == [
        json.dumps({"version": i}) for i in (*range(20), *range(10))
    ]


async def test_one_tables_writes_land_in_the_order_they_were_asked_for(
    storage: Storage, commits: list[int]
) -> None:
    await asyncio.gather(*(storage.save_table(state("t", version)) for version in range(1, 11)))
    assert commits == [10]
    assert await storage.running_tables() == [RunningRow("t", 1, 2, json.dumps({"version": 10}))]


async def test_under_load_writes_asked_for_a_moment_apart_share_one_commit(
    storage: Storage, commits: list[int]
) -> None:
    await storage.save_table(state("t", 1))  # a commit has just ended: the bot is busy
    first = asyncio.create_task(storage.save_table(state("a", 1)))
    await asyncio.sleep(0.001)  # the next move comes a moment later, during the gather
    await asyncio.gather(first, storage.save_table(state("b", 1)))
    assert commits == [1, 2]
    assert [row.table_id for row in await storage.running_tables()] == ["a", "b", "t"]


async def test_a_write_after_a_quiet_spell_is_committed_without_gathering(
    storage: Storage, commits: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot.database, "COMMIT_GATHER_SECONDS", 5.0)
    monkeypatch.setattr(bot.database, "COMMIT_BUSY_SECONDS", 0.05)
    await storage.save_table(state("t", 1))  # the first write of all does not gather
    await asyncio.sleep(0.1)  # a quiet spell, longer than COMMIT_BUSY_SECONDS
    await asyncio.wait_for(storage.save_table(state("t", 2)), 2.5)
    gathering = asyncio.create_task(storage.save_table(state("t", 3)))  # right after one
    await asyncio.sleep(0.5)
    assert commits == [1, 1] and not gathering.done()
    gathering.cancel()


async def test_a_failed_commit_fails_every_write_of_its_group_and_stores_none(
    storage: Storage, commits: list[int]
) -> None:
    for i in range(3):
        await storage.save_table(state(f"t{i}", 1))
    await failing_disk(storage, True)
    results = await asyncio.gather(
        *(storage.save_table(state(f"t{i}", 2)) for i in range(3)),
        storage.save_table(state("new", 2)),
        return_exceptions=True,
    )
    assert commits[3:] == [4]
    assert all(isinstance(each, sqlite3.DatabaseError) for each in results), results
    assert await storage.running_tables() == [
        RunningRow(f"t{i}", 1, 2, json.dumps({"version": 1})) for i in range(3)
    ]
    await failing_disk(storage, False)
    await asyncio.gather(*(storage.save_table(state(f"t{i}", 3)) for i in range(3)))
    assert {row.text for row in await storage.running_tables()} == {json.dumps({"version": 3})}


async def test_a_statement_that_fails_alone_fails_only_its_own_write(
    storage: Storage, commits: list[int]
) -> None:
    await storage.database.fetch(
        "CREATE TRIGGER refuse_bad BEFORE INSERT ON running_tables WHEN NEW.table_id = 'bad' "
        "BEGIN SELECT RAISE(ABORT, 'refused row'); END"
    )
    results = await asyncio.gather(
        storage.save_table(state("a", 1)),
        storage.save_table(state("b", 1)),
        storage.save_table(state("bad", 1)),
        storage.save_table(state("c", 1)),
        return_exceptions=True,
    )
    assert commits == [4]
    assert [type(each) for each in results] == [
        type(None),
        type(None),
        sqlite3.IntegrityError,
        type(None),
    ]
    assert [row.table_id for row in await storage.running_tables()] == ["a", "b", "c"]


async def test_a_cancelled_write_not_yet_taken_is_not_stored(storage: Storage) -> None:
    async with storage.database.transaction():  # the connection is busy: both wait
        first = asyncio.create_task(storage.save_table(state("a", 1)))
        second = asyncio.create_task(storage.save_table(state("b", 1)))
        await asyncio.sleep(0.01)
        second.cancel()
        await asyncio.sleep(0)
    await first
    with pytest.raises(asyncio.CancelledError):
        await second
    await storage.save_table(state("c", 1))
    assert [row.table_id for row in await storage.running_tables()] == ["a", "c"]


async def test_a_write_taken_into_a_commit_is_told_it_is_stored_if_its_leader_is_cancelled(
    storage: Storage,
) -> None:
    database = sqlite_of(storage)
    # The thread is busy a while, so the commit waits on its queue when the leader stops.
    busy = asyncio.ensure_future(on_thread(storage, "execute", "SELECT 1"))
    database._db._tx.put_nowait((None, lambda: time.sleep(0.2)))
    write = asyncio.create_task(storage.save_table(state("a", 1)))
    await asyncio.sleep(0.05)
    assert database._leader is not None and not database._waiting  # taken into the commit
    database._leader.cancel()
    await write
    await busy
    assert [row.table_id for row in await storage.running_tables()] == ["a"]


async def test_a_write_after_the_database_is_closed_fails(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "closed.sqlite3")
    await storage.close()
    with pytest.raises(ValueError, match="closed"):
        await asyncio.wait_for(storage.save_table(state("a", 1)), 5)


async def test_moves_of_two_tables_in_a_failed_group_are_each_undone_and_work_after(
    storage: Storage,
) -> None:
    clock = FakeClock()
    made = [
        TableService(
            store=StorageTableStore(storage),
            timing=TIMING,
            clock=clock,
            later=clock.later,
            seeds=lambda: 7,
        )
        for _ in range(2)
    ]
    try:
        tables = [await playing(service) for service in made]
        before = [table.to_json() for table in tables]
        await failing_disk(storage, True)
        for outcome in await asyncio.gather(
            *(move(service, table) for service, table in zip(made, tables, strict=True)),
            return_exceptions=True,
        ):
            await refused("not_saved", raised(outcome))
        stored = {
            each.table_id: Table.from_json(json.loads(each.text)).to_json()
            for each in await StorageTableStore(storage).load()
        }
        assert [table.to_json() for table in tables] == before
        assert [stored[table.id] for table in tables] == before
        await failing_disk(storage, False)
        for service, table in zip(made, tables, strict=True):
            moves = table.game.moves if table.game else 0
            await move(service, table)
            assert table.game is not None and table.game.moves == moves + 1
    finally:
        for service in made:
            await service.shutdown()


async def raised(outcome: object) -> None:
    """Raise what a gathered call raised."""
    if isinstance(outcome, BaseException):
        raise outcome


GROUP_WRITER = """
import asyncio, json, sys
from bot.storage import Storage, StoredTable

async def main() -> None:
    storage = await Storage.open(sys.argv[1])
    version = 0
    while True:
        version += 1
        state = {"version": version, "hands": [[version] * 13 for _ in range(6)]}
        await asyncio.gather(
            *(storage.save_table(StoredTable(f"t{i}", 1, 2, json.dumps(state))) for i in range(8))
        )
        print(version, flush=True)

asyncio.run(main())
"""


async def test_a_killed_process_keeps_every_write_of_the_groups_it_was_told_of(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.sqlite3"
    process = subprocess.Popen(
        [sys.executable, "-c", GROUP_WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    told = 0
    while told < 25:
        told = int(process.stdout.readline())
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    storage = await Storage.open(path)
    try:
        rows = await storage.running_tables()
    finally:
        await storage.close()
    assert [row.table_id for row in rows] == [f"t{i}" for i in range(8)]
    for row in rows:
        state = json.loads(row.text)
        assert state["version"] >= told
        assert state["hands"] == [[state["version"]] * 13 for _ in range(6)]


async def test_a_table_saved_again_rewrites_one_page(storage: Storage, tmp_path: Path) -> None:
    # A table's guild and channel never change: its save leaves the guild index alone, so a
    # commit writes the table's own page to the log, not that index's page too.
    for i in range(20):
        await storage.save_table(StoredTable(f"t{i:02d}", i % 3, i, json.dumps({"i": i})))
    wal = tmp_path / "bot.sqlite3-wal"
    before = wal.stat().st_size
    await storage.save_table(StoredTable("t07", 1, 7, json.dumps({"i": 8})))
    [[page_size]] = await storage.database.fetch("PRAGMA page_size")
    assert wal.stat().st_size - before == page_size + 24  # one frame: its header and page
