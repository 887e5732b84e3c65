"""The position builder, the next seat still in, and the standings."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.actions import Ready, Resign
from engine.cards import parse_card, parse_cards
from engine.game import Game
from engine.position import build_game
from engine.rules import make_rules
from engine.seats import next_active, standings
from engine.serialize import game_from_json, game_to_json
from engine.tournament import places_of
from tests.engine.test_properties import parts_of


def test_a_built_position_round_trips_through_json() -> None:
    rules = make_rules("west-kent", {"stacking": True})
    game = build_game(
        rules,
        hands=[parse_cards(["5C", "5D", "9H"]), parse_cards(["KS"]), []],
        known=[parse_cards(["5D"]), [], []],
        face_up=[[parse_cards(["7C", "7D"])], [[parse_card("AH")]], []],
        face_down=[parse_cards(["2S"]), parse_cards(["3S", "4S"]), []],
        stock=parse_cards(["QC", "JC"]),
        pile=parse_cards(["6H", "8H"]),
        burned=parse_cards(["10C"]),
        finished=[2],
        turn=1,
        direction=-1,
        last_on_pile=0,
        idle=17,
        moves=88,
        dealer=2,
        seed=41,
        previous_loser=1,
    )
    assert game.out == [False, False, True]
    assert game.ready == [True] * 3 and game.chosen == [True] * 3
    saved = game_to_json(game)
    restored = game_from_json(saved)
    assert game_to_json(restored) == saved
    assert parts_of(restored) == parts_of(game)
    assert restored.rng.random() == game.rng.random()


def test_a_setup_position_defaults_to_no_one_ready() -> None:
    rules = make_rules("choose-deal")
    game = build_game(
        rules,
        phase="setup",
        hands=[parse_cards(["5C", "6C"]), parse_cards(["7C"])],
        face_up=[[[parse_card("AH")]], []],
    )
    assert game.ready == [False, False]
    assert game.chosen == [True, False]  # chosen once cards lie face up (choose deal)
    assert game.turn is None


def test_the_builder_refuses_a_part_for_the_wrong_number_of_seats() -> None:
    with pytest.raises(ValueError, match="face_down"):
        build_game(make_rules("classic"), hands=[[], []], face_down=[[]])
    with pytest.raises(ValueError, match="finished"):
        build_game(make_rules("classic"), hands=[[], []], finished=[2])


def test_next_active_skips_seats_that_are_out() -> None:
    out = [False, True, False, True]
    assert next_active(out, 0, 1) == 2
    assert next_active(out, 2, 1) == 0
    assert next_active(out, 0, -1) == 2
    assert next_active(out, 1, 1) == 2  # from a seat that is out
    assert next_active([False, True, True], 0, 1) == 0  # no one else: the seat itself
    assert next_active([True, True], 1, -1) == 1


def _tied_table(**parts: Any) -> Game:
    """Four seats: seat 2 finished; seats 0 and 1 hold two cards each, seat 3 holds three."""
    return build_game(
        make_rules("classic"),
        hands=[parse_cards(["5C", "6C"]), parse_cards(["7C"]), [], parse_cards(["8C", "9C"])],
        face_down=[[], parse_cards(["2S"]), [], parse_cards(["3S"])],
        **{"finished": [2], **parts},
    )


def test_standings_break_ties_by_who_plays_sooner() -> None:
    assert standings(_tied_table(turn=3, direction=-1)) == (2, 1, 0, 3)
    assert standings(_tied_table(turn=3, direction=1)) == (2, 0, 1, 3)
    assert standings(_tied_table(turn=1)) == (2, 1, 0, 3)
    # No one to act: count from the dealer's left.
    assert standings(_tied_table(phase="over", dealer=0)) == (2, 1, 0, 3)
    assert standings(_tied_table(phase="over", dealer=3)) == (2, 0, 1, 3)


def test_standings_put_the_loser_last() -> None:
    assert standings(_tied_table(turn=3, direction=-1, loser=1)) == (2, 0, 3, 1)
    over = _tied_table(phase="over", finished=[2, 0, 3], loser=1)
    assert standings(over) == (2, 0, 3, 1)


def test_resign_and_tournament_places_use_the_standings() -> None:
    game = _tied_table(turn=1)
    assert places_of(game) == (3, (3, 2, 1, 4))  # seat 1 is to act, so it beats seat 0's tie
    game.apply(Resign(3))
    assert game.finished == [2, 1, 0] and game.loser == 3
    assert places_of(game) == (3, (3, 2, 1, 4))


def test_a_game_s_random_state_is_stored_as_its_draws_and_resumes_the_same_stream() -> None:
    game = Game.deal(make_rules("classic", {"first_player": "random"}), 3, seed=7)
    for seat in range(3):
        game.apply(Ready(seat))
    assert game.phase == "play"  # the first player was drawn too
    data = game_to_json(game)
    assert data["rng"] == {"draws": [["shuffle", 52], ["randrange", 3]]}
    resumed = game_from_json(json.loads(json.dumps(data)))
    assert resumed.rng.getstate() == game.rng.getstate()
    assert game_to_json(resumed) == data
    assert [resumed.rng.random() for _ in range(5)] == [game.rng.random() for _ in range(5)]


def test_a_game_keeps_no_random_stream_between_its_draws_and_draws_from_its_seed() -> None:
    game = Game.deal(make_rules("classic", {"first_player": "random"}), 3, seed=7)
    assert not any(isinstance(value, random.Random) for value in vars(game).values())
    for seat in range(3):
        game.apply(Ready(seat))
    assert not any(isinstance(value, random.Random) for value in vars(game).values())
    # The deal's shuffle and the first player are the seed's stream, as if it were kept.
    stream = random.Random(7)
    stream.shuffle(list(range(52)))
    assert game.turn == stream.randrange(3)
    assert game.rng.getstate() == stream.getstate()


def test_a_game_whose_random_state_was_set_stores_the_state_itself() -> None:
    dealt = Game.deal(make_rules("classic"), 3, seed=9)
    game = build_game(
        dealt.rules,
        hands=dealt.hands,
        face_down=dealt.face_down,
        stock=dealt.stock,
        rng_state=dealt.rng.getstate(),
    )
    data = game_to_json(game)
    assert isinstance(data["rng"][1], str) and len(json.dumps(data["rng"])) < 3500
    resumed = game_from_json(json.loads(json.dumps(data)))
    assert resumed.rng.getstate() == dealt.rng.getstate()
    assert game_to_json(resumed) == data


def test_a_game_written_without_its_rules_is_read_with_them() -> None:
    game = Game.deal(make_rules("dutch"), 3, seed=5)
    data = game_to_json(game, with_rules=False)
    assert "rules" not in data
    assert game_to_json(game_from_json(data, make_rules("dutch"))) == game_to_json(game)
    with pytest.raises(ValueError, match="without its rules"):
        game_from_json(data)


def test_a_game_stored_with_its_random_state_as_a_list_still_loads() -> None:
    game = Game.deal(make_rules("classic"), 3, seed=8)
    data = game_to_json(game)
    version, internal, gauss = game.rng.getstate()
    data["rng"] = [version, list(internal), gauss]
    resumed = game_from_json(data)
    assert resumed.rng.getstate() == game.rng.getstate()
