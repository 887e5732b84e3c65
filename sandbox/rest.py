"""REST v10 over HTTP: parse requests, check auth and rate limits, log, call `BotApi`."""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import BodyPartReader, web

from sandbox import factory
from sandbox.api import BotApi
from sandbox.gateway import Gateway
from sandbox.rules import (
    DiscordError,
    RateLimiter,
    entity_too_large,
    invalid_form,
    not_found,
    rate_limited_body,
)
from sandbox.world import JSON, World

PREFIX = "/api/v10"
GENERIC_TYPE = "application/octet-stream"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# Calls that carry the interaction token instead of the bot token.
TOKEN_ROUTES = ("/interactions/", "/webhooks/")


def json_response(
    body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """Answer Discord-style JSON: UTF-8, unescaped, typed exactly `application/json`.

    discord.py decodes every answer as UTF-8 but parses it as JSON only when the type is
    exactly `application/json`, as Discord sends it: a `; charset=` would make it text.
    """
    # A lone surrogate cannot be UTF-8; written back as `\udxxx` it is valid JSON again.
    return web.Response(
        body=json.dumps(body, ensure_ascii=False).encode(errors="backslashreplace"),
        status=status,
        headers={**(headers or {}), "Content-Type": "application/json"},
    )


async def read_body(request: web.Request) -> tuple[Any, list[JSON]]:
    """Return the JSON body and the attached files; a body too big for aiohttp is 40005."""
    try:
        return await _read_body(request)
    except web.HTTPRequestEntityTooLarge as error:
        raise entity_too_large() from error


async def _read_body(request: web.Request) -> tuple[Any, list[JSON]]:
    """Return the JSON body and the attached files (multipart sends JSON in `payload_json`).

    A file is `{"filename", "content_type", "data"}`; `BotApi` checks the limits.
    """
    if request.content_type.startswith("multipart/"):
        body: Any = {}
        files: list[JSON] = []
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):
                continue
            data = await part.read()
            if part.name == "payload_json":
                body = json.loads(data)
            elif part.filename:
                # discord.py sends every file as octet-stream; Discord types it by its name.
                kind = part.headers.get("Content-Type", GENERIC_TYPE)
                if kind == GENERIC_TYPE:
                    kind = mimetypes.guess_type(part.filename)[0] or GENERIC_TYPE
                files.append({"filename": part.filename, "content_type": kind, "data": data})
        return body, files
    if not request.can_read_body:
        return {}, []
    return await request.json(), []


