"""The browser playground: a Discord-like page at `/`, served by the sandbox itself.

The page acts only through the control API (`/_sandbox/...`), as curl would. This module
adds what a page needs besides: its files, the synced commands' option schemas (for the
message box's autocomplete), and a websocket that says "changed" whenever the world does,
so the page fetches again instead of polling. Like the control API it is for loopback
only: a request whose Host or Origin is not a loopback address is refused (a page on
another site, or a DNS name rebound to 127.0.0.1, cannot drive it).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
from importlib import resources
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from sandbox.control import PREFIX as CONTROL_PREFIX
from sandbox.control import Handler, json_response
from sandbox.world import World

WEB = resources.files("sandbox") / "web"
FILES = {
    "index.html": "text/html",
    "app.js": "text/javascript",
    "style.css": "text/css",
}
PAGE_ROUTE = "/playground"
# At most this many "changed" notices a second reach a page; a burst of edits is one notice.
NOTICE_INTERVAL = 0.1


def is_loopback(host: str) -> bool:
    """Tell whether a host name (without port) is this machine: localhost or 127/8, ::1."""
    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def local_origin(origin: str) -> bool:
    """Tell whether a browser's Origin header names a page on this machine."""
    return is_loopback(urlsplit(origin).hostname or "")


def local_request(request: web.Request) -> bool:
    """Tell whether a request names a loopback Host and, if it has one, a loopback Origin."""
    host = urlsplit(f"//{request.headers.get('Host', '')}").hostname or ""
    origin = request.headers.get("Origin")
    return is_loopback(host) and (origin is None or local_origin(origin))


class Playground:
    """The page, its files, the commands' schemas and the live-change websocket."""

    def __init__(self, world: World) -> None:
        self.world = world

    def routes(self) -> list[web.RouteDef]:
        """Return the route table."""
        return [
            web.get("/", self.page),
            web.get(f"{PAGE_ROUTE}/commands", self.commands),
            web.get(f"{PAGE_ROUTE}/live", self.live),
            web.get(f"{PAGE_ROUTE}/{{name}}", self.file),
        ]

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Refuse the playground to a Host or Origin that is not loopback, and the control
        API to a page of another origin (curl sends no Origin)."""
        playground = request.path == "/" or request.path.startswith(f"{PAGE_ROUTE}/")
        if playground and not local_request(request):
            return web.Response(
                status=403, text="The playground answers only on this machine (loopback).\n"
            )
        origin = request.headers.get("Origin")
        if request.path.startswith(f"{CONTROL_PREFIX}/") and origin and not local_origin(origin):
            return json_response(
                {"error": "the control API answers pages on this machine (loopback) only"}, 403
            )
        return await handler(request)

    async def page(self, request: web.Request) -> web.Response:
        """GET /: the playground."""
        return self._serve("index.html")

    async def file(self, request: web.Request) -> web.Response:
        """GET /playground/{name}: the page's script and style."""
        name = request.match_info["name"]
        if name not in FILES:
            raise web.HTTPNotFound()
        return self._serve(name)

    def _serve(self, name: str) -> web.Response:
        return web.Response(
            text=(WEB / name).read_text(encoding="utf-8"),
            content_type=FILES[name],
            charset="utf-8",
            headers={"Cache-Control": "no-cache"},
        )

    async def commands(self, request: web.Request) -> web.Response:
        """GET /playground/commands: every synced chat-input command, global then per guild."""
        return json_response(
            [
                command.payload
                for commands in self.world.commands.values()
                for command in commands
                if command.payload.get("type", 1) == 1
            ]
        )

    async def live(self, request: web.Request) -> web.WebSocketResponse:
        """GET /playground/live: a websocket that sends {"changed": n} on every change."""
        socket = web.WebSocketResponse(heartbeat=30)
        await socket.prepare(request)
        sender = asyncio.create_task(self._notify(socket))
        try:
            async for message in socket:
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender
        return socket

    async def _notify(self, socket: web.WebSocketResponse) -> None:
        count = 0
        while not socket.closed:
            changed = self.world.changed
            await socket.send_json({"changed": count})
            count += 1
            await changed.wait()
            await asyncio.sleep(NOTICE_INTERVAL)
