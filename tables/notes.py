"""Notes: what happened at a table as data (a code and its parameters), never as words.

The move log and the notices of an outcome are notes. A note names a player by seat
(`seat`, `seats`), or by display name (`name`) for someone with no seat, so it is shown with
the seat's name in the reader's language; cards are written in the engine's notation
(`10H`, `JK`) and put into words only when shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from engine.cards import Card, card_text, format_cards
from engine.events import (
    Burned,
    Event,
    GameOver,
    MarkedReady,
    PickedUp,
    Played,
    PlayStarted,
    Revealed,
    Reversed,
    Skipped,
    WentOut,
)


@dataclass(frozen=True)
class Note:
    """One thing that happened or should be said: `code` names it, `params` fill it in."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @cached_property
    def json(self) -> dict[str, Any]:
        """Write the note, once (read-only: it is kept, and the log is written at every move)."""
        return {"code": self.code, "params": dict(self.params)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Note:
        """Read a note written by `json`."""
        return cls(str(data["code"]), dict(data.get("params") or {}))


def notes_of(events: Sequence[Event]) -> list[Note]:
    """Turn what `apply` returned into log notes ("Ana burned the pile with a 10")."""
    notes: list[Note] = []
    revealed = False
    last_played: tuple[Card, ...] = ()
    for event in events:
        if isinstance(event, Revealed):
            revealed = True
            notes.append(
                Note(
                    "revealed",
                    {"seat": event.player, "zone": event.zone, "card": card_text(event.card)},
                )
            )
        elif isinstance(event, Played):
            last_played = event.cards
            # A turned card that could be played is told by its "revealed" note already.
            if not revealed:
                notes.append(
                    Note(
                        "played",
                        {
                            "seat": event.player,
                            "cards": format_cards(event.cards),
                            "zone": event.zone,
                        },
                    )
                )
        elif isinstance(event, Burned):
            burner = card_text(last_played[-1]) if event.reason == "power" and last_played else None
            notes.append(Note("burned", {"seat": event.player, "card": burner}))
        elif isinstance(event, PickedUp):
            notes.append(Note("picked_up", {"seat": event.player, "count": event.count}))
        elif isinstance(event, Skipped):
            notes.append(Note("skipped", {"seats": list(event.players)}))
        elif isinstance(event, Reversed):
            notes.append(Note("reversed"))
        elif isinstance(event, WentOut):
            notes.append(Note("went_out", {"seat": event.player, "place": event.place}))
        elif isinstance(event, GameOver) and event.loser is not None:
            notes.append(Note("shithead", {"seat": event.loser}))
        elif isinstance(event, MarkedReady):
            notes.append(Note("ready", {"seat": event.player}))
        elif isinstance(event, PlayStarted):
            notes.append(Note("leads", {"seat": event.first}))
    return notes
