"""The table service's store on a real SQLite file: save, restore in a new process, finish."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from bot import controls
from bot.storage import Storage
from bot.table_store import StorageTableStore
from bot.tables import Table, TableService, Timing
from tests.bot.test_tables import ANA, BEN, CID, FakeClock, Recorder, all_ready, config, phase

TIMING = Timing(lobby_seconds=600, setup_seconds=60, computer_delay=0.5, remind_before=20)


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "bot.sqlite3"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def storage(database: Path) -> AsyncIterator[Storage]:
    opened = await Storage.open(database)
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
            listener=recorder,
            timing=TIMING,
            clock=clock,
            sleep=clock.sleep,
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
    verb = "play" if offered.plays else "flip" if offered.flips else "pickup"
    player = (ANA, BEN, CID)[turn]
    await service.act(table.id, player.user_id, table.seats[turn].version, verb, (0,))


async def playing(service: TableService) -> Table:
    """Three members at a table in the play phase, one move made."""
    table = await service.create(10, 20, ANA, config(turn=60))
    for player in (BEN, CID):
        await service.join(table.id, player)
    await service.start(table.id, ANA)
    await all_ready(service, table, ANA, BEN, CID)
    await move(service, table)
    return table


async def test_every_action_is_saved_and_a_new_process_restores_it(
    database: Path, storage: Storage, services: Services
) -> None:
    service = services(storage, None)
    table = await playing(service)
    await service.shutdown()
    await storage.close()
    # A new process: a new connection to the file, a new service.
    reopened = await Storage.open(database)
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
        assert [t.version for t in await StorageTableStore(reopened).load()] == [again.version]
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

    await clock.advance(deadline - TIMING.remind_before - clock.now - 0.5)
    assert recorder.reminders == []
    await clock.advance(1)
    await soon(reminded)
    await clock.advance(deadline - clock.now - 0.5)
    assert again.seats[turn].timeouts == 0
    await clock.advance(1)
    assert again.seats[turn].timeouts == 1
    assert any("ran out of time" in line for line in again.log)

    async def saved() -> bool:
        (stored,) = await StorageTableStore(storage).load()
        return stored.to_json() == again.to_json()

    await soon(saved)


async def test_a_finished_game_is_recorded_and_no_longer_restored(
    storage: Storage, clock: FakeClock, services: Services
) -> None:
    service = services(storage, None)
    table = await playing(service)
    clock.now += 300
    await service.leave(table.id, BEN)
    assert phase(table) == "over"
    assert await storage.running_tables() == []
    assert await services(storage, None).restore() == []
    rows = {row.name: (row.games, row.losses) for row in await storage.leaderboard(10)}
    assert rows == {"Ana": (1, 0), "Ben": (1, 1), "Cid": (1, 0)}
    (played,) = await storage.played_games(10, BEN.user_id)
    assert played.loser and played.preset == "classic"
    # The others are placed in the order the engine finished them; the loser has no place.
    assert played.place is None
    places = [(await storage.played_games(10, p.user_id))[0].place for p in (ANA, BEN, CID)]
    assert places == [1, None, 2]


async def test_a_table_closed_without_a_result_is_forgotten(
    storage: Storage, services: Services
) -> None:
    service = services(storage, None)
    table = await service.create(10, 20, ANA, config())
    assert [t.table_id for t in await storage.running_tables()] == [table.id]
    await service.end(table.id, ANA)
    assert await storage.running_tables() == []
    assert await storage.leaderboard(10) == []
