"""A table's state: its seats, its rules, its game, its log, its timers; and its JSON.

Phase and turn come from the engine's game; the table adds only what comes before the deal
(the lobby) and after a table is given up (closed). Message ids and DM bookkeeping belong to
the Discord layer and are not kept here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine.game import Game
from engine.rules import RuleSet, rules_from_json, rules_to_json
from engine.serialize import game_from_json, game_to_json
from engine.views import PlayerView, player_view
from tables.notes import Note

Phase = Literal["lobby", "setup", "play", "over", "closed"]
OPEN_PHASES: tuple[Phase, ...] = ("lobby", "setup", "play")
# Version 2 keeps the log as notes and no message bookkeeping; version 1 (no "format" key)
# kept English move lines, message ids and DM ids in the table.
FORMAT = 2


class TableFormatError(ValueError):
    """A stored table cannot be read."""


@dataclass
class Seat:
    """One player at a table: a member, or a computer player (`computer` names its level)."""

    user_id: int
    name: str
    computer: str | None = None
    timeouts: int = 0
    removed: bool = False
    version: int = 0

    @property
    def automatic(self) -> bool:
        """Say whether this seat's moves are made by the bot."""
        return self.computer is not None

    def to_json(self) -> dict[str, Any]:
        """Write the seat."""
        return {
            "user_id": self.user_id,
            "name": self.name,
            "computer": self.computer,
            "timeouts": self.timeouts,
            "removed": self.removed,
            "version": self.version,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        """Read a seat written by `to_json` (older fields are ignored)."""
        return cls(
            user_id=int(data["user_id"]),
            name=str(data["name"]),
            computer=data.get("computer"),
            timeouts=int(data.get("timeouts", 0)),
            removed=bool(data.get("removed", False)),
            version=int(data.get("version", 0)),
        )


@dataclass(frozen=True)
class TableConfig:
    """A server's settings as a new table needs them."""

    rules: RuleSet
    preset: str
    turn_seconds: float
    idle_turns: int
    remind_seconds: float = 30.0
    # The language code the table's public messages are shown in (data, not words).
    language: str = "en"
    # Whether the shell shows pictures of the cards beside the text.
    pictures: bool = True
    # Whether players may ask for a hint in their private view (the host's choice).
    hints: bool = False


@dataclass
class Table:
    """One table in one channel: its lobby, then its game, then its result."""

    id: str
    guild_id: int
    channel_id: int
    host_id: int
    preset: str
    rules: RuleSet
    seed: int
    turn_seconds: float
    idle_turns: int
    seats: list[Seat] = field(default_factory=list)
    remind_seconds: float = 30.0
    language: str = "en"
    pictures: bool = True
    hints: bool = False
    game: Game | None = None
    closed: bool = False
    version: int = 0
    log: list[Note] = field(default_factory=list)
    deadline: float | None = None
    reminded: bool = False
    created_at: float = 0.0
    started_at: float | None = None
    ended_at: float | None = None
    ended_reason: str | None = None
    previous_loser: int | None = None

    @property
    def phase(self) -> Phase:
        """Say where the table is: the lobby, the game's own phase, or closed."""
        if self.closed:
            return "closed"
        if self.game is None:
            return "lobby"
        return self.game.phase

    @property
    def open(self) -> bool:
        """Say whether the table is still in its lobby or game."""
        return self.phase in OPEN_PHASES

    @property
    def names(self) -> list[str]:
        """Name every seat, in seat order."""
        return [seat.name for seat in self.seats]

    def seat_of(self, user_id: int) -> int | None:
        """Return the seat of a member, if they sit here."""
        for index, seat in enumerate(self.seats):
            if seat.computer is None and seat.user_id == user_id:
                return index
        return None

    def humans(self) -> list[int]:
        """Return the seats of members, removed ones included."""
        return [i for i, seat in enumerate(self.seats) if seat.computer is None]

    def view(self, seat: int) -> PlayerView:
        """Return what `seat` may see now."""
        assert self.game is not None
        return player_view(self.game, seat)

    def to_json(self) -> dict[str, Any]:
        """Write everything needed to resume the table after a restart."""
        return {
            "format": FORMAT,
            "id": self.id,
            "guild_id": self.guild_id,
            "channel_id": self.channel_id,
            "host_id": self.host_id,
            "preset": self.preset,
            # Shared by equal rule sets, found by identity (`engine.rules`): read-only.
            "rules": rules_to_json(self.rules),
            "seed": self.seed,
            "turn_seconds": self.turn_seconds,
            "idle_turns": self.idle_turns,
            "remind_seconds": self.remind_seconds,
            "language": self.language,
            "pictures": self.pictures,
            "hints": self.hints,
            "seats": [seat.to_json() for seat in self.seats],
            "game": self._game_json(),
            "closed": self.closed,
            "version": self.version,
            "log": [note.json for note in self.log],
            "deadline": self.deadline,
            "reminded": self.reminded,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "ended_reason": self.ended_reason,
            "previous_loser": self.previous_loser,
        }

    def _game_json(self) -> dict[str, Any] | None:
        """Write the game, its rules only if they are not the table's (they are written once)."""
        game = self.game
        if game is None:
            return None
        return game_to_json(
            game, with_rules=game.rules is not self.rules and game.rules != self.rules
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Table:
        """Read a table written by `to_json`, or by the version-1 format before it."""
        try:
            return cls._read(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise TableFormatError(f"{type(exc).__name__}: {exc}") from exc

    @classmethod
    def _read(cls, data: dict[str, Any]) -> Table:
        version = data.get("format", 1)
        if version not in (1, FORMAT):
            raise TableFormatError(f"unknown table format {version!r}")
        # Version 1 kept the move log as English lines: they are dropped, not shown again.
        log = [Note.from_json(note) for note in data.get("log", [])] if version == FORMAT else []
        rules = rules_from_json(data["rules"])
        return cls(
            id=str(data["id"]),
            guild_id=int(data["guild_id"]),
            channel_id=int(data["channel_id"]),
            host_id=int(data["host_id"]),
            preset=str(data["preset"]),
            rules=rules,
            seed=int(data["seed"]),
            turn_seconds=float(data["turn_seconds"]),
            idle_turns=int(data["idle_turns"]),
            remind_seconds=float(data.get("remind_seconds", 30.0)),
            language=str(data.get("language", "en")),
            pictures=bool(data.get("pictures", True)),
            hints=bool(data.get("hints", False)),
            seats=[Seat.from_json(seat) for seat in data["seats"]],
            game=game_from_json(data["game"], rules) if data.get("game") else None,
            closed=bool(data.get("closed", data.get("phase") == "closed")),
            version=int(data.get("version", 0)),
            log=log,
            deadline=data.get("deadline"),
            reminded=bool(data.get("reminded", False)),
            created_at=float(data.get("created_at", 0.0)),
            started_at=data.get("started_at"),
            ended_at=data.get("ended_at"),
            ended_reason=data.get("ended_reason"),
            previous_loser=data.get("previous_loser"),
        )
