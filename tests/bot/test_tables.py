"""The table service without Discord: lobbies, turns, refusals, timers, computer players."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot import controls
from bot.tables import Player, Table, TableConfig, TableError, TableService, Timing
from engine.actions import Flip, PickUp, Play, Ready, Swap
from engine.rules import make_rules

ANA = Player(1, "Ana")
BEN = Player(2, "Ben")
CID = Player(3, "Cid")
MOD = Player(9, "Mod", moderator=True)


class FakeClock:
    """A clock the test moves; the service's sleeps end when it passes their moment."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future = asyncio.get_running_loop().create_future()
        self.sleepers.append((self.now + seconds, future))
        await future

    async def advance(self, seconds: float, step: float = 0.5) -> None:
        end = self.now + seconds
        while self.now < end:
            self.now = min(end, self.now + step)
            for when, future in list(self.sleepers):
                if when <= self.now:
                    self.sleepers.remove((when, future))
                    if not future.done():
                        future.set_result(None)
            await settle()


class Recorder:
    def __init__(self) -> None:
        self.changes: list[tuple[str, int]] = []
        self.reminders: list[int] = []

    def changed(self, table: Table) -> None:
        self.changes.append((table.phase, table.version))

    async def remind(self, table: Table, seat: int) -> None:
        self.reminders.append(seat)


class MemoryStore:
    def __init__(self) -> None:
        self.saved: dict[str, dict[str, Any]] = {}
        self.finished: list[str] = []

    async def save(self, table: Table) -> None:
        self.saved[table.id] = table.to_json()

    async def finish(self, table: Table) -> None:
        self.saved.pop(table.id, None)
        self.finished.append(table.id)

    async def delete(self, table_id: str) -> None:
        self.saved.pop(table_id, None)

    async def load(self) -> list[Table]:
        return [Table.from_json(data) for data in self.saved.values()]


def config(preset: str = "classic", turn: float = 90, idle: int = 3) -> TableConfig:
    return TableConfig(make_rules(preset), preset, turn, idle)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
async def service(
    clock: FakeClock, store: MemoryStore, recorder: Recorder
) -> AsyncIterator[TableService]:
    svc = TableService(
        store=store,
        listener=recorder,
        timing=Timing(lobby_seconds=600, setup_seconds=60, computer_delay=0.5, remind_before=20),
        clock=clock,
        sleep=clock.sleep,
        seeds=lambda: 7,
    )
    yield svc
    await svc.shutdown()


async def seated(service: TableService, *players: Player, preset: str = "classic") -> Table:
    table = await service.create(10, 20, players[0], config(preset))
    for player in players[1:]:
        await service.join(table.id, player)
    return table


async def all_ready(service: TableService, table: Table, *players: Player) -> None:
    for player in players:
        seat = table.seat_of(player.user_id)
        assert seat is not None
        await service.act(table.id, player.user_id, table.seats[seat].version, "ready", ())


def phase(table: Table) -> str:
    """Read the phase afresh (mypy keeps an earlier comparison's narrowing otherwise)."""
    return table.phase


async def settle() -> None:
    for _ in range(50):
        await asyncio.sleep(0)


async def test_one_open_table_per_channel(service: TableService) -> None:
    await service.create(10, 20, ANA, config())
    with pytest.raises(TableError, match="already has a table"):
        await service.create(10, 20, BEN, config())
    other = await service.create(10, 21, BEN, config())
    assert service.in_channel(21) is other


async def test_lobby_rules_host_start_and_player_limits(service: TableService) -> None:
    table = await service.create(10, 20, ANA, config("west-kent"))
    with pytest.raises(TableError, match="need 2 to 3 players"):
        await service.start(table.id, ANA)
    await service.join(table.id, BEN)
    with pytest.raises(TableError, match="already sit"):
        await service.join(table.id, BEN)
    with pytest.raises(TableError, match="Only the host"):
        await service.start(table.id, BEN)
    await service.join(table.id, CID)
    with pytest.raises(TableError, match="full"):
        await service.join(table.id, Player(4, "Dee"))
    with pytest.raises(TableError, match="host or a moderator"):
        await service.kick(table.id, BEN, CID.user_id)
    await service.kick(table.id, MOD, CID.user_id)
    assert table.names == ["Ana", "Ben"]
    await service.leave(table.id, ANA)
    assert table.host_id == BEN.user_id
    await service.join(table.id, CID)
    await service.start(table.id, BEN)
    assert table.phase == "setup"


async def test_an_abandoned_lobby_closes_itself(
    service: TableService, store: MemoryStore, recorder: Recorder, clock: FakeClock
) -> None:
    table = await service.create(10, 20, ANA, config())
    assert table.id in store.saved
    await clock.advance(599)
    assert table.phase == "lobby"
    await clock.advance(1)
    assert phase(table) == "closed" and table.ended_reason == "abandoned"
    assert store.saved == {} and service.in_channel(20) is None
    assert recorder.changes[-1][0] == "closed"


