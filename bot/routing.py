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

However late the hand-over, the click is acknowledged in time: the owner, as it takes a
click, tells the process it came from (`{"taken": id}` on that process's channel); a click
not taken `TAKEN_BY` after Discord created it is deferred where it came in (an edit to
come, one REST call only then). The owner's answer then finds Discord refusing a second
first response (40060) and follows the deferral instead (`bot.presenter.first_response`);
if the owner answered first, the late deferral is the one refused, and nothing more is sent.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

import discord

from bot.answers import defer_click
from bot.custom_ids import table_of
from bot.database import PostgresDatabase, StorageError, shard_of
from bot.dispatch import light
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
# A click sent on that its owner has not taken this many seconds after Discord created it
# is deferred where it came in: the deferral must reach Discord within 3 s of that moment.
TAKEN_BY = 1.5


def channel(shard: int) -> str:
    """Name the notification channel of a shard's process."""
    return f"shithead_shard_{shard}"


def forwarded(data: dict[str, Any], origin: int) -> str:
    """Write an interaction for the owner, without what it never reads, and where it came.

    A notification holds at most 8,000 bytes: the clicked message's embeds and pictures go
    (the owner reads the message's id), its components stay. `origin` is a shard of the
    process it came in on: the owner says there that it took the click.
    """
    message = data.get("message")
    if isinstance(message, dict):
        data = {**data, "message": {**message, "embeds": [], "attachments": []}}
    return json.dumps({"from": origin, "click": data}, separators=(",", ":"))


def age(data: dict[str, Any]) -> float:
    """Say how many seconds ago Discord created an interaction (its id says when)."""
    created = discord.utils.snowflake_time(int(data["id"]))
    return (discord.utils.utcnow() - created).total_seconds()


class ClickRouter:
    """Send DM clicks on other processes' tables to them, and take theirs for ours."""

    def __init__(
        self,
        storage: Storage,
        tables: TableService,
        shards: Sequence[int],
        shard_count: int,
        state: Any,
    ) -> None:
        assert isinstance(storage.database, PostgresDatabase), "shared shards need PostgreSQL"
        self.state = state  # discord.py's connection state: a late click is deferred with it
        self.database: PostgresDatabase = storage.database
        self.storage = storage
        self.tables = tables
        self.shards = frozenset(shards)
        self.shard_count = shard_count
        self._parse: Parse | None = None
        # The latest click being sent on for each table: the next one on it waits for it.
        self._latest: dict[str, asyncio.Task[None]] = {}
        self._guilds: dict[str, int] = {}  # table id -> its server, as stored
        # Notifications waiting to be sent (channel, payload, when sent), and the task sending them.
        self._outbox: list[tuple[str, str, asyncio.Future[None]]] = []
        self._sender: asyncio.Task[None] | None = None
        # The clicks sent on that their owner has not said it took: each one's deferral to come.
        self._untaken: dict[str, asyncio.TimerHandle] = {}
        self._deferrals: set[asyncio.Task[None]] = set()

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
        loop = asyncio.get_running_loop()
        self._untaken[str(data["id"])] = loop.call_later(
            max(0.0, TAKEN_BY - age(data)), self._defer, data
        )
        before = self._latest.get(table_id)
        task = loop.create_task(self._route(table_id, data, before))
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
            self._answer_here(data)  # ours, or no one's: answered here ("not available any more")
            return
        try:
            await self._send_on(shard, forwarded(data, min(self.shards)))
        except StorageError:
            log.warning("could not send a click on table %s on", table_id, exc_info=True)
            self._answer_here(data)
            return
        log.debug("click on table %s sent to shard %d's process", table_id, shard)

    def _answer_here(self, data: dict[str, Any]) -> None:
        """Handle a click in this process after all: its own deadline applies, not ours."""
        assert self._parse is not None
        self._taken(str(data["id"]))
        self._parse(data)

    def _taken(self, interaction_id: str) -> None:
        """Call off a click's deferral: its owner took it in time."""
        waiting = self._untaken.pop(interaction_id, None)
        if waiting is not None:
            waiting.cancel()

    def _defer(self, data: dict[str, Any]) -> None:
        """Defer a click its owner has not taken in time; the owner's answer fills it in."""
        del self._untaken[str(data["id"])]
        payload: Any = light(data)
        interaction = discord.Interaction(data=payload, state=self.state)
        task = asyncio.get_running_loop().create_task(self._deferral(interaction))
        self._deferrals.add(task)
        task.add_done_callback(self._deferrals.discard)

    async def _deferral(self, interaction: discord.Interaction) -> None:
        """Acknowledge a click for its owner (the owner may have answered it already)."""
        log.debug("click %d not taken in time by its owner: deferred here", interaction.id)
        try:
            await defer_click(interaction)
        except discord.HTTPException:
            log.warning("could not defer click %d for its owner", interaction.id, exc_info=True)

    async def _send_on(self, shard: int, payload: str) -> None:
        """Send a click to a shard's process, with the other clicks waiting, in one round trip."""
        if len(payload.encode()) >= PAYLOAD_LIMIT:
            raise StorageError(f"a click of {len(payload.encode())} bytes is too long to send on")
        await self._post(channel(shard), payload)

    def _post(self, name: str, payload: str) -> asyncio.Future[None]:
        """Queue a notification for the next round trip; the future says when it was sent."""
        loop = asyncio.get_running_loop()
        sent: asyncio.Future[None] = loop.create_future()
        self._outbox.append((name, payload, sent))
        if self._sender is None or self._sender.done():
            self._sender = loop.create_task(self._send())
        return sent

    async def _send(self) -> None:
        """Send the waiting notifications, all of them a round trip, until none waits."""
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
        """Take a click another process sent us, or hear that our owner took one of ours."""
        note = json.loads(payload)
        if "taken" in note:
            self._taken(note["taken"])
        else:
            self.take(note["click"], note["from"])

    def take(self, data: dict[str, Any], origin: int) -> None:
        """Handle a click sent to us as if our gateway had brought it; say so while it counts."""
        assert self._parse is not None
        if age(data) < TAKEN_BY:
            reply = json.dumps({"taken": str(data["id"])}, separators=(",", ":"))
            self._post(channel(origin), reply).add_done_callback(self._replied)
        self._parse(data)

    @staticmethod
    def _replied(sent: asyncio.Future[None]) -> None:
        """Log a "taken" reply that could not be sent (the process it came from defers it)."""
        if not sent.cancelled() and sent.exception() is not None:
            log.warning("could not say a click was taken: %s", sent.exception())
