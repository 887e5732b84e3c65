"""What a member asks of a table: typed intents, one class a request.

Game intents name choices by index into the member's own controls (`tables.controls`) for
the view version they saw, never by card: a forged or stale click can name nothing hidden.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Member:
    """Who is asking: a member's id and display name, and whether they moderate."""

    user_id: int
    name: str
    moderator: bool = False


# ---------------------------------------------------------------------- lobby and host


@dataclass(frozen=True)
class Join:
    """Sit down in the lobby."""


@dataclass(frozen=True)
class Leave:
    """Stand up from the lobby, or leave the running game (and lose it)."""


@dataclass(frozen=True)
class AddComputer:
    """Seat a computer player of a level."""

    level: str = "basic"


@dataclass(frozen=True)
class Start:
    """Deal the cards (the host)."""


@dataclass(frozen=True)
class Kick:
    """Unseat or remove a member (the host or a moderator)."""

    user_id: int


@dataclass(frozen=True)
class End:
    """Close the table without a result (the host or a moderator)."""


@dataclass(frozen=True)
class SetHints:
    """Turn hints for practice on or off for the table (the host, in the lobby)."""

    on: bool


@dataclass(frozen=True)
class Rematch:
    """Open a new table with the players of a finished one and deal at once."""


# ---------------------------------------------------------------------- the game


@dataclass(frozen=True)
class Look:
    """Check that a player's view is current (a menu choice that changes nothing)."""


@dataclass(frozen=True)
class PlayCards:
    """Play the `index`-th play of the player's play list."""

    index: int


@dataclass(frozen=True)
class PickUpPile:
    """Pick up the pile, the `index`-th way offered (which face-up card goes on it first)."""

    index: int = 0


@dataclass(frozen=True)
class FlipCard:
    """Turn the `index`-th face-down card offered."""

    index: int


@dataclass(frozen=True)
class TurnStock:
    """Turn the top stock card and play it."""


@dataclass(frozen=True)
class SwapCards:
    """Setup: swap the `hand`-th swappable hand card with the `face_up`-th face-up card."""

    hand: int
    face_up: int


@dataclass(frozen=True)
class ChooseFaceUp:
    """Setup: put the cards at these indexes of the choose pool face up."""

    indexes: tuple[int, ...]


@dataclass(frozen=True)
class StackCards:
    """Setup: the `index`-th stack offered."""

    index: int


@dataclass(frozen=True)
class MarkReady:
    """Setup: done."""


LobbyIntent = Join | Leave | AddComputer | Start | Kick | End | SetHints | Rematch
GameIntent = (
    Look
    | PlayCards
    | PickUpPile
    | FlipCard
    | TurnStock
    | SwapCards
    | ChooseFaceUp
    | StackCards
    | MarkReady
)
Intent = LobbyIntent | GameIntent
