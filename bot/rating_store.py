"""Skill ratings in the bot's storage: rate unrated games, read ratings, recompute them all.

Ratings are kept per server: the same member is rated apart on every server, and each
computer level (`basic`, `expert`) is one player per server. Games are rated in the order
they were recorded; a seat whose member asked to be forgotten counts as a newcomer.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from pathlib import Path

import aiosqlite

from bot.ratings import Change, Rating, Seat, ranks, replay
from bot.storage import Storage, _timestamp

log = logging.getLogger(__name__)

# Computer seats are recorded as "Computer 2 (expert)": the level is their identity.
_LEVEL = re.compile(r"\(([^()]+)\)$")
_SEATS = (
    "SELECT g.id, g.guild_id, p.seat, p.user_id, p.name, p.is_bot, p.place, p.loser, g.ended_at "
    "FROM game_players AS p JOIN games AS g ON g.id = p.game_id "
)
_RATED = (
    "SELECT g.id, g.guild_id, p.seat, p.user_id, p.name, p.is_bot, g.ended_at, "
    "r.mu_before, r.sigma_before, r.mu, r.sigma "
    "FROM seat_ratings AS r JOIN game_players AS p ON p.game_id = r.game_id AND p.seat = r.seat "
    "JOIN games AS g ON g.id = r.game_id "
)
_UNRATED = "NOT EXISTS (SELECT 1 FROM seat_ratings AS r WHERE r.game_id = g.id)"
_INSERT = (
    "INSERT INTO seat_ratings (game_id, seat, mu_before, sigma_before, mu, sigma) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)


def identity(user_id: int | None, name: str | None, is_bot: bool) -> str | None:
    """Say whose rating a seat moves: a member by id, a computer by level; None if forgotten."""
    if is_bot:
        match = _LEVEL.search(name or "")
        return f"computer:{match[1] if match else name}"
    return None if user_id is None else f"member:{user_id}"


@dataclass(frozen=True)
class _SeatRow:
    """One recorded seat, as the rating reads it."""

    game_id: int
    guild_id: int
    seat: int
    user_id: int | None
    name: str | None
    is_bot: bool
    place: int | None
    loser: bool

    @property
    def key(self) -> str:
        """Key the seat's player among every server's (a forgotten seat is nobody again)."""
        who = identity(self.user_id, self.name, self.is_bot)
        return f"{self.guild_id}/{who or f'forgotten:{self.game_id}:{self.seat}'}"


@dataclass(frozen=True)
class RatedSeat:
    """One seat of a rated game: whose, when, and its rating's change."""

    game_id: int
    identity: str | None
    name: str | None
    is_bot: bool
    ended_at: datetime
    change: Change


@dataclass(frozen=True)
class RatingRow:
    """A player's rating on a server: the latest one, after how many rated games."""

    identity: str
    name: str
    is_bot: bool
    games: int
    rating: Rating
    last_change: Change
    last_played: datetime


@dataclass(frozen=True)
class Recomputed:
    """What a recompute found: how many seats' stored ratings differed from the derived ones."""

    games: int
    seats: int
    differing: int
    unrated: int
    largest: float

    def summary(self, *, written: bool) -> str:
        """Say what was found (and done) in one line, for the command line."""
        found = (
            f"{self.games} games, {self.seats} seats rated again from nothing; stored ratings "
            f"that differed: {self.differing} (largest difference {self.largest:.3g}), "
            f"seats not rated yet: {self.unrated}"
        )
        return found + ("; stored the derived ratings." if written else ".")


def _seat_rows(rows: Sequence[aiosqlite.Row]) -> list[_SeatRow]:
    return [_SeatRow(r[0], r[1], r[2], r[3], r[4], bool(r[5]), r[6], bool(r[7])) for r in rows]


def _rated_seat(row: aiosqlite.Row) -> RatedSeat:
    return RatedSeat(
        game_id=row[0],
        identity=identity(row[3], row[4], bool(row[5])),
        name=row[4],
        is_bot=bool(row[5]),
        ended_at=datetime.fromisoformat(row[6]),
        change=Change(Rating(row[7], row[8]), Rating(row[9], row[10])),
    )


def _games(seats: Sequence[_SeatRow]) -> list[list[_SeatRow]]:
    """Group seats (ordered by game, then seat) into games."""
    return [list(game) for _, game in groupby(seats, key=lambda seat: seat.game_id)]


def _finishers(game: Sequence[_SeatRow]) -> list[Seat]:
    """Turn a recorded game into who sat where and how they finished."""
    order = ranks([seat.place for seat in game], [seat.loser for seat in game])
    return [Seat(seat.key, rank) for seat, rank in zip(game, order, strict=True)]


_Stored = tuple[int, int, float, float, float, float]


def _rows_of(games: Sequence[Sequence[_SeatRow]], changes: list[list[Change]]) -> list[_Stored]:
    return [
        (seat.game_id, seat.seat, c.before.mu, c.before.sigma, c.after.mu, c.after.sigma)
        for game, changed in zip(games, changes, strict=True)
        for seat, c in zip(game, changed, strict=True)
    ]


