"""The sandbox server: one aiohttp app serving REST v10, the gateway and the control API."""

from __future__ import annotations

from aiohttp import web

from sandbox.api import BotApi
from sandbox.control import Control, control_errors
from sandbox.driver import Driver
from sandbox.gateway import Gateway
from sandbox.playground import Playground
from sandbox.rest import Rest
from sandbox.rules import MAX_UPLOAD_SIZE, RateLimit, RateLimiter
from sandbox.world import INTERACTION_DEADLINE, World

# Discord's per-channel limit on message writes: 5 every 5 seconds.
MESSAGE_WRITES = RateLimit(limit=5, per=5.0)
DEFAULT_RATE_LIMITS = {
    f"{method} {route}": MESSAGE_WRITES
    for method, route in [
        ("POST", "/channels/{channel_id}/messages"),
        ("PATCH", "/channels/{channel_id}/messages/{message_id}"),
        ("DELETE", "/channels/{channel_id}/messages/{message_id}"),
    ]
}

# aiohttp refuses bodies (and multipart parts) over this before `BotApi` sees them; it is
# above Discord's limits, so that `BotApi` refuses oversize uploads with Discord's errors.
CLIENT_MAX_SIZE = 4 * MAX_UPLOAD_SIZE


class Sandbox:
    """A loopback Discord: start it, point discord.py at `api_base` and `gateway_url`."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str = "sandbox-token",
        guild_name: str = "Sandbox",
        interaction_deadline: float = INTERACTION_DEADLINE,
        rate_limits: dict[str, RateLimit] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.world = World(token=token)
        self.world.interaction_deadline = interaction_deadline
        self.world.add_guild(guild_name)
        self.gateway = Gateway(self.world)
        self.driver = Driver(self.world, self.gateway)
        limiter = RateLimiter(
            self.world.clock, DEFAULT_RATE_LIMITS if rate_limits is None else rate_limits
        )
        rest = Rest(self.world, BotApi(self.world), self.gateway, limiter)
        playground = Playground(self.world)
        self.app = web.Application(
            middlewares=[playground.middleware, rest.middleware, control_errors],
            client_max_size=CLIENT_MAX_SIZE,
        )
        self.app.add_routes([web.get("/gateway", self.gateway.handle)])
        self.app.add_routes(Control(self.driver).routes())
        self.app.add_routes(rest.routes())
        self.app.add_routes(playground.routes())
        self._runner: web.AppRunner | None = None

    @property
    def token(self) -> str:
        """Return the bot token the sandbox accepts."""
        return self.world.token

    @property
    def url(self) -> str:
        """Return the base URL, e.g. http://127.0.0.1:8765."""
        return f"http://{self.host}:{self.port}"

    @property
    def playground_url(self) -> str:
        """Return the browser playground's address."""
        return f"{self.url}/"

    @property
    def api_base(self) -> str:
        """Return the REST base for `discord.http.Route.BASE`."""
        return f"{self.url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """Return the websocket URL for `DiscordWebSocket.DEFAULT_GATEWAY`."""
        return f"ws://{self.host}:{self.port}/gateway"

    async def start(self) -> None:
        """Listen; with port 0, take any free port and remember it."""
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        if self.port == 0:
            self.port = int(self._runner.addresses[0][1])
        self.world.base_url = self.url
        self.gateway.url = self.gateway_url

    async def stop(self) -> None:
        """Close the bot's sockets and stop listening."""
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
