"""Hints in the table core and its renderers: the setting, who may change it, where it is asked."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import t
from bot.rendering import render_private, table_components
from bot.words import HINT_REASONS, hint_text
from engine.actions import PickUp
from engine.hints import Hint, Reason, hint
from engine.rules import make_rules
from engine.strategies import Strategy, get_strategy
from engine.views import player_view
from tables.controls import controls
from tables.errors import TableError
from tables.intents import Join, MarkReady, Member, SetHints, Start
from tables.model import Table, TableConfig
from tables.movers import MovePool
from tables.outcome import snapshot
from tables.service import TableService
from tests.engine.test_hints import position
from tests.tables.test_movers import in_a_worker

ANA, BEN = Member(1, "Ana"), Member(2, "Ben")
CONFIG = TableConfig(make_rules("classic"), "classic", 60.0, 3)


def custom_ids(view: Any) -> list[str]:
    return [item["custom_id"] for row in view.to_components() for item in row["components"]]


async def lobby(service: TableService, *, hints: bool) -> Table:
    """Open a lobby of Ana (the host) and Ben, with hints as asked."""
    table_id = (await service.create(1, 2, ANA, CONFIG)).snapshot.id
    await service.submit(table_id, BEN, Join())
    if hints:
        await service.submit(table_id, ANA, SetHints(True))
    return service.tables[table_id]


async def in_play(service: TableService, *, hints: bool) -> Table:
    """Deal and make both players ready: the first player is to play."""
    table = await lobby(service, hints=hints)
    await service.submit(table.id, ANA, Start())
    game = table.game
    assert game is not None
    for seat, member in enumerate((ANA, BEN)):
        while not game.ready[seat]:
            assert controls(table.view(seat)).ready is not None
            await service.submit(table.id, member, MarkReady(), table.seats[seat].version)
    assert table.phase == "play"
    return table


async def test_the_setting_is_stored_with_the_table_and_older_tables_have_it_off() -> None:
    service = TableService()
    table = await lobby(service, hints=True)
    stored = table.to_json()
    assert stored["hints"] is True
    assert Table.from_json(stored).hints
    del stored["hints"]  # a table stored before hints existed
    assert not Table.from_json(stored).hints
    await service.shutdown()


async def test_only_the_host_in_the_lobby_changes_the_setting() -> None:
    service = TableService()
    table = await lobby(service, hints=False)
    version = table.version
    with pytest.raises(TableError) as refused:
        await service.submit(table.id, BEN, SetHints(True))
    assert refused.value.code == "host_only_hints"
    assert not table.hints and table.version == version
    moderator = Member(3, "Mo", moderator=True)
    with pytest.raises(TableError):
        await service.submit(table.id, moderator, SetHints(True))
    await service.submit(table.id, ANA, SetHints(True))
    assert table.hints
    await service.submit(table.id, ANA, Start())
    with pytest.raises(TableError) as started:
        await service.submit(table.id, ANA, SetHints(False))
    assert started.value.code == "already_started"
    assert table.hints
    await service.shutdown()


async def test_the_lobby_switch_shows_the_setting_and_asks_for_the_other() -> None:
    service = TableService()
    table = await lobby(service, hints=False)
    assert f"sh:{table.id}:0:hints:1" in custom_ids(table_components(snapshot(table), "en"))
    await service.submit(table.id, ANA, SetHints(True))
    assert f"sh:{table.id}:0:hints:0" in custom_ids(table_components(snapshot(table), "en"))
    await service.shutdown()


async def test_the_hint_button_is_for_the_player_to_act_when_hints_are_on() -> None:
    for hints in (True, False):
        service = TableService()
        table = await in_play(service, hints=hints)
        shown = snapshot(table)
        turn = shown.turn
        assert turn is not None
        for seat in (0, 1):
            version = table.seats[seat].version
            ids = custom_ids(render_private(shown, seat, "en", "").view)
            offered = f"sh:{table.id}:{version}:hint" in ids
            assert offered == (hints and seat == turn), (hints, seat, turn)
        await service.shutdown()


async def test_a_hint_is_searched_off_the_event_loop_and_changes_nothing() -> None:
    service = TableService()
    threads: list[threading.Thread] = []

    def factory(name: str, seed: int) -> Strategy:
        strategy = get_strategy(name, seed)

        class Watched:
            def __init__(self) -> None:
                self.name = strategy.name

            def choose(self, view: Any, rng: Any = None) -> Any:
                threads.append(threading.current_thread())
                return strategy.choose(view, rng)

        return Watched()

    service.strategies = factory
    table = await in_play(service, hints=True)
    seat = table.game.turn if table.game else None
    assert seat is not None
    member = (ANA, BEN)[seat]
    before = table.to_json()
    found = await service.hint(table.id, member, table.seats[seat].version)
    assert found.action in table.view(seat).legal
    assert threads and threads[0] is not threading.main_thread()
    assert table.to_json() == before
    await service.shutdown()


async def test_a_hint_is_searched_in_the_move_pool_s_worker() -> None:
    pool = MovePool(1)
    pool.start()
    # The factory refuses in the test's process: only a worker can answer the hint.
    service = TableService(movers=pool, strategies=in_a_worker)
    try:
        table = await in_play(service, hints=True)
        seat = table.game.turn if table.game else None
        assert seat is not None
        view, seed = table.view(seat), table.seed + table.version
        found = await service.hint(table.id, (ANA, BEN)[seat], table.seats[seat].version)
        assert found == hint(view, seed)
    finally:
        await service.shutdown()
        pool.shutdown()


async def test_a_hint_is_refused_off_not_now_and_stale() -> None:
    service = TableService()
    off = await in_play(service, hints=False)
    seat = off.game.turn if off.game else 0
    member = (ANA, BEN)[seat or 0]
    with pytest.raises(TableError) as refused:
        await service.hint(off.id, member, off.seats[seat or 0].version)
    assert refused.value.code == "hints_off"
    await service.shutdown()

    service = TableService()
    table = await lobby(service, hints=True)
    await service.submit(table.id, ANA, Start())
    with pytest.raises(TableError) as setup:
        await service.hint(table.id, ANA, table.seats[0].version)
    assert setup.value.code == "hint_not_now"
    await service.shutdown()

    service = TableService()
    table = await in_play(service, hints=True)
    game = table.game
    assert game is not None and game.turn is not None
    seat = game.turn
    old = table.seats[seat].version - 1
    with pytest.raises(TableError) as stale:
        await service.hint(table.id, (ANA, BEN)[seat], old)
    assert stale.value.code == "stale_view"
    other = 1 - seat
    with pytest.raises(TableError) as waiting:
        await service.hint(table.id, (ANA, BEN)[other], table.seats[other].version)
    assert waiting.value.code == "not_your_turn"
    await service.shutdown()


@pytest.mark.parametrize("reason", list(HINT_REASONS))
@pytest.mark.parametrize("locale", ["en", "de", "da", "pl", "nl"])
def test_every_reason_is_said_in_every_language(reason: Reason, locale: str) -> None:
    text = hint_text(Hint(PickUp(0), reason, rank=12, count=2), locale)
    assert text.startswith("💡 **") and "{" not in text
    if locale != "en":
        assert t(HINT_REASONS[reason], locale) != HINT_REASONS[reason]


def test_the_reasons_said_are_the_reasons_the_engine_gives() -> None:
    assert set(HINT_REASONS) == set(Reason.__args__)  # type: ignore[attr-defined]


def test_the_readme_shows_hints_as_the_bot_says_them() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    examples = [
        ("2C 7D 7S 9S", "6H", "en"),
        ("2C 10D 7D 9S QH", "6H", "en"),
        ("5C 6H", "KH", "en"),
        ("10C 5D", "KH", "de"),
    ]
    for hand, pile, locale in examples:
        view = player_view(position(hand, pile, stock="4H 4S"), 0)
        said = hint_text(hint(view, seed=1), locale).replace("**", "")
        assert f"\n{said}\n" in readme, said
