"""The gateway: HELLO, IDENTIFY, READY, GUILD_CREATE, heartbeats, RESUME, dispatches.

JSON text frames only; discord.py asks for zlib-stream but inflates binary frames only.
Shards as Discord has them: IDENTIFY may carry `shard: [id, count]`; each shard's session
gets READY and GUILD_CREATE for its guilds only (`(guild_id >> 22) % count`), a guild's
events go to its shard and events without a guild (DMs) to shard 0. A token may hold one
connection per shard at once. As on Discord, GUILD_CREATE lists the guild's members only
to a session with the presences intent; to any other it lists the bot alone (the sandbox
has no voice channels, whose members Discord would add), `member_count` still counting all.
A client that wants the rest asks with REQUEST_GUILD_MEMBERS (op 8) and gets them in one
GUILD_MEMBERS_CHUNK: by user ids or a name's beginning (at most 100), or the whole list with
the members intent (a request for it without the intent gets no answer).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from dataclasses import dataclass

from aiohttp import WSMsgType, web

from sandbox import factory
from sandbox.world import GUILD_MEMBERS, GUILD_PRESENCES, JSON, PRIVILEGED_INTENTS, World

log = logging.getLogger(__name__)

DISPATCH, HEARTBEAT, IDENTIFY, RESUME, RECONNECT, REQUEST_GUILD_MEMBERS = 0, 1, 2, 6, 7, 8
INVALID_SESSION, HELLO, HEARTBEAT_ACK = 9, 10, 11
HEARTBEAT_INTERVAL_MS = 41250
HEARTBEAT_ACK_DELAY = 0.05
AUTHENTICATION_FAILED, INVALID_SHARD, DISALLOWED_INTENTS = 4004, 4010, 4014
# The most members a request by user ids or by a name's beginning returns.
MEMBERS_BY_QUERY = 100


GUILD_OWN_EVENTS = frozenset({"GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE"})


def shard_of(guild_id: int, shard_count: int) -> int:
    """Say which shard a guild's events go to, as Discord does."""
    return (guild_id >> 22) % shard_count


def members_seen(guild: JSON, intents: int, bot_id: int) -> JSON:
    """Return a GUILD_CREATE as a session with these intents gets it: without the presences
    intent, its member list holds the bot alone."""
    if intents & GUILD_PRESENCES:
        return guild
    bot = str(bot_id)
    return {**guild, "members": [m for m in guild["members"] if m["user"]["id"] == bot]}


def guild_of(event: str, data: JSON) -> int | None:
    """Find the guild an event belongs to, if any (a DM's events have none)."""
    # A guild's own events carry its id; the events of things in it carry a guild_id.
    found = data.get("id") if event in GUILD_OWN_EVENTS else data.get("guild_id")
    return int(found) if found is not None else None


@dataclass
class Session:
    """One identified gateway session; it survives its socket for a RESUME."""

    id: str
    ws: web.WebSocketResponse | None
    shard: int = 0
    shard_count: int = 1
    seq: int = 0
    ready: bool = False
    intents: int = 0