async def _fetch(
    db: aiosqlite.Connection, sql: str, params: Sequence[object] = ()
) -> list[aiosqlite.Row]:
    async with db.execute(sql, tuple(params)) as cursor:
        return list(await cursor.fetchall())


class RatingStore:
    """The ratings' queries, on the bot's storage and its transactions."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def rate_unrated(self) -> int:
        """Rate every game not rated yet, oldest first, from its players' ratings; say how many."""
        async with self.storage._transaction() as db:
            pending = _seat_rows(
                await _fetch(db, _SEATS + f"WHERE {_UNRATED} ORDER BY g.id, p.seat")
            )
            if not pending:
                return 0
            guilds = sorted({seat.guild_id for seat in pending})
            marks = ", ".join("?" * len(guilds))
            rated = await _fetch(
                db,
                _RATED + f"WHERE g.guild_id IN ({marks}) ORDER BY g.id, p.seat",
                guilds,
            )
            # Each player's rating is the one after their latest rated game.
            current = {
                f"{row[1]}/{who}": Rating(row[9], row[10])
                for row in rated
                if (who := identity(row[3], row[4], bool(row[5]))) is not None
            }
            games = _games(pending)
            changes = replay((_finishers(game) for game in games), current)
            await db.executemany(_INSERT, _rows_of(games, changes))
        return len(games)

    async def game_changes(self, game_id: int) -> list[Change]:
        """Read a rated game's changes, seat by seat (none while it is unrated)."""
        rows = await self.storage._fetch(_RATED + "WHERE g.id = ? ORDER BY p.seat", (game_id,))
        return [_rated_seat(row).change for row in rows]

    async def game_at(self, guild_id: int, channel_id: int, ended_at: datetime) -> int | None:
        """Find the recorded game that ended in a channel at a moment."""
        rows = await self.storage._fetch(
            "SELECT id FROM games WHERE guild_id = ? AND channel_id = ? AND ended_at = ? "
            "ORDER BY id DESC LIMIT 1",
            (guild_id, channel_id, _timestamp(ended_at)),
        )
        return rows[0][0] if rows else None

    async def member_history(self, guild_id: int, user_id: int) -> list[Change]:
        """A member's rating changes on a server, oldest first."""
        rows = await self.storage._fetch(
            _RATED + "WHERE g.guild_id = ? AND p.user_id = ? AND p.is_bot = 0 ORDER BY g.id",
            (guild_id, user_id),
        )
        return [_rated_seat(row).change for row in rows]

    async def standings(self, guild_id: int, since: datetime | None = None) -> list[RatingRow]:
        """Every rated player of a server, with their latest rating (played since a moment)."""
        rows = await self.storage._fetch(
            _RATED + "WHERE g.guild_id = ? ORDER BY g.id, p.seat", (guild_id,)
        )
        latest: dict[str, RatingRow] = {}
        last_game: dict[str, int] = {}
        for seat in map(_rated_seat, rows):
            if seat.identity is None:
                continue
            before = latest.get(seat.identity)
            # Two computers of one level at a table are one player's one game.
            again = last_game.get(seat.identity) == seat.game_id
            last_game[seat.identity] = seat.game_id
            latest[seat.identity] = RatingRow(
                identity=seat.identity,
                name=seat.name or "?",
                is_bot=seat.is_bot,
                games=(before.games if before else 0) + (0 if again else 1),
                rating=seat.change.after,
                last_change=seat.change,
                last_played=seat.ended_at,
            )
        return [row for row in latest.values() if since is None or row.last_played >= since]

    async def recompute(self, *, write: bool) -> Recomputed:
        """Rate every recorded game again from nothing; compare, and store when `write`."""
        async with self.storage._transaction() as db:
            games = _games(_seat_rows(await _fetch(db, _SEATS + "ORDER BY g.id, p.seat")))
            stored = {
                (row[0], row[2]): (row[7], row[8], row[9], row[10])
                for row in await _fetch(db, _RATED)
            }
            derived = _rows_of(games, replay(_finishers(game) for game in games))
            differences = [
                max(abs(a - b) for a, b in zip(row[2:], old, strict=True))
                for row in derived
                if (old := stored.get((row[0], row[1]))) is not None
            ]
            if write:
                await db.execute("DELETE FROM seat_ratings")
                await db.executemany(_INSERT, derived)
        return Recomputed(
            games=len(games),
            seats=len(derived),
            differing=sum(1 for d in differences if d != 0.0),
            unrated=len(derived) - len(differences),
            largest=max(differences, default=0.0),
        )


async def recompute_file(path: Path, *, write: bool) -> Recomputed:
    """Open a database (migrating it) and recompute its ratings."""
    storage = await Storage.open(path)
    try:
        return await RatingStore(storage).recompute(write=write)
    finally:
        await storage.close()
