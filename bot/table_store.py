"""The core's table store on the bot's storage (SQLite or PostgreSQL)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from bot.database import shard_of
from bot.rating_store import RatingStore
from bot.ratings import Change
from bot.storage import GameRecord, PlayerRecord, RunningRow, Storage, StoredTable
from engine.rules import rules_to_json
from engine.views import table_view
from tables.model import Table
from tables.ports import StoredState

log = logging.getLogger(__name__)


def record_time(moment: float) -> datetime:
    """Turn a stored clock reading into an aware datetime for the game record."""
    return datetime.fromtimestamp(moment, UTC)


def record_name(table: Table, seat: int) -> str:
    """Name a seat in the game record: the member's name, or the computer's level and number.

    The leaderboard tells computer players apart by this name, so it stays the same words.
    """
    each = table.seats[seat]
    if each.computer is None:
        return each.name
    number = sum(1 for other in table.seats[: seat + 1] if other.computer is not None)
    return f"Computer {number} ({each.computer})"


# How long an ended table's final state is kept (to redraw its end after a restart, and for
# its rematch).
ENDED_KEPT = timedelta(days=1)


class StorageTableStore:
    """Save running tables, record and rate finished games, restore tables at start.

    A process that runs some of the bot's shards restores only its shards' guilds' tables:
    the others are another process's. `rating_changes` holds each ended table's rating
    changes, seat by seat, for its game-over message: the presenter reads the same dict.
    """

    def __init__(
        self,
        storage: Storage,
        shards: Sequence[int] = (0,),
        shard_count: int = 1,
        rating_changes: dict[str, tuple[Change, ...]] | None = None,
    ) -> None:
        self.storage = storage
        self.shards = frozenset(shards)
        self.shard_count = shard_count
        self.ratings = RatingStore(storage)
        self.rating_changes = {} if rating_changes is None else rating_changes

    def _own(self, rows: list[RunningRow]) -> list[StoredState]:
        """Keep the tables of this process's shards' guilds."""
        return [
            StoredState(row.table_id, row.text)
            for row in rows
            if shard_of(row.guild_id, self.shard_count) in self.shards
        ]

    async def save(self, table: Table, text: str) -> None:
        """Write a running table."""
        await self.storage.save_table(StoredTable(table.id, table.guild_id, table.channel_id, text))

    async def end(self, table: Table, text: str) -> None:
        """Record a finished game (if it has a result) and keep the final state, in one go."""
        stored = StoredTable(table.id, table.guild_id, table.channel_id, text)
        game_id = await self.storage.finish_table(stored, self.record(table))
        if game_id is not None:
            await self._rate(table.id, game_id)

    async def _rate(self, table_id: str, game_id: int) -> None:
        """Rate the game just recorded (and any left unrated) and keep its rating changes.

        The game is recorded either way: one left unrated is rated when the bot next starts.
        """
        try:
            await self.ratings.rate_unrated()
            self.rating_changes[table_id] = tuple(await self.ratings.game_changes(game_id))
        except Exception:  # any database's error: the ending is stored, the rating can wait
            log.exception("table %s: game %d stays unrated until the next start", table_id, game_id)

    def record(self, table: Table) -> GameRecord | None:
        """Say what the leaderboard keeps of a game that ended with a result."""
        game = table.game
        if game is None or not game.over:
            return None
        view = table_view(game)
        players = [
            PlayerRecord(
                user_id=seat.user_id,
                name=record_name(table, index),
                is_bot=seat.automatic,
                place=shown.place,
                loser=view.loser == shown.seat,
                level=seat.computer,
            )
            for index, (seat, shown) in enumerate(zip(table.seats, view.seats, strict=True))
        ]
        return GameRecord(
            guild_id=table.guild_id,
            channel_id=table.channel_id,
            preset=table.preset,
            rules=rules_to_json(table.rules),
            started_at=record_time(table.started_at or table.created_at),
            ended_at=record_time(table.ended_at or table.created_at),
            moves=game.moves,
            end_reason=table.ended_reason or "out",
            players=players,
        )

    async def load(self) -> list[StoredState]:
        """Read every running table of our shards not set aside as unreadable."""
        return self._own(await self.storage.running_tables())

    async def load_ended(self) -> list[StoredState]:
        """Read our shards' tables that ended within a day, and their rating changes; forget
        older ones."""
        own = self._own(await self.storage.ended_tables(datetime.now(UTC) - ENDED_KEPT))
        for state in own:
            await self._find_changes(state)
        return own

    async def _find_changes(self, stored: StoredState) -> None:
        """Find an ended table's recorded game, by where and when it ended, and its changes."""
        try:
            table = stored.table  # read once: the core restores this same table
        except ValueError:
            return  # the core sets an unreadable table aside
        if table.ended_at is None:
            return
        game_id = await self.ratings.game_at(
            table.guild_id, table.channel_id, record_time(table.ended_at)
        )
        if game_id is not None:
            self.rating_changes[table.id] = tuple(await self.ratings.game_changes(game_id))

    async def mark_unreadable(self, table_id: str, reason: str) -> None:
        """Set an unreadable table aside so start-up skips it."""
        await self.storage.mark_unreadable(table_id, reason)
