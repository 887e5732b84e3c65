"""What happened: the events `apply` returns, in order."""

# Events are values: never change one after it is made. They are slotted dataclasses,
# not frozen ones, because a frozen dataclass costs a third of the engine's moves/s.

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.cards import Card

Zone = Literal["hand", "face_up", "face_down", "stock"]
EndReason = Literal["out", "stalemate", "resigned"]


@dataclass(slots=True, unsafe_hash=True)
class Swapped:
    player: int
    hand_card: Card
    face_up_card: Card


@dataclass(slots=True, unsafe_hash=True)
class Chose:
    player: int
    cards: tuple[Card, ...]


@dataclass(slots=True, unsafe_hash=True)
class Stacked:
    player: int
    cards: tuple[Card, ...]


@dataclass(slots=True, unsafe_hash=True)
class MarkedReady:
    player: int


@dataclass(slots=True, unsafe_hash=True)
class PlayStarted:
    """Setup ended; `first` leads, for `reason` (`lowest`, `random`, `loser`...)."""

    first: int
    reason: str


@dataclass(slots=True, unsafe_hash=True)
class Revealed:
    """A face-down or stock card was turned over."""

    player: int
    card: Card
    zone: Zone


@dataclass(slots=True, unsafe_hash=True)
class Played:
    player: int
    cards: tuple[Card, ...]
    zone: Zone


@dataclass(slots=True, unsafe_hash=True)
class Burned:
    """The pile left the game, by a burning card or four of a kind."""

    player: int
    count: int
    reason: Literal["power", "four_of_a_kind"]


@dataclass(slots=True, unsafe_hash=True)
class PickedUp:
    """The player took `count` cards into the hand (`added` went on the pile first)."""

    player: int
    count: int
    added: tuple[Card, ...] = ()


@dataclass(slots=True, unsafe_hash=True)
class Drew:
    player: int
    count: int


@dataclass(slots=True, unsafe_hash=True)
class Skipped:
    players: tuple[int, ...]


@dataclass(slots=True, unsafe_hash=True)
class Reversed:
    direction: int


@dataclass(slots=True, unsafe_hash=True)
class WentOut:
    player: int
    place: int


@dataclass(slots=True, unsafe_hash=True)
class Resigned:
    player: int


@dataclass(slots=True, unsafe_hash=True)
class TurnPassed:
    player: int


@dataclass(slots=True, unsafe_hash=True)
class GameOver:
    """The game ended: a player went out, a stalemate, or a player resigned."""

    loser: int | None
    winner: int | None
    finished: tuple[int, ...]
    reason: EndReason


Event = (
    Swapped
    | Chose
    | Stacked
    | MarkedReady
    | PlayStarted
    | Revealed
    | Played
    | Burned
    | PickedUp
    | Drew
    | Skipped
    | Reversed
    | WentOut
    | Resigned
    | TurnPassed
    | GameOver
)
