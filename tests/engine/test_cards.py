"""Cards are shared objects: dealing, parsing and reading a stored game give references."""

from __future__ import annotations

import pickle
import random

from engine import cards
from engine.cards import JOKER, Card, format_cards, make_deck, parse_card, sort_key
from engine.game import Game
from engine.rules import make_rules
from engine.serialize import game_from_json, game_to_json


def every_card(value: object) -> list[Card]:
    """Every card object inside a game's state, repeats included."""
    if isinstance(value, Card):
        return [value]
    if type(value).__module__.startswith("engine.") and hasattr(value, "__dict__"):
        kept = {k: v for k, v in vars(value).items() if k not in ("rules", "table", "rng")}
        return every_card(list(kept.values()))
    if isinstance(value, tuple | list | frozenset | set):
        return [card for item in value for card in every_card(item)]
    return []


def test_building_a_card_returns_the_one_shared_instance() -> None:
    deck = make_deck(2, 2)
    assert parse_card("10H") is Card(10, "H") is deck[34] is deck[88]
    assert parse_card("jk") is Card(JOKER, None) is deck[-1]
    assert pickle.loads(pickle.dumps(deck[0])) is deck[0]


def test_a_shared_card_keeps_the_card_api() -> None:
    card = parse_card("QS")
    assert (card.rank, card.suit) == (12, "S") == card
    assert str(card) == "QS"
    assert repr(card) == "Card(rank=12, suit='S')"
    assert isinstance(card, tuple)
    assert hash(card) == hash((12, "S"))


def test_a_stored_game_read_back_holds_the_shared_cards() -> None:
    game = Game.deal(make_rules("classic"), 3, seed=11)
    read = game_from_json(game_to_json(game))
    cards = every_card(read)
    assert len(cards) == 52
    assert all(card is Card(card.rank, card.suit) for card in cards)


def test_cards_are_written_as_they_write_themselves_and_odd_ones_are_not_kept() -> None:
    deck = make_deck(2, 2)
    assert format_cards(deck) == [str(card) for card in deck]
    assert format_cards([Card(10, "H"), Card(JOKER, None)]) == ["10H", "JK"]
    odd = Card(5, "X")  # type: ignore[arg-type]
    assert format_cards([odd]) == [str(odd)]
    assert odd not in cards._TEXTS


def test_cards_sorted_without_a_key_are_in_sort_key_order() -> None:
    # The views sort hands with plain `sorted`: the cards' own order must be `sort_key`'s.
    deck = make_deck(2, 3)
    random.Random(5).shuffle(deck)
    assert sorted(deck) == sorted(deck, key=sort_key)
