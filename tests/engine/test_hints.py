"""Hints: the move a strategy would make and why, from the player's view only."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from engine.actions import Action, Flip, PickUp, Play, PlayStock
from engine.cards import Card, parse_cards
from engine.game import Game
from engine.hints import Hint, explain, hint
from engine.position import build_game
from engine.resample import Resampler
from engine.rules import RuleSet, make_rules
from engine.serialize import game_to_json
from engine.strategies import get_strategy
from engine.views import PlayerView, player_view

CLASSIC = make_rules("classic")


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


def position(
    hand: str,
    pile: str,
    *,
    rules: RuleSet = CLASSIC,
    others: Sequence[str] = ("3C 4C 5C", "3D 4D 5D"),
    stock: str = "",
    face_up: str = "",
    face_down: int = 3,
) -> Game:
    """Seat 0 to play with `hand` on `pile`; the others hold `others`."""
    deck = iter(cards("KD KS QD QS JD JS 6C 6D 6S 8C 8D 9C 9D"))
    hands = [cards(hand), *(cards(each) for each in others)]
    ups: list[list[list[Card]]] = [[[c] for c in cards(face_up)], [], []]
    downs = [[next(deck) for _ in range(face_down)], [], []]
    return build_game(
        rules,
        hands=hands,
        face_up=ups,
        face_down=downs,
        stock=cards(stock),
        pile=cards(pile),
        turn=0,
    )


def reason_of(game: Game, action: Action) -> Hint:
    view = player_view(game, 0)
    assert action in view.legal, (action, view.legal)
    return explain(view, action)


def play(text: str) -> Play:
    return Play(0, tuple(cards(text)))


def test_nothing_that_fits_means_pick_up() -> None:
    game = position("5C 6H", "KH")
    assert hint(player_view(game, 0), seed=1) == Hint(PickUp(0), "nothing_fits")


def test_picking_up_when_a_play_fits_is_a_choice() -> None:
    game = position("7D", "6H")
    assert reason_of(game, PickUp(0)).reason == "pick_up"


def test_a_burn_card_burns_the_pile() -> None:
    game = position("10C 5D", "KH")
    assert reason_of(game, play("10C")) == Hint(play("10C"), "burns", rank=10)


def test_completing_four_of_a_kind_burns_the_pile() -> None:
    game = position("8S 9C", "8C 8D 8H")
    assert reason_of(game, play("8S")) == Hint(play("8S"), "four_burns", rank=8)


def test_a_special_card_that_is_all_that_fits() -> None:
    game = position("2C 5D", "KH")
    assert reason_of(game, play("2C")) == Hint(play("2C"), "only_special", rank=2)


def test_the_lowest_pair_goes_first() -> None:
    game = position("7D 7S 9S 2C", "6H")
    assert reason_of(game, play("7D 7S")) == Hint(play("7D 7S"), "lowest_set", rank=7, count=2)


def test_a_low_card_keeps_the_special_one_for_later() -> None:
    game = position("2C 10D 7D 9S", "6H")
    # The 10 is kept rather than the 2: both play anywhere, and the 10 also burns.
    assert reason_of(game, play("7D")) == Hint(play("7D"), "keeps_special", rank=10)


def test_the_lowest_card_that_fits() -> None:
    game = position("7D 9S", "6H")
    assert reason_of(game, play("7D")) == Hint(play("7D"), "lowest", rank=7)


def test_playing_high_holds_up_a_next_player_nearly_out() -> None:
    game = position("7D 9S", "6H", others=("3C", "3D 4D 5D 6D"), face_down=0)
    assert reason_of(game, play("9S")).reason == "starve"


def test_playing_high_without_a_reason_is_the_search_s_choice() -> None:
    game = position("7D 9S", "6H", stock="4H 4S")
    assert reason_of(game, play("9S")).reason == "search"


def test_a_run_sheds_several_cards() -> None:
    game = position("5C 6C 7C KD", "4H", rules=make_rules("classic", {"runs": True}))
    run = next(a for a in player_view(game, 0).legal if isinstance(a, Play) and len(a.cards) == 3)
    assert reason_of(game, run) == Hint(run, "run", count=3)


def test_the_stock_card_when_nothing_fits_and_when_something_does() -> None:
    rules = make_rules("classic", {"play_from_stock": True})
    assert reason_of(position("5C", "KH", rules=rules, stock="4H"), PlayStock(0)).reason == "stock"
    fits = position("KC", "KH", rules=rules, stock="4H")
    assert reason_of(fits, PlayStock(0)).reason == "stock_saves"


def test_only_face_down_cards_left() -> None:
    game = position("", "KH")
    assert reason_of(game, Flip(0, 1)).reason == "blind"


def test_the_strategy_to_ask_is_a_parameter() -> None:
    game = position("2C 7D 9S", "6H", stock="4H 4S")
    view = player_view(game, 0)
    asked: list[str] = []

    def factory(name: str, seed: int) -> Any:
        asked.append(name)
        return get_strategy("basic", seed)

    found = hint(view, seed=3, strategy="basic", factory=factory)
    assert asked == ["basic"]
    assert found.action == get_strategy("basic", 3).choose(view)


# ---------------------------------------------------------------------- hidden cards


def played_games() -> list[tuple[Game, int]]:
    """Positions from seeded games of basic players, each with the seat to act."""
    found = []
    for seed in range(6):
        game = Game.deal(CLASSIC, 3, seed=seed)
        players = [get_strategy("basic", seed * 10 + seat) for seat in range(3)]
        while not game.over and game.moves < 12 + 5 * seed:
            seat = game.to_act()[0]
            game.apply(players[seat].choose(player_view(game, seat)))
        if game.phase == "play" and game.turn is not None:
            found.append((game, game.turn))
    return found


def hidden(game: Game, seat: int) -> tuple[Any, ...]:
    """What `seat` cannot see: the others' hands, every face-down card, the stock."""
    others = tuple(sorted(game.hands[s]) for s in range(game.players) if s != seat)
    return (others, tuple(tuple(cards) for cards in game.face_down), tuple(game.stock))


@pytest.mark.parametrize("index", range(6))
def test_a_hint_never_depends_on_hidden_cards(index: int) -> None:
    games = played_games()
    game, seat = games[index % len(games)]
    view = player_view(game, seat)
    before = game_to_json(game)
    expected = hint(view, seed=99)
    assert expected.action in view.legal
    assert game_to_json(game) == before  # asking changes nothing
    worlds = Resampler(view)
    for draw in range(3):
        other = worlds.sample(random.Random(draw))
        assert hidden(other, seat) != hidden(game, seat)
        same: PlayerView = player_view(other, seat)
        assert same == view
        assert hint(same, seed=99) == expected


def test_two_built_positions_that_differ_only_in_hidden_cards_get_one_hint() -> None:
    first = position("7D 9S 2C", "6H", others=("3C 4C 5C", "3D 4D 5D"), stock="QH QC")
    second = build_game(
        CLASSIC,
        hands=[cards("7D 9S 2C"), cards("QH 4C QC"), cards("3D 4D 5D")],
        face_up=[[], [], []],
        face_down=[cards("6C 6D 6S"), [], []],
        stock=cards("3C 5C"),
        pile=cards("6H"),
        turn=0,
    )
    assert hidden(first, 0) != hidden(second, 0)
    assert player_view(first, 0) == player_view(second, 0)
    for seed in range(4):
        assert hint(player_view(first, 0), seed) == hint(player_view(second, 0), seed)
