"""Skill ratings in the bot's storage: rate unrated games, read ratings, recompute them all.

Ratings are kept per server: the same member is rated apart on every server, and each
computer level (`basic`, `expert`) is one player per server. Games are rated in the order
they were recorded; a seat whose member asked to be forgotten counts as a newcomer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from pathlib import Path
from typing import Any

from bot.database import Connection
from bot.ratings import Change, Rating, Seat, ranks, replay
from bot.storage import Storage, _timestamp

_SEATS = (
    "SELECT g.id, g.guild_id, p.seat, p.is_bot, p.level, p.user_id, p.place, p.loser "
    "FROM game_players AS p JOIN games AS g ON g.id = p.game_id "
)
_CHANGE = "r.mu_before, r.sigma_before, r.mu, r.sigma"
# Each player's latest rating on a server, their name there and when they last played.
_LATEST = (
    f"SELECT pr.who, p.name, p.is_bot, pr.games, {_CHANGE}, g.ended_at FROM player_ratings AS pr "
    "JOIN seat_ratings AS r ON r.game_id = pr.game_id AND r.seat = pr.seat "
    "JOIN game_players AS p ON p.game_id = pr.game_id AND p.seat = pr.seat "
    "JOIN games AS g ON g.id = pr.game_id "
)
_UNRATED = "NOT EXISTS (SELECT 1 FROM seat_ratings AS r WHERE r.game_id = g.id)"
# The last rated game: games are rated in the order of their ids, so the unrated ones
# normally all come after it (the primary key's index finds it at once).
_LAST_RATED = "SELECT MAX(game_id) FROM seat_ratings"
_INSERT = (
    "INSERT INTO seat_ratings (game_id, seat, mu_before, sigma_before, mu, sigma) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
# A player's newly rated games: their count adds up, their latest seat replaces the last.
_UPSERT_PLAYER = (
    "INSERT INTO player_ratings (guild_id, who, games, game_id, seat) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (guild_id, who) DO UPDATE SET games = player_ratings.games + excluded.games, "
    "game_id = excluded.game_id, seat = excluded.seat"
)


@dataclass(frozen=True)
class _SeatRow:
    """One recorded seat, as the rating reads it."""

    game_id: int
    guild_id: int
    seat: int
    who: str | None
    place: int | None
    loser: bool

    @property
    def key(self) -> str:
        """Key the seat's player among every server's (a forgotten seat is nobody again)."""
        return f"{self.guild_id}/{self.who or f'forgotten:{self.game_id}:{self.seat}'}"


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
    # Rows of player_ratings (each player's latest seat and games) missing, wrong or extra.
    players: int

    @property
    def agrees(self) -> bool:
        """Say whether the stored ratings are exactly the derived ones."""
        return not (self.differing or self.unrated or self.players)

    def summary(self, *, written: bool) -> str:
        """Say what was found (and done) in one line, for the command line."""
        found = (
            f"{self.games} games, {self.seats} seats rated again from nothing; stored ratings "
            f"that differed: {self.differing} (largest difference {self.largest:.3g}), "
            f"seats not rated yet: {self.unrated}, players' latest ratings that differed: "
            f"{self.players}"
        )
        return found + ("; stored the derived ratings." if written else ".")


def who(is_bot: bool, level: str | None, user_id: int | None) -> str | None:
    """Say whose rating a seat moves: a member by id, a computer by its recorded level
    (`computer:expert`); None for a forgotten member."""
    if is_bot:
        return f"computer:{level}"
    return None if user_id is None else f"member:{user_id}"


def _seat_rows(rows: Sequence[Sequence[Any]]) -> list[_SeatRow]:
    return [_SeatRow(r[0], r[1], r[2], who(bool(r[3]), r[4], r[5]), r[6], bool(r[7])) for r in rows]


def _change(row: Sequence[float]) -> Change:
    """Read a change from its four columns: mu and sigma before, then after."""
    return Change(Rating(row[0], row[1]), Rating(row[2], row[3]))


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


def _players(games: Sequence[Sequence[_SeatRow]]) -> list[tuple[int, str, int, int, int]]:
    """Each player's rated games among these, and their latest seat: player_ratings rows."""
    counts: dict[tuple[int, str], int] = {}
    latest: dict[tuple[int, str], tuple[int, int]] = {}
    for game in games:
        # Two computers of one level at a table are one player's one game.
        players = {(seat.guild_id, seat.who): seat for seat in game if seat.who is not None}
        for player, seat in players.items():
            counts[player] = counts.get(player, 0) + 1
            latest[player] = (seat.game_id, seat.seat)
    return [(guild, who, counts[guild, who], *latest[guild, who]) for guild, who in counts]


async def _rate_after(db: Connection, last: int | None) -> int:
    """Rate the games recorded after game `last` (None: all), in order; say how many."""
    pending = _seat_rows(
        await db.fetch(_SEATS + "WHERE g.id > ? ORDER BY g.id, p.seat", (last or 0,))
    )
    if not pending:
        return 0
    guilds = sorted({seat.guild_id for seat in pending})
    marks = ", ".join("?" * len(guilds))
    current = {
        f"{row[0]}/{row[1]}": Rating(row[2], row[3])
        for row in await db.fetch(
            "SELECT pr.guild_id, pr.who, r.mu, r.sigma FROM player_ratings AS pr "
            "JOIN seat_ratings AS r ON r.game_id = pr.game_id AND r.seat = pr.seat "
            f"WHERE pr.guild_id IN ({marks})",
            guilds,
        )
    }
    games = _games(pending)
    changes = replay((_finishers(game) for game in games), current)
    await db.executemany(_INSERT, _rows_of(games, changes))
    await db.executemany(_UPSERT_PLAYER, _players(games))
    return len(games)