async def test_setup_swap_ready_then_play_and_stale_clicks(service: TableService) -> None:
    table = await seated(service, ANA, BEN)
    await service.start(table.id, ANA)
    view = table.view(0)
    c = controls.controls(view)
    before = list(view.hand)
    version = table.seats[0].version
    ben_version = table.seats[1].version
    await service.act(table.id, ANA.user_id, version, "swap", (0, 0))
    assert table.view(0).hand != tuple(before)
    assert isinstance(c.ready, Ready)
    # Ana's swap does not make Ben's setup view stale.
    assert table.seats[1].version == ben_version
    with pytest.raises(TableError, match="old view"):
        await service.act(table.id, ANA.user_id, version, "swap", (0, 0))
    await all_ready(service, table, ANA, BEN)
    assert table.phase == "play"
    assert table.game is not None and table.game.turn is not None
    turn = table.game.turn
    other = ANA if turn == 1 else BEN
    with pytest.raises(TableError, match="isn't your turn"):
        await service.act(table.id, other.user_id, table.seats[1 - turn].version, "play", (0,))
    with pytest.raises(TableError, match="not playing"):
        await service.act(table.id, CID.user_id, 0, "play", (0,))
    player = BEN if turn == 1 else ANA
    version = table.seats[turn].version
    moves = table.game.moves
    await service.act(table.id, player.user_id, version, "play", (0,))
    assert table.game.moves == moves + 1
    assert table.log[-1].startswith(f"{player.name} played")


async def test_a_timed_out_turn_is_played_and_repeated_timeouts_remove(
    service: TableService, clock: FakeClock, recorder: Recorder, store: MemoryStore
) -> None:
    table = await service.create(10, 20, ANA, config(turn=30, idle=2))
    await service.join(table.id, BEN)
    await service.start(table.id, ANA)
    await all_ready(service, table, ANA, BEN)
    assert table.game is not None
    await clock.advance(15)
    assert recorder.reminders == [table.game.turn] and table.phase == "play"
    await clock.advance(15)
    assert any("ran out of time" in line for line in table.log)
    assert table.phase == "play"
    await clock.advance(60)
    assert phase(table) == "over"
    assert table.game.end_reason == "resigned"
    assert any("missed 2 turns in a row" in line for line in table.log)
    assert store.finished == [table.id]


async def test_one_member_against_two_computers_plays_to_the_end(
    service: TableService, store: MemoryStore, clock: FakeClock
) -> None:
    table = await service.create(10, 20, ANA, config())
    await service.add_computer(table.id, ANA, "basic")
    await service.add_computer(table.id, ANA, "basic")
    assert table.names[1:] == ["Computer 1 (basic)", "Computer 2 (basic)"]
    await service.start(table.id, ANA)
    await all_ready(service, table, ANA)
    assert table.game is not None
    for _ in range(500):
        if table.phase == "over":
            break
        await clock.advance(0.5)
        game = table.game
        if game.phase == "play" and game.turn == 0:
            view = table.view(0)
            c = controls.controls(view)
            if c.plays:
                verb, index = "play", 0
            elif c.flips:
                verb, index = "flip", 0
            else:
                verb, index = "pickup", 0
            await service.act(table.id, ANA.user_id, table.seats[0].version, verb, (index,))
    assert table.phase == "over" and table.game.loser is not None
    assert store.finished == [table.id]
    rematch = await service.rematch(table.id, ANA)
    assert rematch.names == table.names and rematch.phase == "setup"


async def test_leaving_a_game_makes_the_leaver_lose(service: TableService) -> None:
    table = await seated(service, ANA, BEN, CID)
    await service.start(table.id, ANA)
    await service.leave(table.id, BEN)
    assert table.phase == "over" and table.game is not None and table.game.loser == 1
    with pytest.raises(TableError, match="ended"):
        await service.join(table.id, Player(4, "Dee"))


async def test_a_table_round_trips_and_restores(
    service: TableService, store: MemoryStore, clock: FakeClock
) -> None:
    table = await seated(service, ANA, BEN)
    await service.start(table.id, ANA)
    await service.act(table.id, ANA.user_id, table.seats[0].version, "ready", ())
    again = Table.from_json(store.saved[table.id])
    assert again.to_json() == table.to_json()
    fresh = TableService(store=store, clock=clock, sleep=clock.sleep)
    restored = await fresh.restore()
    assert [t.id for t in restored] == [table.id]
    await clock.advance(60)
    assert restored[0].phase == "play"  # the setup timer resumed and ran out
    await fresh.shutdown()


def test_resolve_refuses_out_of_range_indexes() -> None:
    from engine.game import Game
    from engine.views import player_view

    game = Game.deal(make_rules("classic"), 2, seed=3)
    view = player_view(game, 0)
    assert controls.resolve(view, "swap", (0, 0)) is not None
    assert controls.resolve(view, "swap", (9, 0)) is None
    assert controls.resolve(view, "play", (0,)) is None
    assert isinstance(controls.resolve(view, "swap", (0, 1)), Swap)
    assert not any(isinstance(a, Play | Flip | PickUp) for a in view.legal)
