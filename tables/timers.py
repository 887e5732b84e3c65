"""When a table's timer fires next, and for what: one plan at a time per table."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from tables.model import Table

Kind = Literal["close", "auto", "setup_over", "remind", "timeout"]


@dataclass(frozen=True)
class Timing:
    """How long things take: lobbies, setup, computer players, reminders."""

    lobby_seconds: float = 900.0
    setup_seconds: float = 120.0
    computer_delay: float = 1.2
    # Replace the server's turn and reminder times when set (tests use short ones).
    turn_seconds: float | None = None
    remind_seconds: float | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    """The next thing a table's timer does: at `when`, `kind`, for `seat`."""

    when: float
    kind: Kind
    seat: int | None = None


def plan(table: Table, now: float, timing: Timing) -> Plan | None:
    """Say when the table's timer fires next, for what and which seat."""
    game = table.game
    phase = table.phase
    if phase == "lobby" and table.deadline is not None:
        return Plan(table.deadline, "close")
    if game is None or phase not in ("setup", "play"):
        return None
    if phase == "setup":
        # Computer players get ready one after the other; then everyone waits for the members.
        waiting = [s for s in game.to_act() if table.seats[s].automatic]
        if waiting:
            return Plan(now + timing.computer_delay, "auto", waiting[0])
        return Plan(table.deadline or now, "setup_over")
    turn = game.turn
    assert turn is not None
    if table.seats[turn].automatic:
        return Plan(now + timing.computer_delay, "auto", turn)
    deadline = table.deadline or now
    # One reminder a turn, `remind_seconds` into it, if that comes before the turn runs out.
    remind_at = deadline - table.turn_seconds + table.remind_seconds
    if not table.reminded and remind_at < deadline:
        return Plan(max(remind_at, now), "remind", turn)
    return Plan(deadline, "timeout", turn)


class Armed(Protocol):
    """A callback waiting for its moment, which can be called off."""

    def cancel(self) -> None:
        """Call the callback off."""


# Call back after that many seconds: the event loop's `call_later` (tests move a fake clock).
Later = Callable[[float, Callable[[], None]], Armed]


def call_later(seconds: float, callback: Callable[[], None]) -> Armed:
    """Have the running event loop call `callback` after `seconds`."""
    return asyncio.get_running_loop().call_later(seconds, callback)
