"""Private views fit Discord's limits and never carry a hidden card."""

from __future__ import annotations

import json

import pytest

from bot import custom_ids, views
from bot.render import (
    KNOWN_SHOWN,
    card_text,
    constraint_text,
    describe,
    rules_summary,
    table_embed,
)
from bot.tables import Seat, Table
from bot.views import Selection, lobby_view, private_view
from engine.actions import PickUp
from engine.cards import Card, sort_key
from engine.events import Burned, Played
from engine.game import Game
from engine.pile import Constraint
from engine.rules import make_rules


def big_hand_table() -> Table:
    rules = make_rules("classic", {"decks": 4, "runs": True})
    game = Game.deal(rules, 2, seed=5)
    game.phase, game.turn = "play", 0
    game.hands[0].extend(game.stock[:37])
    del game.stock[:37]
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, [Seat(3, "Ana"), Seat(4, "Ben")])
    table.game, table.phase = game, "play"
    return table


def test_a_forty_card_hand_fits_the_limits_and_hides_face_down_cards() -> None:
    table = big_hand_table()
    assert table.game is not None and len(table.game.hands[0]) == 40
    view = private_view(table, table.view(0), Selection(play=3))
    rows = view.to_components()
    assert len(rows) <= 5
    for row in rows:
        assert len(row["components"]) <= 5
        for item in row["components"]:
            assert len(item.get("options", [])) <= 25
            assert custom_ids.parse(item["custom_id"]) is not None
    text = json.dumps(rows, ensure_ascii=False)
    hidden = {card_text(c) for c in table.game.face_down[0] + table.game.hands[1]}
    hidden -= {card_text(c) for c in table.game.hands[0]}
    assert not [card for card in hidden if card in text]
    play = [i for row in rows for i in row["components"] if ":play" in i["custom_id"]]
    assert play[0]["custom_id"] == "sh:abc:0:play:3" and not play[0].get("disabled")


def test_words_for_the_pile_and_the_moves() -> None:
    assert constraint_text(Constraint("lower_equal", 7, frozenset())) == "7 or lower"
    assert constraint_text(Constraint("any", 0, frozenset())) == "anything"
    lines = describe([Played(0, (Card(10, "H"),), "hand"), Burned(0, 4, "power")], ["Ana", "Ben"])
    assert lines == ["Ana played 10♥", "Ana burned the pile with a 10"]


def test_the_lobby_offers_only_the_computer_levels_the_engine_has(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = Table("abc", 1, 2, 3, "classic", make_rules(), 5, 90, 3, [Seat(3, "Ana")])
    labels = {
        item["custom_id"]: item["label"]
        for row in lobby_view(table).to_components()
        for item in row["components"]
    }
    assert labels["sh:abc:0:addbot:0"] == "Add computer player (basic)"
    assert labels["sh:abc:0:addbot:1"] == "Add computer player (expert)"
    monkeypatch.setattr(views, "available_levels", lambda: ["basic"])
    only = [i["custom_id"] for row in lobby_view(table).to_components() for i in row["components"]]
    assert only == ["sh:abc:0:join", "sh:abc:0:leave", "sh:abc:0:start", "sh:abc:0:addbot:0"]


def test_play_and_swap_stay_greyed_out_until_the_menus_name_a_choice() -> None:
    rules = make_rules("classic")
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, [Seat(3, "Ana"), Seat(4, "Ben")])
    table.game, table.phase = Game.deal(rules, 2, seed=5), "setup"

    def swap_button(selection: Selection) -> dict[str, object]:
        rows = private_view(table, table.view(0), selection).to_components()
        return next(
            item
            for row in rows
            for item in row["components"]
            if item["custom_id"].startswith("sh:abc:0:swap")
        )

    assert swap_button(Selection()) == swap_button(Selection(swap_hand=1))
    assert swap_button(Selection())["disabled"]
    chosen = swap_button(Selection(swap_hand=1, swap_face_up=2))
    assert chosen["custom_id"] == "sh:abc:0:swap:1.2" and not chosen.get("disabled")
    idle = big_hand_table()
    rows = private_view(idle, idle.view(0)).to_components()
    play = [i for row in rows for i in row["components"] if ":play" in i["custom_id"]]
    assert play[0]["custom_id"] == "sh:abc:0:play" and play[0]["disabled"]


def test_the_rules_summary_names_powers_in_words() -> None:
    summary = rules_summary(make_rules("dutch"), "dutch")
    assert "burns" in summary and "next lower" in summary and "is see-through" in summary
    assert "lower_equal" not in summary and "glass" not in summary


def test_the_table_shows_cards_seen_going_into_a_hand_and_stays_within_a_field() -> None:
    table = big_hand_table()
    game = table.game
    assert game is not None
    game.pile = list(game.stock[:20])
    del game.stock[:20]
    game.turn = 1
    game.apply(PickUp(1))
    embed = table_embed(table)
    seats = next(field for field in embed.fields if field.name == "Seats")
    ben = next(line for line in str(seats.value).splitlines() if "Ben" in line)
    shown = sorted(game.known[1], key=sort_key)[-KNOWN_SHOWN:]
    assert "seen in hand " + " ".join(card_text(card) for card in shown) in ben
    assert "and 14 more" in ben
    ana = next(line for line in str(seats.value).splitlines() if "Ana" in line)
    assert "seen in hand" not in ana


def test_six_long_names_with_known_cards_fit_one_field() -> None:
    rules = make_rules("classic", {"decks": 3})
    game = Game.deal(rules, 6, seed=2)
    game.phase, game.turn = "play", 0
    for seat in range(6):
        taken = game.stock[:16]
        del game.stock[:16]
        game.hands[seat] += taken
        game.known[seat] += taken
    seats = [Seat(10 + n, f"{'W' * 30}{n}") for n in range(6)]
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, seats)
    table.game, table.phase = game, "play"
    field = next(field for field in table_embed(table).fields if field.name == "Seats")
    assert str(field.value).count("seen in hand") == 6
    assert len(str(field.value)) <= 1024