async def _recompute(db: Connection, *, write: bool) -> Recomputed:
    """Rate every recorded game again from nothing, in a transaction that holds the ratings."""
    games = _games(_seat_rows(await db.fetch(_SEATS + "ORDER BY g.id, p.seat")))
    stored = {
        (row[0], row[1]): tuple(row[2:])
        for row in await db.fetch(f"SELECT game_id, seat, {_CHANGE} FROM seat_ratings AS r")
    }
    derived = _rows_of(games, replay(_finishers(game) for game in games))
    players = _players(games)
    wanted = {(row[0], row[1]): row[2:] for row in players}
    have = {
        (row[0], row[1]): tuple(row[2:])
        for row in await db.fetch("SELECT guild_id, who, games, game_id, seat FROM player_ratings")
    }
    differences = [
        max(abs(a - b) for a, b in zip(row[2:], old, strict=True))
        for row in derived
        if (old := stored.get((row[0], row[1]))) is not None
    ]
    if write:
        # Each player's latest seat goes with the seats' ratings.
        await db.execute("DELETE FROM seat_ratings")
        await db.executemany(_INSERT, derived)
        await db.executemany(_UPSERT_PLAYER, players)
    return Recomputed(
        games=len(games),
        seats=len(derived),
        differing=sum(1 for d in differences if d != 0.0),
        unrated=len(derived) - len(differences),
        largest=max(differences, default=0.0),
        players=sum(1 for key in wanted.keys() | have.keys() if wanted.get(key) != have.get(key)),
    )


class RatingStore:
    """The ratings' queries, on the bot's storage and its transactions."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def rate_unrated(self) -> int:
        """Rate the games recorded after the last rated one, oldest first; say how many.

        Called at each game's end: it reads the new games only, not the whole history. A
        game left unrated behind a rated one (recorded by another process while this one
        rated) waits for `catch_up` at the next start.
        """
        async with self.storage.database.transaction() as db:
            await self.storage.database.hold_ratings(db)
            [(last,)] = await db.fetch(_LAST_RATED)
            return await _rate_after(db, last)

    async def catch_up(self) -> int:
        """Rate every game not rated yet, as at start; say how many were unrated.

        Unrated games after the last rated one are rated in order; one before it (rated out
        of order, it would change every later rating) has every game rated again from nothing.
        """
        async with self.storage.database.transaction() as db:
            await self.storage.database.hold_ratings(db)
            [(count, oldest)] = await db.fetch(
                f"SELECT COUNT(*), MIN(g.id) FROM games AS g WHERE {_UNRATED}"
            )
            if not count:
                return 0
            [(last,)] = await db.fetch(_LAST_RATED)
            if last is not None and oldest < last:
                await _recompute(db, write=True)
            else:
                await _rate_after(db, last)
        return int(count)

    async def game_changes(self, game_id: int) -> list[Change]:
        """Read a rated game's changes, seat by seat (none while it is unrated)."""
        rows = await self.storage.database.fetch(
            f"SELECT {_CHANGE} FROM seat_ratings AS r WHERE r.game_id = ? ORDER BY r.seat",
            (game_id,),
        )
        return [_change(row) for row in rows]

    async def game_at(self, guild_id: int, channel_id: int, ended_at: datetime) -> int | None:
        """Find the recorded game that ended in a channel at a moment."""
        rows = await self.storage.database.fetch(
            "SELECT id FROM games WHERE guild_id = ? AND channel_id = ? AND ended_at = ? "
            "ORDER BY id DESC LIMIT 1",
            (guild_id, channel_id, _timestamp(ended_at)),
        )
        return rows[0][0] if rows else None

    async def member_history(self, guild_id: int, user_id: int) -> list[Change]:
        """A member's rating changes on a server, oldest first."""
        rows = await self.storage.database.fetch(
            f"SELECT {_CHANGE} FROM game_players AS p "
            "JOIN seat_ratings AS r ON r.game_id = p.game_id AND r.seat = p.seat "
            "JOIN games AS g ON g.id = p.game_id "
            "WHERE p.user_id = ? AND p.is_bot = 0 AND g.guild_id = ? ORDER BY g.id",
            (user_id, guild_id),
        )
        return [_change(row) for row in rows]

    async def standings(self, guild_id: int, since: datetime | None = None) -> list[RatingRow]:
        """Every rated player of a server, with their latest rating (played since a moment)."""
        rows = await self.storage.database.fetch(
            _LATEST + "WHERE pr.guild_id = ? AND g.ended_at >= ?",
            (guild_id, _timestamp(since) if since else ""),
        )
        return [
            RatingRow(
                identity=row[0],
                name=row[1] or "?",
                is_bot=bool(row[2]),
                games=row[3],
                rating=Rating(row[6], row[7]),
                last_change=_change(row[4:8]),
                last_played=datetime.fromisoformat(row[8]),
            )
            for row in rows
        ]

    async def recompute(self, *, write: bool) -> Recomputed:
        """Rate every recorded game again from nothing; compare, and store when `write`."""
        async with self.storage.database.transaction() as db:
            await self.storage.database.hold_ratings(db)
            return await _recompute(db, write=write)


async def recompute_file(path: Path, *, write: bool) -> Recomputed:
    """Open a database (migrating it) and recompute its ratings."""
    storage = await Storage.open(path)
    try:
        return await RatingStore(storage).recompute(write=write)
    finally:
        await storage.close()
