"""The control API under `/_sandbox`: HTTP in front of `Driver`, nothing more."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from sandbox.driver import ControlError, Driver

PREFIX = "/_sandbox"
CONTENT_TYPE = "application/json; charset=utf-8"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def json_response(body: Any, status: int = 200) -> web.Response:
    """Answer JSON as UTF-8, card suits and all (`7♠`, not `7\\u2660`)."""
    text = json.dumps(body, ensure_ascii=False) + "\n"  # the shell's prompt starts a new line
    # A lone surrogate cannot be UTF-8; written back as `\udxxx` it is valid JSON again.
    return web.Response(
        body=text.encode(errors="backslashreplace"),
        status=status,
        headers={"Content-Type": CONTENT_TYPE},
    )


@web.middleware
async def control_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn a refused control call (or a malformed one) into `{"error": message}`."""
    if not request.path.startswith(PREFIX):
        return await handler(request)
    try:
        return await handler(request)
    except ControlError as error:
        return json_response({"error": error.message}, error.status)
    except (ValueError, KeyError, TypeError) as error:
        return json_response({"error": f"bad request: {error}"}, 400)
    except web.HTTPException as error:
        messages = {
            404: f"no control call {request.path}; see docs/sandbox.md",
            405: f"{request.method} is not allowed on {request.path}",
        }
        return json_response({"error": messages.get(error.status, error.reason)}, error.status)


class Control:
    """Routes that call the driver."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver

    def routes(self) -> list[web.RouteDef]:
        """Return the route table."""
        p = PREFIX
        return [
            web.get(f"{p}/state", self.state),
            web.post(f"{p}/guilds", self.create_guild),
            web.delete(f"{p}/guilds/{{guild}}/members/{{user}}", self.remove_member),
            web.post(f"{p}/intents", self.set_intents),
            web.post(f"{p}/users", self.create_user),
            web.post(f"{p}/channels", self.create_channel),
            web.post(f"{p}/interactions", self.interact),
            web.get(f"{p}/channels/{{channel}}/messages", self.messages),
            web.get(f"{p}/messages/{{message}}", self.message),
            web.delete(f"{p}/messages/{{message}}", self.delete_message),
            web.get(f"{p}/users/{{user}}/dms", self.dms),
            web.get(f"{p}/attachments/{{attachment}}/{{filename}}", self.attachment),
            web.get(f"{p}/log", self.log),
            web.post(f"{p}/time", self.advance_time),
            web.post(f"{p}/reconnect", self.reconnect),
        ]

    async def state(self, request: web.Request) -> web.Response:
        """GET /_sandbox/state."""
        return json_response(self.driver.state())

    async def create_guild(self, request: web.Request) -> web.Response:
        """POST /_sandbox/guilds {"name", "preferred_locale"}."""
        body = await _body(request)
        locale = str(body.get("preferred_locale", "en-US"))
        return json_response(await self.driver.create_guild(str(body["name"]), locale=locale), 201)

    async def remove_member(self, request: web.Request) -> web.Response:
        """DELETE /_sandbox/guilds/{guild}/members/{user}: the member leaves (or is kicked)."""
        info = request.match_info
        return json_response(await self.driver.remove_member(info["user"], guild=info["guild"]))

    async def set_intents(self, request: web.Request) -> web.Response:
        """POST /_sandbox/intents {"members": bool}: the portal's Server Members Intent."""
        body = await _body(request)
        if not isinstance(body.get("members"), bool):
            raise ControlError(400, '"members" must be true or false')
        return json_response(self.driver.set_intents(members=body["members"]))

    async def create_user(self, request: web.Request) -> web.Response:
        """POST /_sandbox/users {"name", "dms_open", "moderator", "guild", "locale"}."""
        body = await _body(request)
        user = await self.driver.create_user(
            str(body["name"]),
            dms_open=bool(body.get("dms_open", True)),
            moderator=bool(body.get("moderator", False)),
            guild=body.get("guild"),
            locale=str(body.get("locale", "en-US")),
        )
        return json_response(user, 201)

    async def create_channel(self, request: web.Request) -> web.Response:
        """POST /_sandbox/channels {"name", "guild"}."""
        body = await _body(request)
        channel = await self.driver.create_channel(str(body["name"]), guild=body.get("guild"))
        return json_response(channel, 201)

    async def interact(self, request: web.Request) -> web.Response:
        """POST /_sandbox/interactions: dispatch and wait for the bot's first answer."""
        return json_response(await self.driver.interact(await _body(request)))

    async def message(self, request: web.Request) -> web.Response:
        """GET /_sandbox/messages/{message}?as=USER: one message, as a user sees it."""
        message = request.match_info["message"]
        return json_response(self.driver.message(message, as_user=request.query.get("as")))

    async def delete_message(self, request: web.Request) -> web.Response:
        """DELETE /_sandbox/messages/{message}?as=USER: a member deletes a message."""
        message = request.match_info["message"]
        await self.driver.delete_message(request.query["as"], message)
        return json_response({"deleted": message})

    async def messages(self, request: web.Request) -> web.Response:
        """GET /_sandbox/channels/{channel}/messages?as=USER&limit=N."""
        messages = self.driver.messages(
            request.match_info["channel"],
            as_user=request.query.get("as"),
            limit=int(request.query.get("limit", "50")),
        )
        return json_response(messages)

    async def attachment(self, request: web.Request) -> web.Response:
        """GET /_sandbox/attachments/{id}/{filename}: a file's bytes, to anyone (a CDN link)."""
        info = request.match_info
        content_type, data = self.driver.attachment(info["attachment"], info["filename"])
        return web.Response(body=data, headers={"Content-Type": content_type})

    async def dms(self, request: web.Request) -> web.Response:
        """GET /_sandbox/users/{user}/dms?limit=N."""
        limit = int(request.query.get("limit", "50"))
        return json_response(self.driver.dms(request.match_info["user"], limit=limit))

    async def log(self, request: web.Request) -> web.Response:
        """GET /_sandbox/log?since=N."""
        return json_response(self.driver.log(int(request.query.get("since", "0"))))

    async def advance_time(self, request: web.Request) -> web.Response:
        """POST /_sandbox/time {"advance": seconds}."""
        body = await _body(request)
        self.driver.advance_time(float(body["advance"]))
        return json_response({"advanced": float(body["advance"])})

    async def reconnect(self, request: web.Request) -> web.Response:
        """POST /_sandbox/reconnect: ask the bot to reconnect and resume."""
        await self.driver.reconnect()
        return json_response({"reconnecting": self.driver.gateway.connected})


async def _body(request: web.Request) -> dict[str, Any]:
    body = await request.json() if request.can_read_body else {}
    if not isinstance(body, dict):
        raise ControlError(400, "the body must be a JSON object")
    return body
