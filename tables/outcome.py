"""What the core gives back: a frozen snapshot of a table, and an outcome of a request.

Snapshots and outcomes are values: never change one after it is made. They are slotted
dataclasses, not frozen ones (as the engine's views are): a frozen one sets each field
through `object.__setattr__`, and every move makes a snapshot, a seat snapshot per seat
and an outcome.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.events import Event
from engine.rules import RuleSet
from engine.views import PlayerView, TableView, player_view, table_view
from tables.controls import Controls, controls
from tables.model import Phase, Table
from tables.notes import Note


@dataclass(slots=True, unsafe_hash=True)
class SeatSnapshot:
    """One seat as the shell shows it."""

    seat: int
    user_id: int
    name: str
    computer: str | None
    removed: bool
    version: int

    @property
    def automatic(self) -> bool:
        """Say whether the bot plays this seat."""
        return self.computer is not None


@dataclass(slots=True)
class Snapshot:
    """A table at one moment, for renderers: nothing in it changes afterwards.

    `public` is what a spectator sees; `private` holds each seated member's own view (their
    hand and legal actions), to be shown to that member only. `drawn` is where the shell
    keeps what it draws from this snapshot alike for every viewer (the public part of its
    messages, per language), so the table message and every private view share it; a copy
    made with `dataclasses.replace` starts with nothing drawn. A seat's choices are grouped
    once too (`choices`): its view's components and a click on them read the same lists.
    """

    id: str
    guild_id: int
    channel_id: int
    host_id: int
    preset: str
    rules: RuleSet
    phase: Phase
    version: int
    seats: tuple[SeatSnapshot, ...]
    log: tuple[Note, ...]
    public: TableView | None
    private: Mapping[int, PlayerView]
    ended_reason: str | None
    language: str = "en"
    pictures: bool = True
    hints: bool = False
    drawn: dict[object, object] = field(default_factory=dict, init=False, repr=False, compare=False)
    _choices: dict[int, Controls] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def open(self) -> bool:
        """Say whether the table is still in its lobby or game."""
        return self.phase in ("lobby", "setup", "play")

    @property
    def names(self) -> list[str]:
        """Name every seat, in seat order."""
        return [seat.name for seat in self.seats]

    @property
    def turn(self) -> int | None:
        """Return the seat to play, in the play phase."""
        return self.public.turn if self.public is not None else None

    def choices(self, seat: int) -> Controls | None:
        """Group a seated member's choices in this snapshot, once; None for no such view."""
        found = self._choices.get(seat)
        if found is None:
            view = self.private.get(seat)
            if view is None:
                return None
            found = self._choices[seat] = controls(view)
        return found

    def seat_of(self, user_id: int) -> int | None:
        """Return a member's seat, if they sit here."""
        for seat in self.seats:
            if seat.computer is None and seat.user_id == user_id:
                return seat.seat
        return None

    def humans(self) -> list[int]:
        """Return the seats of members, removed ones included."""
        return [seat.seat for seat in self.seats if seat.computer is None]


def snapshot(table: Table) -> Snapshot:
    """Freeze a table for rendering: the public view and each seated member's own view."""
    game = table.game
    public = table_view(game) if game is not None else None
    private: dict[int, PlayerView] = {}
    if game is not None:
        for index, seat in enumerate(table.seats):
            if seat.computer is None and not seat.removed:
                # Every seat's view holds the same public part: built once, shared.
                private[index] = player_view(game, index, public)
    return Snapshot(
        id=table.id,
        guild_id=table.guild_id,
        channel_id=table.channel_id,
        host_id=table.host_id,
        preset=table.preset,
        rules=table.rules,
        phase=table.phase,
        version=table.version,
        seats=tuple(
            SeatSnapshot(i, s.user_id, s.name, s.computer, s.removed, s.version)
            for i, s in enumerate(table.seats)
        ),
        log=tuple(table.log),
        public=public,
        private=private,
        ended_reason=table.ended_reason,
        language=table.language,
        pictures=table.pictures,
        hints=table.hints,
    )


@dataclass(slots=True)
class Outcome:
    """What a request or a timer did: engine events, notices to say, the table afterwards.

    `actor` is the seat whose own request it was (its answer shows the new state), or None
    for the bot's own doing (timers, computer players, restores).
    """

    snapshot: Snapshot
    events: tuple[Event, ...] = ()
    notices: tuple[Note, ...] = ()
    actor: int | None = None
