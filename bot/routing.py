"""DM clicks go to the process that owns their table, when processes share the shards.

Discord sends a DM's interactions (they have no guild) on shard 0. A click in a member's DM
names its table in the custom_id; the table's stored row names its guild, and so the shard
and the process that owns it. When that is another process, shard 0's process sends the
whole interaction through PostgreSQL (`NOTIFY shithead_shard_<n>`) and leaves it alone; the
owner, listening on its shards' channels, handles it as if its own gateway had brought it:
it answers the interaction (any process may, with its token, within Discord's 3 s) and
applies the move under the table's lock, so a table's actions stay in one process, in order.
A table's clicks are sent on in the order they came, different tables' at once: the clicks
waiting to be sent go in one round trip to the database; a table's server is looked up once
(a table never changes servers).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from bot.custom_ids import table_of
from bot.database import PostgresDatabase, StorageError, shard_of
from bot.storage import Storage
from tables.service import TableService

log = logging.getLogger(__name__)

# Discord's interaction types: a component (a button or a menu).
_COMPONENT = 3
Parse = Callable[[Any], None]
# How many tables' servers are remembered (the oldest looked up is forgotten first).
KNOWN_TABLES = 10_000
# PostgreSQL refuses a notification's payload of this many bytes or more.
PAYLOAD_LIMIT = 8000


def channel(shard: int) -> str:
    """Name the notification channel of a shard's process."""
    return f"shithead_shard_{shard}"


def forwarded(data: dict[str, Any]) -> str:
    """Write an interaction for the owner, without what it never reads.

    A notification holds at most 8,000 bytes: the clicked message's embeds and pictures go
    (the owner reads the message's id), its components stay.
    """
    message = data.get("message")
    if isinstance(message, dict):
        data = {**data, "message": {**message, "embeds": [], "attachments": []}}
    return json.dumps(data, separators=(",", ":"))


class ClickRouter:
    """Send DM clicks on other processes' tables to them, and take theirs for ours."""

    def __init__(
        self,
        storage: Storage,
        tables: TableService,
        shards: Sequence[int],
        shard_count: int,
    ) -> None:
        assert isinstance(storage.database, PostgresDatabase), "shared shards need PostgreSQL"
        self.database: PostgresDatabase = storage.database
        self.storage = storage
        self.tables = tables
        self.shards = frozenset(shards)
        self.shard_count = shard_count
        self._parse: Parse | None = None
        # The latest click being sent on for each table: the next one on it waits for it.
        self._latest: dict[str, asyncio.Task[None]] = {}
        self._guilds: dict[str, int] = {}  # table id -> its server, as stored
        # Clicks waiting to be sent on (channel, payload, when sent), and the task sending them.
        self._outbox: list[tuple[str, str, asyncio.Future[None]]] = []
        self._sender: asyncio.Task[None] | None = None

    async def install(self, parsers: dict[str, Parse]) -> None:
        """Route the gateway's interactions through us, and listen on our shards' channels."""
        self._parse = parsers["INTERACTION_CREATE"]
        parsers["INTERACTION_CREATE"] = self.received
        for shard in sorted(self.shards):
            await self.database.listen(channel(shard), self.heard)

    def received(self, data: dict[str, Any]) -> None:
        """Take an interaction from the gateway: ours at once, maybe another's after a look."""
        assert self._parse is not None
        table_id = None
        if data.get("type") == _COMPONENT and data.get("guild_id") is None:
            table_id = table_of(str(data.get("data", {}).get("custom_id", "")))
        if table_id is None or self.tables.find(table_id) is not None:
            self._parse(data)
            return
        before = self._latest.get(table_id)
        task = asyncio.get_running_loop().create_task(self._route(table_id, data, before))
        self._latest[table_id] = task
        task.add_done_callback(lambda done: self._done(table_id, done))

    def _done(self, table_id: str, task: asyncio.Task[None]) -> None:
        """Forget a table's latest click once it is sent on (unless another came after it)."""
        if self._latest.get(table_id) is task:
            del self._latest[table_id]

    async def _guild(self, table_id: str) -> int | None:
        """Say which server a table is in, from memory or the database (None: not stored)."""
        guild = self._guilds.get(table_id)
        if guild is None:
            guild = await self.storage.table_guild(table_id)
            if guild is not None:
                if len(self._guilds) >= KNOWN_TABLES:
                    del self._guilds[next(iter(self._guilds))]
                self._guilds[table_id] = guild
        return guild

    async def _route(
        self, table_id: str, data: dict[str, Any], before: asyncio.Task[None] | None
    ) -> None:
        """Send a click to its table's owner; one of no other process's table stays here."""
        assert self._parse is not None
        if before is not None:
            await asyncio.wait([before])  # the table's earlier click goes first
        guild = await self._guild(table_id)
        shard = None if guild is None else shard_of(guild, self.shard_count)
        if shard is None or shard in self.shards:
            self._parse(data)  # ours, or no one's: answered here ("not available any more")
            return
        try:
            await self._send_on(shard, forwarded(data))
        except StorageError:
            log.warning("could not send a click on table %s on", table_id, exc_info=True)
            self._parse(data)
            return
        log.debug("click on table %s sent to shard %d's process", table_id, shard)

    async def _send_on(self, shard: int, payload: str) -> None:
        """Send a click to a shard's process, with the other clicks waiting, in one round trip."""
        if len(payload.encode()) >= PAYLOAD_LIMIT:
            raise StorageError(f"a click of {len(payload.encode())} bytes is too long to send on")
        loop = asyncio.get_running_loop()
        sent: asyncio.Future[None] = loop.create_future()
        self._outbox.append((channel(shard), payload, sent))
        if self._sender is None or self._sender.done():
            self._sender = loop.create_task(self._send())
        await sent

    async def _send(self) -> None:
        """Send the waiting clicks, all of them a round trip, until none waits."""
        while self._outbox:
            batch, self._outbox = self._outbox, []
            try:
                await self.database.notify([(name, payload) for name, payload, _ in batch])
            except StorageError as error:
                for *_, sent in batch:
                    if not sent.done():  # its click's task may have been cancelled
                        sent.set_exception(error)
            else:
                for *_, sent in batch:
                    if not sent.done():
                        sent.set_result(None)

    def heard(self, payload: str) -> None:
        """Handle an interaction another process sent us as if our gateway had brought it."""
        assert self._parse is not None
        self._parse(json.loads(payload))
