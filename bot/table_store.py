"""The table service's store on the bot's SQLite storage."""

from __future__ import annotations

from bot.storage import GameRecord, PlayerRecord, Storage, StoredTable
from bot.tables import Table, record_time
from engine.rules import rules_to_json
from engine.views import table_view


class StorageTableStore:
    """Save running tables, record finished games, restore tables at start."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def save(self, table: Table) -> None:
        """Write a running table."""
        await self.storage.save_table(
            StoredTable(table.id, table.guild_id, table.channel_id, table.to_json())
        )

    async def finish(self, table: Table) -> None:
        """Record the finished game and forget the running table, in one transaction."""
        game = table.game
        assert game is not None
        view = table_view(game)
        players = [
            PlayerRecord(
                user_id=seat.user_id,
                name=seat.name,
                is_bot=seat.automatic,
                place=shown.place,
                loser=view.loser == shown.seat,
            )
            for seat, shown in zip(table.seats, view.seats, strict=True)
        ]
        record = GameRecord(
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
        await self.storage.finish_table(table.id, record)

    async def delete(self, table_id: str) -> None:
        """Forget a table that ended without a result."""
        await self.storage.delete_table(table_id)

    async def load(self) -> list[Table]:
        """Read every running table."""
        return [Table.from_json(stored.state) for stored in await self.storage.running_tables()]
