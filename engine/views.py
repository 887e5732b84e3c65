"""What one player, or a spectator, may see of a game."""

# Views are values: never change one after it is made. They are slotted dataclasses, not
# frozen ones (as actions are): a frozen one sets each field through `object.__setattr__`,
# and every move builds a table view and one view per seat.

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action
from engine.cards import Card
from engine.events import EndReason
from engine.game import Game, Phase
from engine.pile import Constraint
from engine.rules import RuleSet


@dataclass(slots=True, unsafe_hash=True)
class SeatView:
    """One seat as everyone sees it: face-up cards, counts and the hand cards all have seen."""

    seat: int
    hand_count: int
    known: tuple[Card, ...]
    face_up: tuple[tuple[Card, ...], ...]
    face_down_count: int
    out: bool
    place: int | None
    ready: bool


@dataclass(slots=True, unsafe_hash=True)
class TableView:
    """The public table: what a spectator sees."""

    rules: RuleSet
    phase: Phase
    turn: int | None
    direction: int
    pile: tuple[Card, ...]
    constraint: Constraint
    stock_count: int
    burned: tuple[Card, ...]
    seats: tuple[SeatView, ...]
    finished: tuple[int, ...]
    loser: int | None
    winner: int | None
    end_reason: EndReason | None
    last_on_pile: int | None
    dealer: int

    @property
    def pile_top(self) -> Card | None:
        return self.pile[-1] if self.pile else None


@dataclass(slots=True, unsafe_hash=True)
class PlayerView:
    """The table plus what only `seat` may see: their hand and their legal actions."""

    seat: int
    table: TableView
    hand: tuple[Card, ...]
    legal: tuple[Action, ...]
    chosen: bool


def table_view(game: Game) -> TableView:
    """Build the spectator's view."""
    # Built on every move, its seats in one pass over local lists: a place is looked up in
    # a dict, and a seat nobody saw a hand card of (most of them) sorts nothing.
    places = {seat: place for place, seat in enumerate(game.finished, 1)}
    loser = game.loser
    seats = tuple(
        [
            SeatView(
                seat=seat,
                hand_count=len(hand),
                known=tuple(sorted(known)) if known else (),
                face_up=tuple(map(tuple, face_up)),
                face_down_count=len(face_down),
                out=out and seat != loser,
                place=places.get(seat),
                ready=ready,
            )
            for seat, (hand, known, face_up, face_down, out, ready) in enumerate(
                zip(
                    game.hands,
                    game.known,
                    game.face_up,
                    game.face_down,
                    game.out,
                    game.ready,
                    strict=True,
                )
            )
        ]
    )
    return TableView(
        rules=game.rules,
        phase=game.phase,
        turn=game.turn,
        direction=game.direction,
        pile=tuple(game.pile),
        constraint=game.table.constraint(game.pile),
        stock_count=len(game.stock),
        burned=tuple(game.burned),
        seats=seats,
        finished=tuple(game.finished),
        loser=loser,
        winner=game.winner,
        end_reason=game.end_reason,
        last_on_pile=game.last_on_pile,
        dealer=game.dealer,
    )


def player_view(game: Game, seat: int, table: TableView | None = None) -> PlayerView:
    """Build what `seat` may see: never a face-down card, not even their own.

    `table` is the game's `table_view` when the caller built it already (it is the same for
    every seat, so a snapshot of several seats builds it once).
    """
    return PlayerView(
        seat=seat,
        table=table_view(game) if table is None else table,
        hand=tuple(sorted(game.hands[seat])),
        legal=tuple(game.legal_actions(seat)),
        chosen=game.chosen[seat],
    )
