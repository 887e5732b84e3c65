"""The gateway: HELLO, IDENTIFY, READY, GUILD_CREATE, heartbeats, RESUME, dispatches.

JSON text frames only; discord.py asks for zlib-stream but inflates binary frames only.
"""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import dataclass

from aiohttp import WSMsgType, web

from sandbox import factory
from sandbox.world import JSON, PRIVILEGED_INTENTS, World

log = logging.getLogger(__name__)

DISPATCH, HEARTBEAT, IDENTIFY, RESUME, RECONNECT = 0, 1, 2, 6, 7
INVALID_SESSION, HELLO, HEARTBEAT_ACK = 9, 10, 11
HEARTBEAT_INTERVAL_MS = 41250
AUTHENTICATION_FAILED = 4004
DISALLOWED_INTENTS = 4014


@dataclass
class Session:
    """One identified gateway session; it survives its socket for a RESUME."""

    id: str
    ws: web.WebSocketResponse | None
    seq: int = 0
    ready: bool = False
    intents: int = 0


class Gateway:
    """Accepts the bot's websocket and sends it events."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.url = ""  # set by the server once it knows its port
        self.sessions: dict[str, Session] = {}
        self.current: Session | None = None

    @property
    def connected(self) -> bool:
        """Tell whether a bot has an open, identified socket."""
        return self.current is not None and self.current.ws is not None

    @property
    def ready(self) -> bool:
        """Tell whether the connected bot has had READY and every GUILD_CREATE."""
        return self.connected and self.current is not None and self.current.ready

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
                    await ws.send_str(json.dumps({"op": HEARTBEAT_ACK}))
                elif op == IDENTIFY:
                    session = await self._identify(ws, payload["d"])
                elif op == RESUME:
                    session = await self._resume(ws, payload["d"])
        finally:
            if session is not None and session.ws is ws:
                session.ws = None
                self.world.touch()
        return ws

    async def _identify(self, ws: web.WebSocketResponse, data: JSON) -> Session | None:
        if data.get("token") != self.world.token:
            await ws.close(code=AUTHENTICATION_FAILED, message=b"Authentication failed.")
            return None
        intents = int(data.get("intents", 0))
        if intents & PRIVILEGED_INTENTS & ~self.world.privileged_intents:
            await ws.close(code=DISALLOWED_INTENTS, message=b"Disallowed intent(s).")
            return None
        session = Session(id=secrets.token_hex(16), ws=ws, intents=intents)
        self.sessions[session.id] = session
        self.current = session
        await self._send(session, "READY", factory.ready(self.world, session.id, self.url))
        for guild in self.world.guilds.values():
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
        self.current = session
        await self._send(session, "RESUMED", {})
        self.world.touch()
        return session

    async def _send(self, session: Session, event: str, data: JSON) -> None:
        assert session.ws is not None
        session.seq += 1
        await session.ws.send_str(
            json.dumps(
                {"op": DISPATCH, "t": event, "s": session.seq, "d": data}, ensure_ascii=False
            )
        )

    async def dispatch(self, event: str, data: JSON, intent: int = 0) -> None:
        """Send an event to the connected bot, if there is one that asked for its intent."""
        if self.current is None or self.current.ws is None or self.current.ws.closed:
            log.info("no bot connected: %s dropped", event)
            return
        if intent and not self.current.intents & intent:
            return
        await self._send(self.current, event, data)

    async def reconnect(self) -> None:
        """Ask the bot to reconnect (op 7); it comes back with a RESUME."""
        if self.current is not None and self.current.ws is not None:
            await self.current.ws.send_str(json.dumps({"op": RECONNECT, "d": None}))

    async def close(self) -> None:
        """Close every open socket."""
        for session in self.sessions.values():
            if session.ws is not None:
                await session.ws.close()
