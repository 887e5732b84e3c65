"""Members who leave a server leave its tables; a DM click of theirs no longer acts there.

Discord tells a bot that has the Server Members Intent when a member leaves (or is kicked
or banned): `departed` then takes them out of that server's open tables as a player who
left. A click from a DM carries no server, so for a seated player it is checked too
(`left`): Discord is asked at most once per member and server every `TRUST_SECONDS`, which
also catches a departure the bot did not hear of (it was offline, or lacks the intent).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

import discord

from tables.errors import TableError
from tables.intents import Leave, Member
from tables.service import TableService

log = logging.getLogger(__name__)

# How long a member seen on a server is trusted to still be there.
TRUST_SECONDS = 300.0
# Discord's error code for a user who is not a member of the server.
UNKNOWN_MEMBER = 10007
# Past this many remembered members, the ones no longer trusted are forgotten.
REMEMBERED = 10_000

Key = tuple[int, int]
FetchMember = Callable[[int, int], Awaitable[object]]


class Membership:
    """Who is still on which server, as far as the bot knows or asks Discord."""

    def __init__(
        self,
        service: TableService,
        fetch_member: FetchMember,
        *,
        trust_seconds: float = TRUST_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.service = service
        self.fetch_member = fetch_member
        self.trust_seconds = trust_seconds
        self.clock = clock
        self._seen: dict[Key, float] = {}
        self._gone: set[Key] = set()
        self._asking: dict[Key, asyncio.Task[bool]] = {}

    def seen(self, guild_id: int, user_id: int) -> None:
        """Note that a member acted on a server just now: they are a member (again)."""
        key = (guild_id, user_id)
        self._gone.discard(key)
        now = self.clock()
        if len(self._seen) >= REMEMBERED:
            self._seen = {k: t for k, t in self._seen.items() if now - t < self.trust_seconds}
        self._seen[key] = now

    async def departed(self, guild_id: int, user_id: int) -> None:
        """Take a member who left a server out of its open tables, as a player who left."""
        key = (guild_id, user_id)
        self._seen.pop(key, None)
        for table in list(self.service.tables.values()):
            seat = table.seat_of(user_id)
            if table.guild_id != guild_id or seat is None or table.seats[seat].removed:
                continue
            # Remembered for the player's later clicks (members who played nowhere are not).
            self._gone.add(key)
            log.info("table %s: a player left the server; they leave the table", table.id)
            member = Member(user_id, table.seats[seat].name)
            # The table may end or change meanwhile: then there is nothing left to do.
            with contextlib.suppress(TableError):
                await self.service.submit(table.id, member, Leave())

    async def left(self, table_id: str, user_id: int) -> bool:
        """Say whether a player clicking a table from a DM has left its server (if so, remove them).

        Only a seated player is asked about: the core refuses anyone else anyway.
        """
        table = self.service.find(table_id)
        if table is None:
            return False
        key = (table.guild_id, user_id)
        if key in self._gone:
            return True
        # A member trusted to be on the server is let through before their seat is looked up.
        seen = self._seen.get(key)
        if seen is not None and self.clock() - seen < self.trust_seconds:
            return False
        seat = table.seat_of(user_id)
        if not table.open or seat is None or table.seats[seat].removed:
            return False
        asking = self._asking.get(key)
        if asking is None:
            asking = self._asking[key] = asyncio.create_task(self._ask(key))
            asking.add_done_callback(lambda _: self._asking.pop(key, None))
        return not await asyncio.shield(asking)

    async def _ask(self, key: Key) -> bool:
        """Ask Discord whether a member is on a server; a departure found is acted on."""
        try:
            await self.fetch_member(*key)
        except discord.NotFound as error:
            if error.code != UNKNOWN_MEMBER:
                return True  # the server is gone for the bot, not the member from it
            await self.departed(*key)
            return False
        except discord.HTTPException:
            # Discord could not say: the member plays on and is asked again next time.
            log.warning("could not check whether a member is still on a server")
            return True
        self.seen(*key)
        return True
