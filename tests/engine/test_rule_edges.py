"""Rule edge cases the scenarios show, checked where scenarios can't look: events, views, JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.actions import PickUp, Play, Resign
from engine.cards import Card, CardError, parse_card, parse_cards
from engine.events import GameOver, PickedUp, Reversed
from engine.game import Game
from engine.position import build_game
from engine.rules import PRESETS, make_rules
from engine.scenarios import game_from_state, main, run_scenario
from engine.serialize import ActionFormatError, action_from_json, game_from_json, game_to_json
from engine.views import table_view


def cards(*texts: str) -> list[Card]:
    return parse_cards(texts)


# -- mode loser: a loser and places, never a winner


def _over_by_going_out(mode: str) -> tuple[Game, GameOver]:
    rules = make_rules("classic", {"mode": mode})
    game = game_from_state(
        rules,
        {"turn": 0, "pile": ["4C"], "hands": [["9C"], ["6D", "7D"]], "face_down": [[], ["3S"]]},
    )
    events = game.apply(Play(0, (parse_card("9C"),)))
    over = events[-1]
    assert isinstance(over, GameOver)
    return game, over


def test_loser_mode_reports_no_winner_in_event_view_and_json() -> None:
    game, over = _over_by_going_out("loser")
    assert (over.loser, over.winner, over.finished, over.reason) == (1, None, (0,), "out")
    assert game.winner is None
    assert table_view(game).winner is None and table_view(game).loser == 1
    assert table_view(game).seats[0].place == 1
    saved = game_to_json(game)
    assert saved["winner"] is None and saved["loser"] == 1 and saved["finished"] == [0]
    assert game_from_json(saved).winner is None


def test_a_loser_mode_game_saved_with_a_winner_loads_without_one() -> None:
    game, _ = _over_by_going_out("loser")
    saved = game_to_json(game)
    saved["winner"] = 0  # as games were saved before loser mode lost its winner
    loaded = game_from_json(saved)
    assert loaded.winner is None and loaded.loser == 1 and loaded.finished == [0]


def test_winner_mode_still_has_a_winner() -> None:
    game, over = _over_by_going_out("winner")
    assert (over.winner, over.finished) == (0, (0,))
    assert game.winner == 0 and table_view(game).winner == 0
    assert game_from_json(game_to_json(game)).winner == 0


@pytest.mark.parametrize("mode", ["loser", "winner"])
def test_resigning_names_a_winner_only_in_winner_mode(mode: str) -> None:
    game = game_from_state(
        make_rules("classic", {"mode": mode}),
        {"turn": 0, "hands": [["5C", "6C"], ["7C"], ["8C", "9C", "JC"]]},
    )
    over = game.apply(Resign(1))[-1]
    assert isinstance(over, GameOver)
    assert over.loser == 1 and over.finished == (0, 2)
    assert over.winner == (0 if mode == "winner" else None) == game.winner


@pytest.mark.parametrize("mode", ["loser", "winner"])
def test_a_stalemate_names_a_winner_only_in_winner_mode(mode: str) -> None:
    rules = make_rules(
        "classic", {"mode": mode, "pickup_turn": "same", "powers": {"2": None, "10": None}}
    )
    game = game_from_state(rules, {"turn": 0, "hands": [["5C", "5D"], ["6C", "KH", "KS"]]})
    events = []
    while not game.over:
        seat = game.turn
        assert seat is not None
        action = PickUp(seat) if game.pile else Play(seat, (min(game.hands[seat]),))
        events = game.apply(action)
    over = events[-1]
    assert isinstance(over, GameOver) and over.reason == "stalemate"
    if mode == "loser":
        assert over.winner is None and game.winner is None and over.loser is not None
    else:
        assert over.winner is not None and over.winner == game.winner


# -- reversing with two players left: no change, no event


def _reversing_ranks(preset: str) -> list[str]:
    rules = make_rules(preset)
    return sorted(rank for rank, power in rules.powers.items() if "reverse" in power.effects)


REVERSING = [(preset, rank) for preset in PRESETS for rank in _reversing_ranks(preset)]


def test_some_presets_reverse() -> None:
    assert {preset for preset, _ in REVERSING} >= {"classic", "schwechat", "gultnieks"}


def _card_of(rank: str, suit: str) -> str:
    return "JK" if rank == "JK" else f"{rank}{suit}"


@pytest.mark.parametrize(("preset", "rank"), REVERSING)
@pytest.mark.parametrize("direction", [1, -1])
def test_a_reversing_card_with_two_players_left_changes_nothing(
    preset: str, rank: str, direction: int
) -> None:
    rules = make_rules(preset, {"jokers": 1})
    card = _card_of(rank, "C")
    tables: list[tuple[list[list[str]], list[int]]] = [
        ([[card, "3D"], ["4D", "5D"]], []),
        ([[card, "3D"], ["4D", "5D"], []], [2]),
        ([[card, "3D"], [], ["4D", "5D"], []], [1, 3]),
    ]
    for hands, finished in tables:
        game = game_from_state(
            rules,
            {
                "turn": 0,
                "direction": direction,
                "hands": hands,
                "face_down": [["6S"] if hand else [] for hand in hands],
                "finished": finished,
            },
        )
        events = game.apply(Play(0, (parse_card(card),)))
        assert not any(isinstance(event, Reversed) for event in events), events
        assert game.direction == direction
        assert game.turn == game.active_players()[1]


@pytest.mark.parametrize(("preset", "rank"), REVERSING)
def test_a_reversing_card_with_three_players_in_reverses(preset: str, rank: str) -> None:
    rules = make_rules(preset, {"jokers": 1})
    card = _card_of(rank, "C")
    game = game_from_state(
        rules,
        {
            "turn": 0,
            "hands": [[card, "3D"], ["4D"], ["5D"]],
            "face_down": [["6S"], ["7S"], ["8S"]],
        },
    )
    events = game.apply(Play(0, (parse_card(card),)))
    assert Reversed(-1) in events
    assert game.direction == -1 and game.turn == 2


# -- add_one with Karma stacks: one card of a stack, one pick-up per distinct card


def _face_up_pickup(stacks: list[list[str]], decks: int = 1) -> Game:
    return game_from_state(
        make_rules("karma", {"decks": decks}),
        {
            "turn": 0,
            "pile": ["AC"],
            "hands": [[], ["5D"]],
            "face_up": [stacks, []],
            "face_down": [["2S"], ["2D"]],
        },
    )


def test_add_one_offers_every_distinct_face_up_card() -> None:
    game = _face_up_pickup([["KS", "KH", "KD"], ["4C"]])
    pickups = [a for a in game.legal_actions(0) if isinstance(a, PickUp)]
    assert pickups == [PickUp(0, card) for card in cards("KS", "KH", "KD", "4C")]
    twice = _face_up_pickup([["KS", "KS"], ["KS"]], decks=2)
    pickups = [a for a in twice.legal_actions(0) if isinstance(a, PickUp)]
    assert pickups == [PickUp(0, parse_card("KS"))]


def test_add_one_takes_one_card_of_a_stack_and_leaves_the_rest_face_up() -> None:
    game = _face_up_pickup([["KS", "KH", "KD"], ["4C"]])
    events = game.apply(PickUp(0, parse_card("KH")))
    assert game.face_up[0] == [cards("KS", "KD"), cards("4C")]
    assert sorted(game.hands[0]) == sorted(cards("AC", "KH"))
    assert events[0] == PickedUp(0, 2, (parse_card("KH"),))


def test_add_one_with_every_offered_card_is_accepted() -> None:
    for action in _face_up_pickup([["KS", "KH"], ["4C"]]).legal_actions(0):
        if isinstance(action, PickUp):
            game = _face_up_pickup([["KS", "KH"], ["4C"]])
            game.apply(action)
            assert len(game.face_up_cards(0)) == 2


# -- pickup_turn previous on a pile nobody played on


@pytest.mark.parametrize(
    ("direction", "out", "expected"),
    [(1, [False] * 4, 3), (-1, [False] * 4, 1), (1, [False, False, False, True], 2)],
)
def test_previous_after_a_pile_nobody_played_on_is_the_player_before(
    direction: int, out: list[bool], expected: int
) -> None:
    game = build_game(
        make_rules("karma"),
        turn=0,
        direction=direction,
        pile=cards("QC"),
        hands=[cards("3S"), cards("4S"), cards("5S"), [] if out[3] else cards("6S")],
        face_down=[cards("3C"), cards("4C"), cards("5C"), [] if out[3] else cards("6C")],
        finished=[3] if out[3] else [],
        last_on_pile=None,
    )
    game.apply(PickUp(0))
    assert game.turn == expected


# -- strict card text in scenarios, lenient elsewhere


def test_parse_card_stays_lenient_by_default_and_is_exact_when_strict() -> None:
    assert parse_card(" qs ") == parse_card("QS") == parse_card("QS", strict=True)
    assert parse_card("jk") == parse_card("JK", strict=True)
    for text in ("9h", " QS", "QS ", "QS\n", "Qs", "jk", "10 H", "1OH"):
        with pytest.raises(CardError):
            parse_card(text, strict=True)
    with pytest.raises(CardError):
        parse_card("QS\nX")


def test_actions_from_json_are_strict_only_when_asked() -> None:
    step = {"player": 0, "play": ["9h"]}
    assert action_from_json(step) == Play(0, (parse_card("9H"),))
    with pytest.raises(ActionFormatError):
        action_from_json(step, strict=True)
    with pytest.raises(ActionFormatError):
        action_from_json({"player": 0, "pickup": True, "add": "ks"}, strict=True)


GOOD = {
    "name": "strict cards",
    "source": "test",
    "rules": "classic",
    "state": {"turn": 0, "pile": ["4C"], "hands": [["9H"], ["6D"]]},
    "steps": [{"player": 0, "play": ["9H"], "expect": {"pile_top": "9H"}}],
}


@pytest.mark.parametrize("bad", ["9h", " 4C", "4C ", "4c"])
def test_a_malformed_card_in_state_or_expect_makes_the_scenario_malformed(bad: str) -> None:
    assert run_scenario(GOOD) == []
    in_state = json.loads(json.dumps(GOOD))
    in_state["state"]["pile"] = [bad]
    assert run_scenario(in_state)[0].startswith("setup: malformed scenario:")
    in_expect = json.loads(json.dumps(GOOD))
    in_expect["steps"][0]["expect"] = {"pile": ["4C", bad]}
    assert run_scenario(in_expect)[0].startswith("step 1: malformed step:")
    in_hand = json.loads(json.dumps(GOOD))
    in_hand["steps"][0]["expect"] = {"hands": {"0": [bad]}}
    assert run_scenario(in_hand)[0].startswith("step 1: malformed step:")


def test_the_runner_counts_a_malformed_scenario_as_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = json.loads(json.dumps(GOOD))
    bad["state"]["hands"][0] = ["9h"]
    (tmp_path / "bad.json").write_text(json.dumps([GOOD, bad]))
    assert main([str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 passed, 1 failed"
    assert "malformed scenario" in out[0] and "'9h'" in out[0]