class Gateway:
    """Accepts the bot's websockets, one per shard, and sends each its shard's events."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.url = ""  # set by the server once it knows its port
        self.sessions: dict[str, Session] = {}
        # The latest session of each shard, and how many shards the bot said it has.
        self.shards: dict[int, Session] = {}
        self.shard_count = 1

    @property
    def connected(self) -> bool:
        """Tell whether a bot has an open, identified socket."""
        return any(session.ws is not None for session in self.shards.values())

    @property
    def ready(self) -> bool:
        """Tell whether every shard is connected and has had READY and its GUILD_CREATEs."""
        return all(
            (session := self.shards.get(shard)) is not None
            and session.ws is not None
            and session.ready
            for shard in range(self.shard_count)
        )

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """Serve one websocket connection until it closes."""
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        await ws.send_str(
            json.dumps({"op": HELLO, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}})
        )
        session: Session | None = None
        try:
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    continue
                payload = json.loads(frame.data)
                op = payload.get("op")
                if op == HEARTBEAT:
                    # Acknowledged after a network's round trip, as Discord's are: an instant
                    # ack can reach discord.py before its heartbeat thread notes the send, and
                    # it then logs "Can't keep up ... 41.3s behind" (a whole interval).
                    await asyncio.sleep(HEARTBEAT_ACK_DELAY)
                    await ws.send_str(json.dumps({"op": HEARTBEAT_ACK}))
                elif op == IDENTIFY:
                    session = await self._identify(ws, payload["d"])
                elif op == RESUME:
                    session = await self._resume(ws, payload["d"])
                elif op == REQUEST_GUILD_MEMBERS and session is not None:
                    await self._members_chunk(session, payload["d"])
        finally:
            if session is not None and session.ws is ws:
                session.ws = None
                self.world.touch()
        return ws

    async def _identify(self, ws: web.WebSocketResponse, data: JSON) -> Session | None:
        if data.get("token") != self.world.token:
            await ws.close(code=AUTHENTICATION_FAILED, message=b"Authentication failed.")
            return None
        shard, count = data.get("shard") or (0, 1)
        if not 0 <= shard < count:
            await ws.close(code=INVALID_SHARD, message=b"Invalid shard.")
            return None
        intents = int(data.get("intents", 0))
        if intents & PRIVILEGED_INTENTS & ~self.world.privileged_intents:
            await ws.close(code=DISALLOWED_INTENTS, message=b"Disallowed intent(s).")
            return None
        session = Session(
            id=secrets.token_hex(16), ws=ws, shard=shard, shard_count=count, intents=intents
        )
        self.sessions[session.id] = session
        if count != self.shard_count:  # the bot was sharded anew: the old sessions are gone
            self.shards.clear()
            self.shard_count = count
        self.shards[shard] = session
        guilds = [g for g in self.world.guilds.values() if shard_of(g.id, count) == shard]
        ready = factory.ready(self.world, session.id, self.url)
        ready["guilds"] = [{"id": str(g.id), "unavailable": True} for g in guilds]
        ready["shard"] = [shard, count]
        await self._send(session, "READY", ready)
        for guild in guilds:
            await self._send(session, "GUILD_CREATE", factory.guild(self.world, guild))
        session.ready = True
        self.world.touch()
        return session

    async def _resume(self, ws: web.WebSocketResponse, data: JSON) -> Session | None:
        session = self.sessions.get(data.get("session_id", ""))
        if session is None or data.get("token") != self.world.token:
            await ws.send_str(json.dumps({"op": INVALID_SESSION, "d": False}))
            return None
        session.ws = ws
        self.shards[session.shard] = session
        await self._send(session, "RESUMED", {})
        self.world.touch()
        return session

    async def _members_chunk(self, session: Session, data: JSON) -> None:
        """Answer a request for a guild's members with one GUILD_MEMBERS_CHUNK."""
        guild = self.world.guilds.get(int(data.get("guild_id", 0)))
        if guild is None or shard_of(guild.id, session.shard_count) != session.shard:
            return
        wanted = {int(user_id) for user_id in data.get("user_ids") or []}
        query = str(data.get("query") or "").casefold()
        limit = int(data.get("limit") or 0)
        if wanted:
            found = [u for u in guild.members if u in wanted][:MEMBERS_BY_QUERY]
        elif query:
            names = {u: self.world.users[u].name.casefold() for u in guild.members}
            found = [u for u, name in names.items() if name.startswith(query)]
            found = found[: min(limit or MEMBERS_BY_QUERY, MEMBERS_BY_QUERY)]
        elif session.intents & GUILD_MEMBERS:
            found = list(guild.members)[: limit or None]
        else:
            log.info("a request for every member of %s without the members intent", guild.name)
            return
        chunk: JSON = {
            "guild_id": str(guild.id),
            "members": [factory.member(self.world, guild, u) for u in found],
            "chunk_index": 0,
            "chunk_count": 1,
        }
        if wanted:
            chunk["not_found"] = [str(u) for u in wanted if u not in guild.members]
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await self._send(session, "GUILD_MEMBERS_CHUNK", chunk)

    async def _send(self, session: Session, event: str, data: JSON) -> None:
        assert session.ws is not None
        if event == "GUILD_CREATE":
            data = members_seen(data, session.intents, self.world.bot.id)
        session.seq += 1
        await session.ws.send_str(
            json.dumps(
                {"op": DISPATCH, "t": event, "s": session.seq, "d": data}, ensure_ascii=False
            )
        )

    async def dispatch(self, event: str, data: JSON, intent: int = 0) -> None:
        """Send an event to the shard of its guild (shard 0 without one), if connected and it
        asked for the event's intent."""
        guild = guild_of(event, data)
        shard = 0 if guild is None else shard_of(guild, self.shard_count)
        session = self.shards.get(shard)
        if session is None or session.ws is None or session.ws.closed:
            log.info("no bot connected on shard %d: %s dropped", shard, event)
            return
        if intent and not session.intents & intent:
            return
        await self._send(session, event, data)

    async def reconnect(self) -> None:
        """Ask every shard to reconnect (op 7); each comes back with a RESUME."""
        for session in self.shards.values():
            if session.ws is not None:
                await session.ws.send_str(json.dumps({"op": RECONNECT, "d": None}))

    async def close(self) -> None:
        """Close every open socket."""
        for session in self.sessions.values():
            if session.ws is not None:
                await session.ws.close()
