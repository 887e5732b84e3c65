"""The table service's store on SQLite and PostgreSQL: save, restore in a new process, finish."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from bot.database import DatabaseUrl
from bot.storage import Storage
from bot.table_store import StorageTableStore
from tables import controls
from tables.intents import End, FlipCard, Join, Leave, PickUpPile, PlayCards, Start
from tables.model import Table
from tables.service import TableService
from tests.tables.conftest import TIMING, FakeClock, Recorder
from tests.tables.test_service import ANA, BEN, CID, all_ready, config, phase


async def stored(storage: Storage) -> list[Table]:
    """Read the running tables back as the core reads them."""
    return [
        Table.from_json(json.loads(state.text)) for state in await StorageTableStore(storage).load()
    ]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def storage(database_url: DatabaseUrl) -> AsyncIterator[Storage]:
    opened = await Storage.open(database_url)
    yield opened
    await opened.close()


Services = Callable[[Storage, Recorder | None], TableService]


@pytest.fixture
async def services(clock: FakeClock, storage: Storage) -> AsyncIterator[Services]:
    """Make table services on a storage (one per "process"); stop their timers at the end."""
    made: list[TableService] = []

    def make(storage: Storage, recorder: Recorder | None = None) -> TableService:
        service = TableService(
            store=StorageTableStore(storage),
            sink=recorder,
            timing=TIMING,
            clock=clock,
            later=clock.later,
            seeds=lambda: 7,
        )
        made.append(service)
        return service

    yield make
    for service in made:
        await service.shutdown()


async def soon(condition: Callable[[], Awaitable[bool]]) -> None:
    """Wait for a timer's effect that goes through the database's thread."""
    async with asyncio.timeout(5):
        while not await condition():
            await asyncio.sleep(0.01)


async def move(service: TableService, table: Table) -> None:
    """The player to act makes the simplest move their view offers."""
    assert table.game is not None and table.game.turn is not None
    turn = table.game.turn
    offered = controls.controls(table.view(turn))
    intent = PlayCards(0) if offered.plays else FlipCard(0) if offered.flips else PickUpPile(0)
    player = (ANA, BEN, CID)[turn]
    await service.submit(table.id, player, intent, table.seats[turn].version)


async def playing(service: TableService) -> Table:
    """Three members at a table in the play phase, one move made."""
    created = await service.create(10, 20, ANA, config(turn=60))
    table = service.get(created.snapshot.id)
    for player in (BEN, CID):
        await service.submit(table.id, player, Join())
    await service.submit(table.id, ANA, Start())
    await all_ready(service, table, ANA, BEN, CID)
    await move(service, table)
    return table


async def test_every_action_is_saved_and_a_new_process_restores_it(
    database_url: DatabaseUrl, storage: Storage, services: Services
) -> None:
    service = services(storage, None)
    table = await playing(service)
    await service.shutdown()
    await storage.close()
    # A new process: a new connection to the database, a new service.
    reopened = await Storage.open(database_url)
    try:
        fresh = services(reopened, Recorder())
        restored = await fresh.restore()
        assert [t.to_json() for t in restored] == [table.to_json()]
        again = fresh.get(table.id)
        assert again.game is not None and table.game is not None
        assert again.game.hands == table.game.hands
        assert fresh.in_channel(20) is again
        # Its clicks work: the player to act moves with the version their view shows.
        moves = again.game.moves
        await move(fresh, again)
        assert again.game.moves == moves + 1
        assert [t.version for t in await stored(reopened)] == [again.version]
        await fresh.shutdown()
    finally:
        await reopened.close()


async def test_a_restored_turn_timer_runs_from_its_stored_deadline(
    storage: Storage, clock: FakeClock, services: Services
) -> None:
    service = services(storage, None)
    table = await playing(service)
    await service.shutdown()
    deadline = table.deadline
    assert deadline is not None and table.game is not None
    turn = table.game.turn
    assert turn is not None
    await clock.advance(12)  # the bot was down for a while
    recorder = Recorder()
    fresh = services(storage, recorder)
    (again,) = await fresh.restore()
    assert again.deadline == deadline

    async def reminded() -> bool:
        return recorder.reminders == [turn]

    # The turn is 60 s and the reminder comes 30 s into it.
    await clock.advance(deadline - 30 - clock.now - 0.5)
    assert recorder.reminders == []
    await clock.advance(1)
    await soon(reminded)
    await clock.advance(deadline - clock.now - 0.5)
    assert again.seats[turn].timeouts == 0
    await clock.advance(1)
    assert again.seats[turn].timeouts == 1
    assert "timed_out" in [note.code for note in again.log]

    async def saved() -> bool:
        (table,) = await stored(storage)
        return table.to_json() == again.to_json()

    await soon(saved)


async def test_a_finished_game_is_recorded_and_restored_only_as_ended(
    storage: Storage, clock: FakeClock, services: Services
) -> None:
    service = services(storage, None)
    table = await playing(service)
    clock.now += 300
    await service.submit(table.id, BEN, Leave())
    assert phase(table) == "over"
    assert await storage.running_tables() == []
    fresh = services(storage, None)
    assert [(t.id, t.phase) for t in await fresh.restore()] == [(table.id, "over")]
    assert fresh.tables == {}
    rows = {row.name: (row.games, row.losses) for row in await storage.leaderboard(10)}
    assert rows == {"Ana": (1, 0), "Ben": (1, 1), "Cid": (1, 0)}
    (played,) = await storage.played_games(10, BEN.user_id)
    assert played.loser and played.preset == "classic"
    # The others are placed in the order the engine finished them; the loser has no place.
    assert played.place is None
    places = [(await storage.played_games(10, p.user_id))[0].place for p in (ANA, BEN, CID)]
    assert places == [1, None, 2]


async def test_an_ended_tables_json_is_read_once_at_start_with_its_rating_changes(
    storage: Storage, clock: FakeClock, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = services(storage, None)
    table = await playing(service)
    clock.now += 300
    await service.submit(table.id, BEN, Leave())
    assert phase(table) == "over"
    read = Table.from_json
    reads: list[str] = []

    def counted(data: dict[str, object]) -> Table:
        reads.append(str(data.get("id")))
        return read(data)

    monkeypatch.setattr(Table, "from_json", staticmethod(counted))
    fresh = services(storage, None)
    assert [t.id for t in await fresh.restore()] == [table.id]
    assert reads == [table.id]
    store = fresh.store
    assert isinstance(store, StorageTableStore)
    changes = store.rating_changes[table.id]
    assert len(changes) == len(table.seats)


async def test_a_table_closed_without_a_result_is_forgotten(
    storage: Storage, services: Services
) -> None:
    service = services(storage, None)
    created = await service.create(10, 20, ANA, config())
    assert [t.table_id for t in await storage.running_tables()] == [created.snapshot.id]
    await service.submit(created.snapshot.id, ANA, End())
    assert await storage.running_tables() == []
    assert await storage.leaderboard(10) == []


async def test_a_corrupt_row_is_set_aside_and_the_bot_still_starts(
    storage: Storage, services: Services
) -> None:
    service = services(storage, None)
    table = await playing(service)
    await service.shutdown()
    async with storage.database.transaction() as db:
        await db.execute(
            "INSERT INTO running_tables (table_id, guild_id, channel_id, state, updated_at) "
            "VALUES ('bad1', 10, 21, '{\"format\": 2, \"seats\": 5', 'now')"
        )
    fresh = services(storage, None)
    assert [t.id for t in await fresh.restore()] == [table.id]
    rows = await storage.database.fetch(
        "SELECT table_id, unreadable IS NOT NULL FROM running_tables ORDER BY table_id"
    )
    assert {row[0]: bool(row[1]) for row in rows} == {"bad1": True, table.id: False}
    # Set aside, it is not read again at the next start.
    assert [t.table_id for t in await storage.running_tables()] == [table.id]
