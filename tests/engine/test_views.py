"""Views: each field holds what the game says under that name (they are built positionally)."""

from __future__ import annotations

from engine.cards import Card, parse_cards
from engine.game import Game
from engine.position import build_game
from engine.rules import make_rules
from engine.views import player_view, table_view


def cards(text: str) -> list[Card]:
    """Read cards written with spaces between them."""
    return parse_cards(text.split())


def a_game_under_way() -> Game:
    """A four-seat game in play where no two counts, seats or flags coincide by chance."""
    return build_game(
        make_rules("classic"),
        hands=[cards("3C 5D"), cards("4C 6D 8H 9S 10C"), [], cards("KD")],
        known=[[], cards("9S 4C"), [], []],
        face_up=[
            [cards("7C")],
            [cards("QH"), cards("JH")],
            [],
            [cards("AS"), cards("AC"), cards("2D")],
        ],
        face_down=[cards("5S 6S 7S"), cards("8D"), [], cards("3H 4H")],
        stock=cards("2C 3S 4S 5C 6C 7D"),
        pile=cards("5H 6H"),
        burned=cards("10H 10D 10S 10C QS QD QC JC"),
        finished=[2],
        out=[False, False, True, False],
        turn=1,
        direction=-1,
        chosen=[True, False, True, True],
        last_on_pile=3,
        dealer=0,
    )


def test_the_table_view_names_every_field_as_the_game_does() -> None:
    game = a_game_under_way()
    view = table_view(game)
    assert (view.rules, view.phase, view.turn, view.direction) == (game.rules, "play", 1, -1)
    assert view.pile == tuple(cards("5H 6H"))
    assert view.burned == tuple(game.burned) and len(view.burned) == 8
    assert view.constraint == game.table.constraint(game.pile)
    assert view.stock_count == 6
    assert view.finished == (2,)
    assert (view.loser, view.winner, view.end_reason) == (None, None, None)
    assert (view.last_on_pile, view.dealer) == (3, 0)
    assert [seat.seat for seat in view.seats] == [0, 1, 2, 3]
    assert [seat.hand_count for seat in view.seats] == [2, 5, 0, 1]
    assert view.seats[1].known == tuple(cards("4C 9S"))
    assert [len(seat.face_up) for seat in view.seats] == [1, 2, 0, 3]
    assert [seat.face_down_count for seat in view.seats] == [3, 1, 0, 2]
    assert [seat.out for seat in view.seats] == [False, False, True, False]
    assert [seat.place for seat in view.seats] == [None, None, 1, None]
    assert [seat.ready for seat in view.seats] == game.ready


def test_a_player_view_holds_the_seats_own_hand_and_legal_actions() -> None:
    game = a_game_under_way()
    view = player_view(game, 1)
    assert view.seat == 1
    assert view.table == table_view(game)
    assert view.hand == tuple(cards("4C 6D 8H 9S 10C"))
    assert view.legal == tuple(game.legal_actions(1)) and view.legal
    assert view.chosen is False
