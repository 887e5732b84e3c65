"""Build a game from explicit parts: the one place outside `Game` that sets its state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.cards import Card
from engine.events import EndReason
from engine.game import Game, Phase
from engine.rules import RuleSet


def _per_seat(name: str, values: Sequence[object], players: int) -> None:
    """Refuse a per-seat list that does not have one entry per player."""
    if len(values) != players:
        raise ValueError(f"{name} needs one entry per player ({players}), not {len(values)}")


def build_game(
    rules: RuleSet,
    *,
    hands: Sequence[Sequence[Card]],
    known: Sequence[Sequence[Card]] | None = None,
    face_up: Sequence[Sequence[Sequence[Card]]] | None = None,
    face_down: Sequence[Sequence[Card]] | None = None,
    stock: Sequence[Card] = (),
    pile: Sequence[Card] = (),
    burned: Sequence[Card] = (),
    finished: Sequence[int] = (),
    out: Sequence[bool] | None = None,
    phase: Phase = "play",
    turn: int | None = None,
    direction: int = 1,
    ready: Sequence[bool] | None = None,
    chosen: Sequence[bool] | None = None,
    last_on_pile: int | None = None,
    loser: int | None = None,
    winner: int | None = None,
    end_reason: EndReason | None = None,
    idle: int = 0,
    moves: int = 0,
    dealer: int | None = None,
    seed: int = 0,
    previous_loser: int | None = None,
    rng_state: tuple[Any, ...] | None = None,
    check_players: bool = False,
) -> Game:
    """Set up a game in exactly this position, one hand per player; unnamed parts default."""
    players = len(hands)
    game = Game(
        rules,
        players,
        dealer=dealer,
        seed=seed,
        previous_loser=previous_loser,
        check_players=check_players,
    )
    if rng_state is not None:  # `Random.getstate()`; else the stream starts from `seed`
        game.rng.setstate(rng_state)
        game.draws = None  # the draws that led there are unknown
    empty: list[list[Any]] = [[] for _ in range(players)]
    up = empty if face_up is None else face_up
    down = empty if face_down is None else face_down
    seen = empty if known is None else known
    for name, values in (("face_up", up), ("face_down", down), ("known", seen)):
        _per_seat(name, values, players)
    if any(not 0 <= seat < players for seat in finished):
        raise ValueError(f"finished names a seat that is not from 0 to {players - 1}")
    # By default the seats out are those finished, and everyone is ready once play is on; face-up
    # cards count as chosen in play, with the classic deal, or once some lie face up.
    if out is None:
        out = [seat in finished for seat in range(players)]
    if ready is None:
        ready = [phase != "setup"] * players
    if chosen is None:
        classic = rules.deal == "classic"
        chosen = [phase != "setup" or classic or bool(stacks) for stacks in up]
    for name, flags in (("out", out), ("ready", ready), ("chosen", chosen)):
        _per_seat(name, flags, players)
    game.hands = [list(hand) for hand in hands]
    game.known = [list(cards) for cards in seen]
    game.face_up = [[list(stack) for stack in stacks] for stacks in up]
    game.face_down = [list(cards) for cards in down]
    game.stock = list(stock)
    game.pile = list(pile)
    game.burned = list(burned)
    game.finished = list(finished)
    game.out = list(out)
    game.phase = phase
    game.turn = turn
    game.direction = direction
    game.ready = list(ready)
    game.chosen = list(chosen)
    game.last_on_pile = last_on_pile
    game.loser = loser
    game.winner = winner
    game.end_reason = end_reason
    game.idle = idle
    game.moves = moves
    return game
