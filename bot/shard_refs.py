"""The presenter's message references, for a process that runs a part of the shards.

Every process reads the one `message_refs` table. At start the presenter takes up the
references of the tables it restored and forgets the rest as gone; a process running some
of the shards restores only its shards' tables, so it is shown only their references (and
those of tables no longer stored at all, gone for everyone). Otherwise it would delete the
references of another process's tables, which then loses its table messages and DM views.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.database import shard_of
from bot.storage import MessageRef, Storage


class ShardMessageRefs:
    """The message references of this process's shards' tables, through the shared storage."""

    def __init__(self, storage: Storage, shards: Sequence[int], shard_count: int) -> None:
        self.storage = storage
        self.shards = frozenset(shards)
        self.shard_count = shard_count

    async def message_refs(self) -> list[MessageRef]:
        """Read the references of our shards' tables and of tables no longer stored."""
        return [
            ref
            for ref, guild in await self.storage.message_refs_by_guild()
            if guild is None or shard_of(guild, self.shard_count) in self.shards
        ]

    async def save_message_ref(self, ref: MessageRef) -> None:
        """Write one reference."""
        await self.storage.save_message_ref(ref)

    async def forget_message_refs(self, table_id: str) -> None:
        """Drop a table's references."""
        await self.storage.forget_message_refs(table_id)
