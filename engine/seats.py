"""Seats around the table: who plays next, and the order the players finish in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.game import Game


def next_active(out: Sequence[bool], seat: int, direction: int) -> int:
    """Return the next seat after `seat` in `direction` that is not out (`seat` if none is)."""
    players = len(out)
    position = seat
    for _ in range(players):
        position = (position + direction) % players
        if not out[position]:
            return position
    return seat


def standings(game: Game) -> tuple[int, ...]:
    """Rank every seat: those finished in order, the rest by fewest cards, the loser last."""
    # A tie goes to the seat that plays sooner, counting from the player to act (from the
    # dealer's left when no one is to act).
    finished = game.finished
    loser = game.loser
    players = game.players
    position = game.turn if game.turn is not None else game.seat_order()[0]
    rest: list[int] = []
    for _ in range(players):
        if position != loser and position not in finished:
            rest.append(position)
        position = (position + game.direction) % players
    rest.sort(key=game.cards_held)  # a stable sort: ties keep the order of play
    last = () if loser is None or loser in finished else (loser,)
    return (*finished, *rest, *last)
