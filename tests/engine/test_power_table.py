"""The power tables games share: one per set of powers, never one per game."""

from __future__ import annotations

from engine.cards import parse_cards, parse_rank
from engine.game import Game
from engine.pile import SHARED_TABLES, PowerTable, power_table
from engine.rules import make_rules


def test_games_under_the_same_powers_share_one_table() -> None:
    first = Game.deal(make_rules("classic"), 3, seed=1)
    # Rules parsed again (as a restored table's are) are another object with the same powers.
    second = Game.deal(make_rules("classic", {"hand_size": 4}), 2, seed=2)
    assert first.table is second.table


def test_other_powers_get_their_own_table() -> None:
    classic = Game.deal(make_rules("classic"), 3, seed=1)
    changed = Game.deal(make_rules("classic", {"powers": {"2": None}}), 3, seed=1)
    assert classic.table is not changed.table
    king = parse_cards(["KH"])
    # Under classic a 2 goes on anything; without its power it does not beat a king.
    assert classic.table.playable_on(king, parse_rank("2"))
    assert not changed.table.playable_on(king, parse_rank("2"))


def test_a_shared_table_answers_as_a_table_of_its_own() -> None:
    rules = make_rules("west-kent")
    shared = power_table(rules)
    own = PowerTable(rules)
    for pile in ("", "2C", "3D", "7H", "8S", "9C 3D", "10H", "JD", "AC", "2C 8S", "JK 5H"):
        cards = parse_cards(pile.split())
        assert shared.playable(cards) == own.playable(cards), pile


def blocking(number: int) -> dict[str, object]:
    """Give a 4 a power that blocks the ranks of `number`'s bits: a set of powers per number."""
    names = ("3", "5", "6", "8", "9", "J", "Q")
    ranks = [name for bit, name in enumerate(names) if number >> bit & 1]
    return {"powers": {"4": {"play": "fits", "blocks": ranks}}}


def test_the_shared_tables_are_bounded() -> None:
    first = power_table(make_rules("classic", blocking(0)))
    for number in range(1, SHARED_TABLES + 1):
        power_table(make_rules("classic", blocking(number)))
    # The first table was dropped to keep at most SHARED_TABLES; its game keeps its own.
    again = power_table(make_rules("classic", blocking(0)))
    assert again is not first
    assert again.playable(parse_cards(["4H"])) == first.playable(parse_cards(["4H"]))
