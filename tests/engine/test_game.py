"""Engine behaviours that scenarios don't express: resigning, stalemates, deals, views."""

from __future__ import annotations

import pytest

from engine.actions import PickUp, Play, Ready, Resign
from engine.cards import parse_card, parse_cards
from engine.errors import ErrorCode, IllegalAction
from engine.events import GameOver, Resigned
from engine.game import Game
from engine.position import build_game
from engine.rules import RulesError, make_rules
from engine.scenarios import game_from_state
from engine.serialize import game_from_json, game_to_json
from engine.views import player_view
from tests.engine.test_properties import cards_in


def position(preset: str = "classic", **state: object) -> Game:
    return game_from_state(make_rules(preset), dict(state))


def test_deal_gives_each_player_the_rules_cards() -> None:
    rules = make_rules("west-kent")
    game = Game.deal(rules, 3, seed=7)
    assert game.phase == "setup"
    assert [len(h) for h in game.hands] == [5, 5, 5]
    assert [len(d) for d in game.face_down] == [5, 5, 5]
    assert [len(game.face_up_cards(s)) for s in range(3)] == [5, 5, 5]
    assert len(game.stock) == 52 - 45


def test_same_seed_same_deal_other_seed_other_deal() -> None:
    rules = make_rules("classic")
    assert Game.deal(rules, 4, seed=3).hands == Game.deal(rules, 4, seed=3).hands
    assert Game.deal(rules, 4, seed=3).hands != Game.deal(rules, 4, seed=4).hands


@pytest.mark.parametrize(("preset", "players"), [("classic", 6), ("west-kent", 4), ("classic", 1)])
def test_impossible_table_is_refused(preset: str, players: int) -> None:
    with pytest.raises(RulesError, match="players"):
        Game.deal(make_rules(preset), players, seed=1)


def test_two_jokers_seat_six_in_classic() -> None:
    Game.deal(make_rules("classic", {"jokers": 2}), 6, seed=1)


def test_resign_makes_the_leaver_the_shithead_and_ranks_the_rest() -> None:
    game = position(
        turn=0,
        hands=[["5C", "6C"], ["7C"], ["8C", "9C", "JC"]],
        face_down=[["2S"], ["3S"], ["4S"]],
    )
    events = game.apply(Resign(1))
    assert isinstance(events[0], Resigned)
    assert isinstance(events[-1], GameOver) and events[-1].reason == "resigned"
    assert game.loser == 1
    assert game.finished == [0, 2]  # 3 cards before 4 cards
    assert game.over and game.turn is None
    with pytest.raises(IllegalAction) as info:
        game.apply(Resign(0))
    assert info.value.code == ErrorCode.WRONG_PHASE


def test_resign_in_setup_ends_the_game() -> None:
    game = Game.deal(make_rules("classic"), 3, seed=2)
    game.apply(Ready(0))
    game.apply(Resign(2))
    assert game.loser == 2 and game.phase == "over"


def test_a_loop_ends_in_a_stalemate_with_most_cards_losing() -> None:
    rules = make_rules("classic", {"pickup_turn": "same", "powers": {"2": None, "10": None}})
    game = game_from_state(
        rules, {"turn": 0, "hands": [["5C", "5D"], ["6C", "KH", "KS"]], "face_down": [[], []]}
    )
    moves, limit = 0, game.stalemate_limit()
    while not game.over:
        seat = game.turn
        assert seat is not None
        hand = sorted(game.hands[seat])
        if game.pile:
            game.apply(PickUp(seat))
        else:
            game.apply(Play(seat, (hand[0],)))
        moves += 1
        assert moves <= limit
    assert game.end_reason == "stalemate"
    assert moves == limit
    assert game.loser is not None
    assert game.cards_held(game.loser) >= max(
        game.cards_held(s) for s in range(2) if s != game.loser
    )


def test_progress_resets_the_stalemate_count() -> None:
    game = build_game(
        make_rules("classic"),
        turn=0,
        hands=[parse_cards(["10C", "5C"]), parse_cards(["6C"])],
        stock=parse_cards(["7C"]),
        face_down=[parse_cards(["2S"]), parse_cards(["3S"])],
        idle=150,
    )
    game.apply(Play(0, (parse_card("10C"),)))
    assert game.idle == 0


def test_view_shows_own_hand_and_counts_only() -> None:
    game = position(
        turn=0,
        hands=[["5C", "6C"], ["7C", "8D"]],
        face_up=[["9H"], ["KH"]],
        face_down=[["2S", "3S"], ["4S"]],
    )
    view = player_view(game, 0)
    assert view.hand == tuple(parse_cards(["5C", "6C"]))
    assert view.table.seats[1].hand_count == 2
    assert view.table.seats[1].face_down_count == 1
    assert view.table.seats[0].face_up == ((parse_card("9H"),),)
    hidden = set(parse_cards(["7C", "8D", "2S", "3S", "4S"]))
    assert not cards_in(view) & hidden
    assert player_view(game, 1).legal == ()


def test_first_player_lowest_prefers_face_up_then_dealer_left() -> None:
    game = build_game(
        make_rules("classic"),
        phase="setup",
        dealer=0,
        hands=[parse_cards(["3C"]), parse_cards(["3D"]), parse_cards(["KC"])],
        face_up=[[[parse_card("AS")]], [[parse_card("4S")]], [[parse_card("3H")]]],
        face_down=[parse_cards(["9S"]), parse_cards(["9D"]), parse_cards(["9H"])],
    )
    for seat in range(3):
        game.apply(Ready(seat))
    assert game.turn == 2  # a face-up 3 beats hand 3s; 2s have a power


def test_a_game_saved_before_known_cards_loads_with_none_known() -> None:
    game = Game.deal(make_rules("classic"), 3, seed=4)
    saved = game_to_json(game)
    del saved["known"]
    assert game_from_json(saved).known == [[], [], []]
