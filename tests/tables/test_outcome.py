"""A snapshot keeps what the shell draws from it alike for every viewer, and only that one."""

from __future__ import annotations

import dataclasses

from engine.game import Game
from engine.rules import make_rules
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
