"""Typed actions a player can take, setup and play."""

# Actions are values: never change one after it is made. They are slotted dataclasses,
# not frozen ones, because a frozen dataclass costs a third of the engine's moves/s.

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import Card


@dataclass(slots=True, unsafe_hash=True)
class Play:
    """Play cards from the hand, or from the face-up cards once the hand is empty."""

    player: int
    cards: tuple[Card, ...]


@dataclass(slots=True, unsafe_hash=True)
class Flip:
    """Turn face-down card `index` (0-based among those left) and play it blind."""

    player: int
    index: int


@dataclass(slots=True, unsafe_hash=True)
class PickUp:
    """Take the pile into the hand; `add` is the face-up card put on it first (`add_one`)."""

    player: int
    add: Card | None = None


@dataclass(slots=True, unsafe_hash=True)
class PlayStock:
    """Turn the top stock card and play it (`play_from_stock`)."""

    player: int


@dataclass(slots=True, unsafe_hash=True)
class Swap:
    """Setup: exchange a hand card with a face-up card."""

    player: int
    hand_card: Card
    face_up_card: Card


@dataclass(slots=True, unsafe_hash=True)
class Choose:
    """Setup with `deal: choose`: the hand cards that go face up."""

    player: int
    cards: tuple[Card, ...]


@dataclass(slots=True, unsafe_hash=True)
class Stack:
    """Setup with `stacking`: put hand cards on the face-up stack of their rank."""

    player: int
    cards: tuple[Card, ...]


@dataclass(slots=True, unsafe_hash=True)
class Ready:
    """Setup: this player is done."""

    player: int


@dataclass(slots=True, unsafe_hash=True)
class Resign:
    """Leave the game (or be removed for idling): the leaver is the Shithead."""

    player: int


Action = Play | Flip | PickUp | PlayStock | Swap | Choose | Stack | Ready | Resign
