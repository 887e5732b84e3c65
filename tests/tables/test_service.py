"""The table core without Discord: lobbies, turns, refusals as codes, timers, computers."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

import pytest

import engine.rules
from engine.actions import Flip, PickUp, Play, Ready, Swap
from engine.events import PickedUp, Played
from engine.game import Game
from engine.rules import make_rules
from engine.strategies import Strategy, get_strategy
from engine.views import PlayerView, player_view
from tables import controls
from tables import service as service_module
from tables.errors import TableError
from tables.intents import (
    AddComputer,
    End,
    FlipCard,
    Join,
    Kick,
    Leave,
    Look,
    MarkReady,
    Member,
    PickUpPile,
    PlayCards,
    Rematch,
    Start,
    SwapCards,
)
from tables.model import Table, TableConfig
from tables.movers import MovePool
from tables.outcome import Snapshot
from tables.service import TableService
from tests.tables.conftest import TIMING, FakeClock, MemoryStore, Recorder

ANA = Member(1, "Ana")
BEN = Member(2, "Ben")
CID = Member(3, "Cid")
MOD = Member(9, "Mod", moderator=True)


def config(
    preset: str = "classic", turn: float = 90, idle: int = 3, remind: float = 30
) -> TableConfig:
    return TableConfig(make_rules(preset), preset, turn, idle, remind)


async def seated(service: TableService, *members: Member, preset: str = "classic") -> Table:
    outcome = await service.create(10, 20, members[0], config(preset))
    for member in members[1:]:
        await service.submit(outcome.snapshot.id, member, Join())
    table = service.find(outcome.snapshot.id)
    assert table is not None
    return table


async def refused(code: str, call: Any) -> TableError:
    """Await `call`, which must be refused with `code`."""
    with pytest.raises(TableError) as caught:
        await call
    assert caught.value.code == code, caught.value
    return caught.value


async def all_ready(service: TableService, table: Table, *members: Member) -> None:
    for member in members:
        seat = table.seat_of(member.user_id)
        assert seat is not None
        await service.submit(table.id, member, MarkReady(), table.seats[seat].version)


def phase(table: Table) -> str:
    """Read the phase afresh (mypy keeps an earlier comparison's narrowing otherwise)."""
    return table.phase


async def test_one_open_table_per_channel(service: TableService) -> None:
    await service.create(10, 20, ANA, config())
    await refused("channel_busy", service.create(10, 20, BEN, config()))
    other = await service.create(10, 21, BEN, config())
    assert service.in_channel(21) is service.find(other.snapshot.id)


async def test_lobby_rules_host_start_and_player_limits(service: TableService) -> None:
    table = await seated(service, ANA, preset="west-kent")
    error = await refused("player_count", service.submit(table.id, ANA, Start()))
    assert error.params == {"low": 2, "high": 3, "count": 1}
    await service.submit(table.id, BEN, Join())
    await refused("already_seated", service.submit(table.id, BEN, Join()))
    await refused("host_only", service.submit(table.id, BEN, Start()))
    await service.submit(table.id, CID, Join())
    await refused("table_full", service.submit(table.id, Member(4, "Dee"), Join()))
    await refused("host_or_moderator", service.submit(table.id, BEN, Kick(CID.user_id)))
    await refused(
        "add_computer_not_seated", service.submit(table.id, Member(5, "Eve"), AddComputer())
    )
    await service.submit(table.id, MOD, Kick(CID.user_id))
    assert table.names == ["Ana", "Ben"]
    await service.submit(table.id, ANA, Leave())
    assert table.host_id == BEN.user_id
    await service.submit(table.id, CID, Join())
    await service.submit(table.id, BEN, Start())
    assert table.phase == "setup"
    await refused("already_started", service.submit(table.id, Member(4, "Dee"), Join()))


async def test_an_abandoned_lobby_closes_itself(
    service: TableService, store: MemoryStore, recorder: Recorder, clock: FakeClock
) -> None:
    table = await seated(service, ANA)
    assert table.id in store.saved
    await clock.advance(599)
    assert table.phase == "lobby"
    await clock.advance(1)
    assert phase(table) == "closed" and table.ended_reason == "abandoned"
    assert store.saved == {} and service.in_channel(20) is None
    assert recorder.phases[-1] == "closed"
    assert [note.code for note in table.log][-1] == "lobby_closed"


async def test_waiting_tables_hold_no_task_and_their_timers_fire(
    service: TableService, clock: FakeClock
) -> None:
    before = len(asyncio.all_tasks())
    tables = []
    for channel in range(100):
        outcome = await service.create(10, channel, ANA, config())
        await service.submit(outcome.snapshot.id, BEN, Join())
        await service.submit(outcome.snapshot.id, ANA, Start())
        tables.append(service.get(outcome.snapshot.id))
    # A hundred tables in setup wait for their members, each with a timer armed: no tasks.
    assert len(asyncio.all_tasks()) == before
    await clock.advance(60)
    assert {table.phase for table in tables} == {"play"}
    await clock.advance(30)  # each turn's reminder
    assert all(table.reminded for table in tables)
    assert len(asyncio.all_tasks()) == before


async def test_clicks_on_tables_long_gone_leave_no_lock_behind(service: TableService) -> None:
    for n in range(3):
        await refused("table_ended", service.submit(f"gone{n}", ANA, Look()))
    await refused("table_ended", service.hint("gone", ANA, 0))
    assert await service.abandon("gone") is None
    assert service._locks == {}


async def test_setup_swap_ready_then_play_and_stale_clicks(service: TableService) -> None:
    table = await seated(service, ANA, BEN)
    await service.submit(table.id, ANA, Start())
    view = table.view(0)
    c = controls.controls(view)
    before = list(view.hand)
    version = table.seats[0].version
    ben_version = table.seats[1].version
    outcome = await service.submit(table.id, ANA, SwapCards(0, 0), version)
    assert outcome.actor == 0 and outcome.snapshot.private[0].hand != tuple(before)
    assert isinstance(c.ready, Ready)
    # Ana's swap does not make Ben's setup view stale.
    assert table.seats[1].version == ben_version
    await refused("stale_view", service.submit(table.id, ANA, SwapCards(0, 0), version))
    await all_ready(service, table, ANA, BEN)
    assert table.phase == "play"
    assert table.game is not None and table.game.turn is not None
    turn = table.game.turn
    other = ANA if turn == 1 else BEN
    error = await refused(
        "not_your_turn",
        service.submit(table.id, other, PlayCards(0), table.seats[1 - turn].version),
    )
    assert error.params == {"seat": turn}
    await refused("not_playing", service.submit(table.id, CID, PlayCards(0), 0))
    player = BEN if turn == 1 else ANA
    version = table.seats[turn].version
    await refused("move_gone", service.submit(table.id, player, PlayCards(999), version))
    await refused("move_gone", service.submit(table.id, player, PlayCards(-1), version))
    looked = await service.submit(table.id, player, Look(), version)
    assert looked.snapshot.version == table.version and looked.events == ()
    moves = table.game.moves
    await service.submit(table.id, player, PlayCards(0), version)
    assert table.game.moves == moves + 1
    assert table.log[-1].code == "played" and table.log[-1].params["seat"] == turn


async def test_a_click_resolves_through_the_choices_its_view_was_drawn_from(
    service: TableService, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await seated(service, ANA, BEN)
    await service.submit(table.id, ANA, Start())
    await all_ready(service, table, ANA, BEN)
    assert table.game is not None and table.game.turn is not None
    turn = table.game.turn
    player, version = (BEN if turn == 1 else ANA), table.seats[turn].version
    shown = (await service.submit(table.id, player, Look(), version)).snapshot
    drawn = shown.choices(turn)  # as the private view's components group them
    assert drawn is not None
    grouped: list[PlayerView] = []
    monkeypatch.setattr(controls, "controls", grouped.append)
    moves = table.game.moves
    await service.submit(table.id, player, PlayCards(0), version)
    # The same lists, not grouped again for the click.
    assert grouped == [] and table.game.moves == moves + 1
    assert table.log[-1].params["cards"] == [str(card) for card in drawn.plays[0].cards]


async def test_refusals_change_nothing_stored(service: TableService, store: MemoryStore) -> None:
    table = await seated(service, ANA, BEN)
    await service.submit(table.id, ANA, Start())
    saved = store.saved[table.id]
    await refused("stale_view", service.submit(table.id, ANA, MarkReady(), 999))
    await refused("not_playing", service.submit(table.id, CID, MarkReady(), 0))
    await refused("table_ended", service.submit("nosuch", ANA, MarkReady(), 0))
    assert store.saved[table.id] == saved


async def test_a_timed_out_turn_is_played_and_repeated_timeouts_remove(
    service: TableService, clock: FakeClock, recorder: Recorder, store: MemoryStore
) -> None:
    outcome = await service.create(10, 20, ANA, config(turn=30, idle=2, remind=15))
    table_id = outcome.snapshot.id
    await service.submit(table_id, BEN, Join())
    await service.submit(table_id, ANA, Start())
    table = service.find(table_id)
    assert table is not None
    await all_ready(service, table, ANA, BEN)
    assert table.game is not None
    await clock.advance(15)
    assert recorder.reminders == [table.game.turn] and table.phase == "play"
    await clock.advance(15)
    assert "timed_out" in [note.code for note in table.log]
    assert table.phase == "play"
    await clock.advance(60)
    assert phase(table) == "over"
    assert table.game.end_reason == "resigned"
    idle = [note for note in table.log if note.code == "idle_out"]
    assert idle and idle[0].params["count"] == 2
    assert store.finished == [table.id]


async def test_moves_that_put_the_reminder_later_arm_no_timer_and_it_comes_in_time(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    table = await seated(service, ANA, BEN)
    await service.submit(table.id, ANA, Start())
    await all_ready(service, table, ANA, BEN)
    armed = len(clock.timers)
    for _ in range(4):
        await clock.advance(5)
        game = table.game
        assert game is not None and game.turn is not None
        turn = game.turn
        c = controls.controls(table.view(turn))
        intent = PlayCards(0) if c.plays else FlipCard(0) if c.flips else PickUpPile(0)
        await service.submit(table.id, (ANA, BEN)[turn], intent, table.seats[turn].version)
    # The timer armed for the first turn's reminder waits on for the later ones.
    assert len(clock.timers) == armed and table.phase == "play"
    assert table.deadline is not None and game is not None
    remind_at = table.deadline - 90 + 30  # the turn's reminder, 30 s into its 90
    await clock.advance(remind_at - clock.now - 0.5)
    assert recorder.reminders == []
    await clock.advance(0.5)
    assert recorder.reminders == [game.turn]


async def play_against_computers(
    service: TableService, clock: FakeClock, table: Table, until_moves: int | None = None
) -> None:
    """Play Ana's turns with her first offered move until the game is over (or long enough)."""
    for _ in range(2000):
        if table.phase == "over":
            return
        if until_moves is not None and table.game and table.game.moves >= until_moves:
            return
        await clock.advance(0.5)
        game = table.game
        assert game is not None
        if game.phase == "play" and game.turn == 0:
            c = controls.controls(table.view(0))
            intent = PlayCards(0) if c.plays else FlipCard(0) if c.flips else PickUpPile(0)
            await service.submit(table.id, ANA, intent, table.seats[0].version)
        else:
            await asyncio.sleep(0.005)  # a computer's move is thought out in another thread
    raise AssertionError(f"the game did not end: {table.game and table.game.moves} moves")


class ThreadPool(MovePool):
    """A move pool whose workers are threads: quick to make in a test."""

    def _new_executor(self) -> Executor:
        return ThreadPoolExecutor(self.workers)


@contextlib.asynccontextmanager
async def with_workers(
    store: MemoryStore, clock: FakeClock
) -> AsyncIterator[tuple[TableService, MovePool]]:
    """A service with a started move pool (of threads); both stop after."""
    pool = ThreadPool(1)
    pool.start()
    service = TableService(store=store, timing=TIMING, clock=clock, later=clock.later, movers=pool)
    try:
        yield service, pool
    finally:
        await service.shutdown()
        pool.shutdown()


async def test_adding_a_computer_seat_starts_the_workers_before_its_first_move(
    store: MemoryStore, clock: FakeClock
) -> None:
    async with with_workers(store, clock) as (service, pool):
        table = await seated(service, ANA)
        assert not pool.running
        await service.submit(table.id, ANA, AddComputer("basic"))
        assert pool.running


async def test_restoring_a_table_with_a_computer_seat_starts_the_workers(
    service: TableService, store: MemoryStore, clock: FakeClock
) -> None:
    table = await seated(service, ANA)
    await service.submit(table.id, ANA, AddComputer("basic"))
    async with with_workers(store, clock) as (fresh, pool):
        assert [t.id for t in await fresh.restore()] == [table.id]
        assert pool.running


async def test_one_member_against_two_computers_plays_to_the_end(
    service: TableService, store: MemoryStore, clock: FakeClock
) -> None:
    table = await seated(service, ANA)
    await service.submit(table.id, ANA, AddComputer("basic"))
    await service.submit(table.id, ANA, AddComputer("basic"))
    await refused("no_such_level", service.submit(table.id, ANA, AddComputer("genius")))
    assert [seat.computer for seat in table.seats] == [None, "basic", "basic"]
    await service.submit(table.id, ANA, Start())
    await all_ready(service, table, ANA)
    await play_against_computers(service, clock, table)
    assert table.game is not None and table.game.loser is not None
    assert store.finished == [table.id]
    rematch = await service.submit(table.id, ANA, Rematch())
    assert rematch.snapshot.names == table.names and rematch.snapshot.phase == "setup"
    await refused("rematch_too_old", service.submit(table.id, ANA, Rematch()))


class Raising:
    """A strategy that always raises, as a broken computer player would."""

    name = "raising"

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, view: PlayerView, rng: Any = None) -> Any:
        self.calls += 1
        raise RuntimeError("the strategy broke")


class Illegal:
    """A strategy that names a move that is not legal."""

    name = "illegal"

    def choose(self, view: PlayerView, rng: Any = None) -> Any:
        return Play(view.seat, ())


@pytest.mark.parametrize("broken", ["raises", "illegal", "both"])
async def test_a_broken_strategy_does_not_stall_the_table(
    clock: FakeClock, store: MemoryStore, recorder: Recorder, broken: str
) -> None:
    raising = Raising()

    def factory(name: str, seed: int) -> Strategy:
        if broken == "both" or (name == "expert" and broken == "raises"):
            return raising
        if name == "expert":
            return Illegal()
        return get_strategy(name, seed)

    service = TableService(
        store=store,
        sink=recorder,
        timing=TIMING,
        clock=clock,
        later=clock.later,
        seeds=lambda: 7,
        strategies=factory,
    )
    try:
        table = await seated(service, ANA)
        await service.submit(table.id, ANA, AddComputer("expert"))
        await service.submit(table.id, ANA, Start())
        await all_ready(service, table, ANA)
        # The computer seat keeps moving (every other action is its own) until a long game.
        await play_against_computers(service, clock, table, until_moves=100)
        game = table.game
        assert game is not None and game.end_reason != "resigned"
        if broken != "illegal":
            assert raising.calls > 0
    finally:
        await service.shutdown()


async def test_leaving_a_game_makes_the_leaver_lose(service: TableService) -> None:
    table = await seated(service, ANA, BEN, CID)
    await service.submit(table.id, ANA, Start())
    await service.submit(table.id, BEN, Leave())
    assert table.phase == "over" and table.game is not None and table.game.loser == 1
    assert table.log[-2].code == "left" and table.log[-2].params == {"seat": 1}
    await refused("table_ended", service.submit(table.id, Member(4, "Dee"), Join()))


async def test_the_host_or_a_moderator_ends_a_table(service: TableService) -> None:
    table = await seated(service, ANA, BEN)
    await refused("host_or_moderator", service.submit(table.id, BEN, End()))
    outcome = await service.submit(table.id, MOD, End())
    assert outcome.snapshot.phase == "closed" and table.ended_reason == "ended"


async def test_a_table_round_trips_and_restores(
    service: TableService, store: MemoryStore, clock: FakeClock
) -> None:
    table = await seated(service, ANA, BEN)
    await service.submit(table.id, ANA, Start())
    await service.submit(table.id, ANA, MarkReady(), table.seats[0].version)
    again = Table.from_json(store.state(table.id))
    assert again.to_json() == table.to_json()
    assert store.state(table.id)["format"] == 2
    fresh = TableService(store=store, clock=clock, later=clock.later)
    restored = await fresh.restore()
    assert [t.id for t in restored] == [table.id]
    await clock.advance(60)
    assert restored[0].phase == "play"  # the setup timer resumed and ran out
    await fresh.shutdown()


async def test_a_stored_table_writes_its_rules_once_and_its_draws_and_reads_full_rows_too(
    service: TableService, store: MemoryStore
) -> None:
    table = await seated(service, ANA, BEN)
    await service.submit(table.id, ANA, Start())
    stored = store.state(table.id)
    assert "rules" not in stored["game"] and stored["game"]["rng"] == {"draws": [["shuffle", 52]]}
    # Under a 4 KiB page, which SQLite then writes without overflow pages.
    assert len(store.saved[table.id]) < 3000
    game = table.game
    assert game is not None
    version, words, gauss = game.rng.getstate()
    full = json.loads(store.saved[table.id])
    full["game"]["rules"] = full["rules"]
    full["game"]["rng"] = [version, list(words), gauss]
    again = Table.from_json(full)
    assert again.game is not None and again.game.rng.getstate() == game.rng.getstate()
    written = again.to_json()
    assert "rules" not in written["game"] and written["game"]["rng"] != stored["game"]["rng"]
    written["game"]["rng"] = stored["game"]["rng"]
    assert written == stored


async def test_a_table_writes_its_rules_json_once_per_rule_set(
    service: TableService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rule sets made alike are shared process-wide: this test starts with none made.
    monkeypatch.setattr(engine.rules, "_SHARED", engine.rules._Shared())
    table = await seated(service, ANA, BEN)
    dumped: list[object] = []
    dump = type(table.rules).model_dump

    def counted(rules: Any, **kwargs: Any) -> Any:
        dumped.append(rules)
        return dump(rules, **kwargs)

    monkeypatch.setattr(type(table.rules), "model_dump", counted)
    # The service wrote the table at each change, with one dump of its rules.
    table_rules = table.rules
    first = table.to_json()
    assert table.to_json()["rules"] is first["rules"] and dumped == []
    # New rules (chosen in the lobby) are written anew, and their JSON is theirs.
    table.rules = make_rules("classic", {"jokers": 2})
    assert table.to_json()["rules"]["jokers"] == 2 and len(dumped) == 1
    table.to_json()
    assert len(dumped) == 1
    # Another table with equal rules shares their rule set and its JSON.
    other = Table.from_json(first)
    assert other.rules is table_rules and other.to_json()["rules"] is first["rules"]
    assert len(dumped) == 1


async def test_an_unreadable_table_is_set_aside_and_the_others_start(
    service: TableService, store: MemoryStore, clock: FakeClock
) -> None:
    good = await seated(service, ANA, BEN)
    await service.create(10, 21, CID, config())
    broken = next(table_id for table_id in store.saved if table_id != good.id)
    store.saved[broken] = '{"format": 2, "id": "x", "seats": [{"oops": 1}]'
    store.saved["nojson"] = "not json at all"
    fresh = TableService(store=store, clock=clock, later=clock.later)
    restored = await fresh.restore()
    assert [table.id for table in restored] == [good.id]
    assert set(store.unreadable) == {broken, "nojson"}
    assert [table.id for table in await fresh.restore() if table.id != good.id] == []
    await fresh.shutdown()


def test_a_table_written_before_the_format_version_loads() -> None:
    rules = make_rules("classic")
    game = Game.deal(rules, 2, seed=5)
    from engine.rules import rules_to_json
    from engine.serialize import game_to_json

    old = {
        "id": "ab12",
        "guild_id": 1,
        "channel_id": 2,
        "host_id": 3,
        "preset": "classic",
        "rules": rules_to_json(rules),
        "seed": 5,
        "turn_seconds": 90,
        "idle_turns": 3,
        "seats": [
            {
                "user_id": 3,
                "name": "Ana",
                "computer": None,
                "timeouts": 0,
                "removed": False,
                "version": 4,
                "dm_channel_id": 7,
                "dm_message_id": 8,
                "dm_closed": False,
            },
            {
                "user_id": 4,
                "name": "Ben",
                "computer": None,
                "timeouts": 1,
                "removed": False,
                "version": 2,
                "dm_channel_id": None,
                "dm_message_id": None,
                "dm_closed": True,
            },
        ],
        "phase": "setup",
        "game": game_to_json(game),
        "version": 6,
        "message_id": 99,
        "log": ["The cards are dealt. Get ready!"],
        "deadline": 1234.0,
        "reminded": False,
        "created_at": 1000.0,
        "started_at": 1100.0,
        "ended_at": None,
        "ended_reason": None,
        "previous_loser": None,
    }
    table = Table.from_json(json.loads(json.dumps(old)))
    assert table.phase == "setup" and table.names == ["Ana", "Ben"] and table.log == []
    assert table.seats[1].timeouts == 1 and table.seats[0].version == 4
    assert "message_id" not in table.to_json() and "dm_closed" not in table.to_json()["seats"][0]


def test_resolve_refuses_out_of_range_indexes() -> None:
    game = Game.deal(make_rules("classic"), 2, seed=3)
    view = player_view(game, 0)
    assert controls.resolve(view, SwapCards(0, 0)) is not None
    assert controls.resolve(view, SwapCards(9, 0)) is None
    assert controls.resolve(view, SwapCards(-1, 0)) is None
    assert controls.resolve(view, PlayCards(0)) is None
    assert isinstance(controls.resolve(view, SwapCards(0, 1)), Swap)
    assert not any(isinstance(a, Play | Flip | PickUp) for a in view.legal)


async def test_a_move_that_cannot_be_stored_did_not_happen_and_works_once_the_disk_is_back(
    service: TableService, store: MemoryStore
) -> None:
    table = await seated(service, ANA, BEN)
    await service.submit(table.id, ANA, Start())
    await all_ready(service, table, ANA, BEN)
    assert table.game is not None and table.game.turn is not None
    turn = table.game.turn
    player = (ANA, BEN)[turn]
    version = table.seats[turn].version
    before = table.to_json()
    store.failing = True
    await refused("not_saved", service.submit(table.id, player, PlayCards(0), version))
    assert table.to_json() == before == store.state(table.id)
    assert service.find(table.id) is table and table.game.turn == turn
    store.failing = False
    outcome = await service.submit(table.id, player, PlayCards(0), version)
    assert (
        outcome.events and table.game.moves == json.loads(json.dumps(before))["game"]["moves"] + 1
    )


async def test_a_lobby_that_cannot_be_stored_is_not_opened(
    service: TableService, store: MemoryStore
) -> None:
    store.failing = True
    await refused("not_saved", service.create(10, 20, ANA, config()))
    assert service.in_channel(20) is None and service.tables == {}
    store.failing = False
    await service.create(10, 20, ANA, config())


async def test_an_ending_that_cannot_be_stored_is_undone_then_recorded_once(
    service: TableService, store: MemoryStore
) -> None:
    table = await seated(service, ANA, BEN, CID)
    await service.submit(table.id, ANA, Start())
    stored = store.state(table.id)
    store.failing = True
    await refused("not_saved", service.submit(table.id, BEN, Leave()))
    assert table.phase == "setup" and table.to_json() == stored
    assert store.finished == [] and service.in_channel(20) is table
    store.failing = False
    await service.submit(table.id, BEN, Leave())
    assert phase(table) == "over" and store.finished == [table.id]
    assert table.id not in store.saved and table.id in store.ended


async def test_a_timer_whose_write_fails_tries_again_later(
    service: TableService, store: MemoryStore, clock: FakeClock
) -> None:
    table = await seated(service, ANA, BEN)
    await service.submit(table.id, ANA, Start())
    store.failing = True
    await clock.advance(61)  # the setup time runs out, but the store is down
    assert table.phase == "setup"
    store.failing = False
    await clock.advance(6)
    assert phase(table) == "play" and store.state(table.id)["game"]["phase"] == "play"


async def test_no_rematch_for_too_few_players_and_no_invisible_table(
    service: TableService,
) -> None:
    table = await seated(service, ANA, BEN)
    await service.submit(table.id, ANA, Start())
    await service.submit(table.id, BEN, Leave())
    error = await refused("rematch_too_few", service.submit(table.id, ANA, Rematch()))
    assert error.params == {"low": 2, "count": 1}
    assert service.in_channel(20) is None
    await service.create(10, 20, ANA, config())


async def test_an_ended_table_is_restored_for_its_rematch(
    service: TableService, store: MemoryStore, clock: FakeClock
) -> None:
    table = await seated(service, ANA, BEN, CID)
    await service.submit(table.id, ANA, Start())
    await service.submit(table.id, CID, Leave())
    fresh = TableService(store=store, clock=clock, later=clock.later)
    restored = await fresh.restore()
    assert [(t.id, t.phase) for t in restored] == [(table.id, "over")]
    assert fresh.tables == {} and fresh.find(table.id) is not None
    again = await fresh.submit(table.id, BEN, Rematch())
    assert again.snapshot.names == ["Ana", "Ben"] and again.snapshot.phase == "setup"
    await fresh.shutdown()


async def test_no_reminder_when_it_would_come_after_the_turn_ends(
    service: TableService, recorder: Recorder, clock: FakeClock
) -> None:
    outcome = await service.create(10, 20, ANA, config(turn=30, idle=5, remind=30))
    table_id = outcome.snapshot.id
    await service.submit(table_id, BEN, Join())
    await service.submit(table_id, ANA, Start())
    table = service.find(table_id)
    assert table is not None
    await all_ready(service, table, ANA, BEN)
    await clock.advance(31)
    assert recorder.reminders == [] and "timed_out" in [note.code for note in table.log]


async def test_a_player_already_out_may_leave_and_the_game_goes_on(
    service: TableService,
) -> None:
    table = await seated(service, ANA, BEN, CID)
    await service.submit(table.id, ANA, Start())
    game = table.game
    assert game is not None
    # Ben has gone out (an emptied seat, as after his last card).
    game.hands[1], game.face_up[1], game.face_down[1] = [], [], []
    game.out[1], game.finished = True, [1]
    await service.submit(table.id, BEN, Leave())
    assert table.phase == "setup" and table.seats[1].removed and game.loser is None
    assert table.log[-1].code == "left"
    await refused("not_seated", service.submit(table.id, BEN, Leave()))


def test_pick_up_is_offered_once_per_rank_of_the_card_put_on_the_pile() -> None:
    from engine.cards import parse_cards
    from engine.position import build_game

    rules = make_rules("karma")
    game = build_game(
        rules,
        hands=[[], parse_cards(["3C"])],
        face_up=[
            [parse_cards(["5H", "5D", "5S"]), parse_cards(["9C"]), parse_cards(["9D"])],
            [],
        ],
        face_down=[parse_cards(["4C"]), parse_cards(["4D"])],
        pile=parse_cards(["KS"]),
        turn=0,
    )
    view = player_view(game, 0)
    offered = [a.add for a in view.legal if isinstance(a, PickUp)]
    assert len(offered) == 5  # the engine offers every card
    ranks = [p.add.rank for p in controls.controls(view).pickups if p.add is not None]
    assert sorted(ranks) == [5, 9]


async def test_a_look_shows_the_table_as_it_is_now(
    service: TableService, clock: FakeClock, store: MemoryStore
) -> None:
    outcome = await service.create(10, 20, ANA, config(turn=30, idle=9, remind=15))
    table = service.find(outcome.snapshot.id)
    assert table is not None
    await service.submit(table.id, BEN, Join())
    await service.submit(table.id, ANA, Start())
    await all_ready(service, table, ANA, BEN)

    def player() -> tuple[Member, int]:
        """The member whose turn it is, and their seat's version."""
        assert table is not None and table.game is not None and table.game.turn is not None
        return (ANA, BEN)[table.game.turn], table.seats[table.game.turn].version

    async def look() -> Snapshot:
        assert table is not None
        member, version = player()
        shown = (await service.submit(table.id, member, Look(), version)).snapshot
        assert shown.version == table.version
        return shown

    # Unchanged between two looks: the same snapshot, drawn once for both.
    first = await look()
    assert await look() is first
    # A timer's move (the turn ran out) changes what a look shows.
    await clock.advance(30)
    after = await look()
    assert after.version > first.version
    assert after.private == {seat: table.view(seat) for seat in (0, 1)}
    # A move that could not be stored is undone: a look shows the table as stored.
    member, version = player()
    assert table.game is not None and table.game.turn is not None
    offered = controls.controls(table.view(table.game.turn))
    move = PlayCards(0) if offered.plays else PickUpPile()
    store.failing = True
    await refused("not_saved", service.submit(table.id, member, move, version))
    store.failing = False
    assert (await look()).private == after.private
    # The move then resolves against the view as it is now (not one from before the timer).
    wanted = controls.resolve(table.view(table.game.turn), move)
    assert wanted is not None
    moves = table.game.moves
    events = (await service.submit(table.id, member, move, version)).events
    assert table.game.moves == moves + 1
    done = next(e for e in events if isinstance(e, Played | PickedUp))
    assert isinstance(wanted, Play | PickUp) and done.player == wanted.player
    assert not isinstance(done, Played) or (isinstance(wanted, Play) and done.cards == wanted.cards)


async def test_a_change_that_breaks_half_way_is_undone_logged_and_raised(
    service: TableService, store: MemoryStore, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    table = await seated(service, ANA, BEN)
    await service.submit(table.id, ANA, Start())
    saved = store.saved[table.id]

    def broken(events: object) -> list[object]:
        raise RuntimeError("notes broke")

    monkeypatch.setattr(service_module, "notes_of", broken)
    with pytest.raises(RuntimeError, match="notes broke"):
        await all_ready(service, table, ANA)
    # The engine applied the step before the break: the table is as stored again.
    assert table.to_json() == json.loads(saved)
    [record] = [r for r in caplog.records if "a change failed and is undone" in r.getMessage()]
    assert record.exc_info is not None and "notes broke" in str(record.exc_info[1])
