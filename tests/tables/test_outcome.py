"""A snapshot keeps what the shell draws from it alike for every viewer, and only that one."""

from __future__ import annotations

import dataclasses

import pytest

from engine.actions import Ready
from engine.game import Game
from engine.rules import make_rules
from engine.views import PlayerView, player_view
from tables import outcome
from tables.controls import NO_CONTROLS, Controls, controls
from tables.model import Seat, Table
from tables.outcome import snapshot


def test_what_is_drawn_from_a_snapshot_stays_with_it_and_not_with_its_copies() -> None:
    rules = make_rules("classic")
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, [Seat(3, "Ana"), Seat(4, "Ben")])
    table.game = Game.deal(rules, 2, seed=1)
    shown = snapshot(table)
    assert shown.drawn == {} and snapshot(table).drawn is not shown.drawn
    shown.drawn["public", "en"] = "drawn"
    # A copy may show other things (no pictures, another language): it draws its own.
    copy = dataclasses.replace(shown, pictures=False)
    assert copy.drawn == {}
    # What is drawn is no part of what the snapshot says.
    assert shown == dataclasses.replace(shown) and "drawn" not in repr(shown)


def test_every_seat_of_a_snapshot_shares_its_one_public_view() -> None:
    rules = make_rules("classic")
    seats = [Seat(3, "Ana"), Seat(4, "Ben"), Seat(5, "Cy")]
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, seats)
    table.game = Game.deal(rules, 3, seed=1)
    shown = snapshot(table)
    assert shown.public is not None and sorted(shown.private) == [0, 1, 2]
    for seat, view in shown.private.items():
        # Built once for the snapshot, not once per seat; and what each seat sees alone.
        assert view.table is shown.public
        assert view == player_view(table.game, seat)


def test_a_seats_choices_are_grouped_once_per_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = make_rules("classic")
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, [Seat(3, "Ana"), Seat(4, "Ben")])
    table.game = Game.deal(rules, 2, seed=1)
    shown = snapshot(table)
    grouped: list[PlayerView] = []

    def counted(view: PlayerView) -> Controls:
        grouped.append(view)
        return controls(view)

    monkeypatch.setattr(outcome, "controls", counted)
    first = shown.choices(0)
    assert first == controls(shown.private[0]) and shown.choices(0) is first
    assert grouped == [shown.private[0]]
    # A seat without a view of its own has no choices; a copy groups its own.
    assert shown.choices(7) is None
    assert dataclasses.replace(shown).choices(0) is not first


def test_seats_with_nothing_to_do_share_one_empty_grouping() -> None:
    rules = make_rules("classic")
    seats = [Seat(3, "Ana"), Seat(4, "Ben"), Seat(5, "Cy")]
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, seats)
    game = table.game = Game.deal(rules, 3, seed=1)
    for seat in range(3):
        game.apply(Ready(seat))
    shown, turn = snapshot(table), game.turn
    assert turn is not None
    first, second = (shown.choices(seat) for seat in range(3) if seat != turn)
    assert first is second is NO_CONTROLS
    assert shown.choices(turn) != NO_CONTROLS