class Rest:
    """The `/api/v10` routes and the middleware that logs and rate-limits them."""

    def __init__(self, world: World, api: BotApi, gateway: Gateway, limiter: RateLimiter) -> None:
        self.world = world
        self.api = api
        self.gateway = gateway
        self.limiter = limiter

    def routes(self) -> list[web.RouteDef]:
        """Return the route table."""
        p = PREFIX
        return [
            web.get(f"{p}/gateway/bot", self.get_gateway_bot),
            web.get(f"{p}/users/@me", self.get_me),
            web.get(f"{p}/users/{{user_id}}", self.get_user),
            web.post(f"{p}/users/@me/channels", self.open_dm),
            web.get(f"{p}/oauth2/applications/@me", self.get_application),
            web.get(f"{p}/applications/{{application_id}}/commands", self.get_commands),
            web.put(f"{p}/applications/{{application_id}}/commands", self.put_commands),
            web.get(
                f"{p}/applications/{{application_id}}/guilds/{{guild_id}}/commands",
                self.get_commands,
            ),
            web.put(
                f"{p}/applications/{{application_id}}/guilds/{{guild_id}}/commands",
                self.put_commands,
            ),
            web.get(f"{p}/guilds/{{guild_id}}", self.get_guild),
            web.get(f"{p}/guilds/{{guild_id}}/channels", self.get_guild_channels),
            web.get(f"{p}/guilds/{{guild_id}}/members/{{user_id}}", self.get_member),
            web.get(f"{p}/channels/{{channel_id}}", self.get_channel),
            web.get(f"{p}/channels/{{channel_id}}/messages", self.history),
            web.post(f"{p}/channels/{{channel_id}}/messages", self.create_message),
            web.get(f"{p}/channels/{{channel_id}}/messages/{{message_id}}", self.get_message),
            web.patch(f"{p}/channels/{{channel_id}}/messages/{{message_id}}", self.edit_message),
            web.delete(f"{p}/channels/{{channel_id}}/messages/{{message_id}}", self.delete_message),
            web.post(
                f"{p}/interactions/{{interaction_id}}/{{interaction_token}}/callback",
                self.callback,
            ),
            web.post(f"{p}/webhooks/{{application_id}}/{{interaction_token}}", self.followup),
            web.get(
                f"{p}/webhooks/{{application_id}}/{{interaction_token}}/messages/{{message_id}}",
                self.get_webhook_message,
            ),
            web.patch(
                f"{p}/webhooks/{{application_id}}/{{interaction_token}}/messages/{{message_id}}",
                self.edit_webhook_message,
            ),
            web.delete(
                f"{p}/webhooks/{{application_id}}/{{interaction_token}}/messages/{{message_id}}",
                self.delete_webhook_message,
            ),
            web.route("*", p + "/{tail:.*}", self.unknown_route),
        ]

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Authenticate, rate-limit, turn `DiscordError` into Discord's answer, log the call."""
        if not request.path.startswith(PREFIX + "/"):
            return await handler(request)
        route = request.match_info.route.resource
        template = route.canonical.removeprefix(PREFIX) if route is not None else request.path
        headers: dict[str, str] = {}
        try:
            self._authenticate(request)
            bucket = f"{request.method} {template}"
            major = request.match_info.get("channel_id") or request.match_info.get("guild_id", "")
            headers, retry_after = self.limiter.take(bucket, major)
            if retry_after is not None:
                response: web.StreamResponse = json_response(
                    rate_limited_body(retry_after), 429, headers
                )
            else:
                response = await handler(request)
                response.headers.update(headers)
            code = None
        except DiscordError as error:
            response = json_response(error.body(), error.status, headers)
            code = error.code
        self.world.record(request.method, template, request.path, response.status, code)
        return response

    def _authenticate(self, request: web.Request) -> None:
        path = request.path.removeprefix(PREFIX)
        if path.startswith(TOKEN_ROUTES):
            return
        if request.headers.get("Authorization") != f"Bot {self.world.token}":
            raise DiscordError(401, 0, "401: Unauthorized")

    # handlers

    async def unknown_route(self, request: web.Request) -> web.Response:
        """Answer a route the sandbox does not serve as Discord does."""
        raise DiscordError(404, 0, "404: Not Found")

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        """Return the gateway URL, one shard and a generous session start limit."""
        limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        return json_response({"url": self.gateway.url, "shards": 1, "session_start_limit": limit})

    async def get_me(self, request: web.Request) -> web.Response:
        """Return the bot user."""
        return json_response(factory.user(self.world.bot))

    async def get_user(self, request: web.Request) -> web.Response:
        """Return any user."""
        user = self.world.users.get(_id(request, "user_id"))
        if user is None:
            raise not_found(10013, "User")
        return json_response(factory.user(user))

    async def open_dm(self, request: web.Request) -> web.Response:
        """Open the DM channel with a user."""
        body, _ = await read_body(request)
        return json_response(self.api.open_dm(int(body.get("recipient_id", 0))))

    async def get_application(self, request: web.Request) -> web.Response:
        """Return the bot's application."""
        return json_response(factory.application(self.world))

    async def get_commands(self, request: web.Request) -> web.Response:
        """Return the synced commands of a scope."""
        guild_id = _optional_id(request, "guild_id")
        return json_response(self.api.get_commands(_id(request, "application_id"), guild_id))

    async def put_commands(self, request: web.Request) -> web.Response:
        """Replace the commands of a scope."""
        body, _ = await read_body(request)
        guild_id = _optional_id(request, "guild_id")
        application_id = _id(request, "application_id")
        return json_response(self.api.put_commands(application_id, guild_id, body))

    async def get_guild(self, request: web.Request) -> web.Response:
        """Return a guild."""
        guild = self.api.guild(_id(request, "guild_id"))
        return json_response(factory.guild(self.world, guild))

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        """Return a guild's channels."""
        guild = self.api.guild(_id(request, "guild_id"))
        channels = [factory.channel(self.world, self.world.channels[c]) for c in guild.channel_ids]
        return json_response(channels)

    async def get_member(self, request: web.Request) -> web.Response:
        """Return a guild member."""
        guild = self.api.guild(_id(request, "guild_id"))
        user_id = _id(request, "user_id")
        if user_id not in guild.members:
            raise not_found(10007, "Member")
        return json_response(factory.member(self.world, guild, user_id))

    async def get_channel(self, request: web.Request) -> web.Response:
        """Return a channel."""
        channel = self.api.channel(_id(request, "channel_id"))
        return json_response(factory.channel(self.world, channel))

    async def history(self, request: web.Request) -> web.Response:
        """Return a channel's latest messages."""
        limit = int(request.query.get("limit", "50"))
        return json_response(self.api.history(_id(request, "channel_id"), limit))

    async def create_message(self, request: web.Request) -> web.Response:
        """Send a message."""
        body, files = await read_body(request)
        return json_response(self.api.create_message(_id(request, "channel_id"), body, files))

    async def get_message(self, request: web.Request) -> web.Response:
        """Return a message."""
        message_id = _id(request, "message_id")
        return json_response(self.api.get_message(_id(request, "channel_id"), message_id))

    async def edit_message(self, request: web.Request) -> web.Response:
        """Edit a message."""
        body, files = await read_body(request)
        channel_id, message_id = _id(request, "channel_id"), _id(request, "message_id")
        return json_response(self.api.edit_message(channel_id, message_id, body, files))

    async def delete_message(self, request: web.Request) -> web.Response:
        """Delete a message."""
        self.api.delete_message(_id(request, "channel_id"), _id(request, "message_id"))
        return web.Response(status=204)

    async def callback(self, request: web.Request) -> web.Response:
        """Answer an interaction."""
        body, files = await read_body(request)
        interaction_id = _id(request, "interaction_id")
        token = request.match_info["interaction_token"]
        answer = self.api.callback(interaction_id, token, body, files)
        # As Discord: the callback's result comes back only when asked for.
        if request.query.get("with_response", "").lower() not in ("1", "true"):
            return web.Response(status=204)
        return json_response(answer)

    async def followup(self, request: web.Request) -> web.Response:
        """Send a followup message."""
        body, files = await read_body(request)
        app_id, token = _id(request, "application_id"), request.match_info["interaction_token"]
        return json_response(self.api.followup(app_id, token, body, files))

    async def get_webhook_message(self, request: web.Request) -> web.Response:
        """Return the original response or a followup."""
        app_id, token, message_id = _webhook_parts(request)
        return json_response(self.api.get_webhook_message(app_id, token, message_id))

    async def edit_webhook_message(self, request: web.Request) -> web.Response:
        """Edit the original response or a followup."""
        body, files = await read_body(request)
        app_id, token, message_id = _webhook_parts(request)
        message = self.api.edit_webhook_message(app_id, token, message_id, body, files)
        return json_response(message)

    async def delete_webhook_message(self, request: web.Request) -> web.Response:
        """Delete the original response or a followup."""
        app_id, token, message_id = _webhook_parts(request)
        self.api.delete_webhook_message(app_id, token, message_id)
        return web.Response(status=204)


def _id(request: web.Request, key: str) -> int:
    """Read a snowflake from the path; a malformed one is Discord's 50035."""
    value = request.match_info[key]
    if not value.isdigit():
        raise invalid_form([key], "NUMBER_TYPE_COERCE", "Not a snowflake.")
    return int(value)


def _optional_id(request: web.Request, key: str) -> int | None:
    return _id(request, key) if key in request.match_info else None


def _webhook_parts(request: web.Request) -> tuple[int, str, str]:
    return (
        _id(request, "application_id"),
        request.match_info["interaction_token"],
        request.match_info["message_id"],
    )
