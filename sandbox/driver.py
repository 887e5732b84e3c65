"""The control operations: act as users and look at what they see.

The HTTP control API (`sandbox.control`) is a thin shell over these methods, so pytest
and curl do exactly the same things. Everything returns JSON-ready dicts, ids as strings.
A call that no real Discord client could make raises `ControlError` and the bot never
hears of it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from sandbox import factory
from sandbox.api import AUTOCOMPLETE, COMMAND, COMPONENT, DEFERRED_UPDATE
from sandbox.gateway import Gateway
from sandbox.rules import BUTTON, LINK_STYLE, SELECTS, STRING_SELECT, components_of
from sandbox.world import (
    ADMINISTRATOR,
    DM,
    GUILD_MEMBERS,
    JSON,
    LOADING,
    MANAGE_MESSAGES,
    Channel,
    Guild,
    Interaction,
    Message,
    User,
    World,
)

Ref = int | str

POLL = 0.05
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER = 3, 4, 5, 6, 7, 8, 9, 10


class ControlError(Exception):
    """A control call refused: an HTTP status and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Driver:
    """Users, channels and interactions, driven from tests or the control API."""

    def __init__(self, world: World, gateway: Gateway) -> None:
        self.world = world
        self.gateway = gateway

    # the world

    @property
    def guild(self) -> Guild:
        """Return the default guild (the first one)."""
        return next(iter(self.world.guilds.values()))

    def state(self) -> JSON:
        """Return guilds, channels, users and the bot's connection state."""
        world = self.world
        return {
            "bot": {
                **_author(world.bot),
                "application_id": str(world.application_id),
                "connected": self.gateway.connected,
                "ready": self.gateway.ready,
            },
            "guilds": [
                {
                    "id": str(g.id),
                    "name": g.name,
                    "channels": [self._channel_view(world.channels[c]) for c in g.channel_ids],
                    "members": [str(u) for u in g.members],
                }
                for g in world.guilds.values()
            ],
            "users": [self._user_view(u) for u in world.users.values() if not u.bot],
            "commands": {
                str(scope or "global"): [c.name for c in commands]
                for scope, commands in world.commands.items()
            },
        }

    async def create_guild(self, name: str, *, locale: str = "en-US") -> JSON:
        """Create another guild in a language (the bot joins it at once)."""
        guild = self.world.add_guild(name)
        guild.locale = locale
        await self.gateway.dispatch("GUILD_CREATE", factory.guild(self.world, guild))
        return {"id": str(guild.id), "name": guild.name, "preferred_locale": guild.locale}

    async def create_user(
        self,
        name: str,
        *,
        dms_open: bool = True,
        moderator: bool = False,
        guild: Ref | None = None,
        locale: str = "en-US",
    ) -> JSON:
        """Create a user who is a member of a guild (the default one unless named)."""
        target = self._guild(guild)
        if not name or any(u.name == name for u in self.world.users.values()):
            raise ControlError(400, f"user name {name!r} is empty or taken")
        user = self.world.add_user(
            name, dms_open=dms_open, guild=target, moderator=moderator, locale=locale
        )
        self.world.touch()
        return self._user_view(user)

    async def create_channel(self, name: str, *, guild: Ref | None = None) -> JSON:
        """Create a text channel in a guild (the default one unless named)."""
        target = self._guild(guild)
        if not name or any(self.world.channels[c].name == name for c in target.channel_ids):
            raise ControlError(400, f"channel name {name!r} is empty or taken")
        channel = self.world.add_channel(target, name)
        await self.gateway.dispatch("CHANNEL_CREATE", factory.channel(self.world, channel))
        self.world.touch()
        return self._channel_view(channel)

    async def remove_member(self, user: Ref, *, guild: Ref | None = None) -> JSON:
        """Take a member out of a guild (the default one unless named), as leaving or a kick does.

        A bot that identified with the members intent hears GUILD_MEMBER_REMOVE; the user
        keeps their DMs with the bot, and a DM click of theirs still reaches it.
        """
        target, member = self._guild(guild), self._user(user)
        if member.id not in target.members:
            raise ControlError(404, f"{member.name} is not a member of {target.name}")
        if member.id == target.owner_id:
            raise ControlError(400, f"{member.name} owns {target.name} and cannot leave it")
        self.world.remove_member(target, member.id)
        removed = {"guild_id": str(target.id), "user": factory.user(member)}
        await self.gateway.dispatch("GUILD_MEMBER_REMOVE", removed, intent=GUILD_MEMBERS)
        return {"guild_id": str(target.id), "user_id": str(member.id), "removed": True}

    def set_intents(self, *, members: bool) -> JSON:
        """Switch the Server Members Intent on or off in the portal; it counts at the next login."""
        if members:
            self.world.privileged_intents |= GUILD_MEMBERS
        else:
            self.world.privileged_intents &= ~GUILD_MEMBERS
        return {"members": members}

    def advance_time(self, seconds: float) -> None:
        """Move the sandbox's clock forward (interaction tokens, rate-limit windows)."""
        self.world.clock.advance(seconds)

    async def reconnect(self) -> None:
        """Ask the bot's gateway connection to reconnect and resume."""
        await self.gateway.reconnect()

    # what users see

    def messages(self, channel: Ref, *, as_user: Ref | None = None, limit: int = 50) -> list[JSON]:
        """Return the last `limit` messages of a channel a user sees, oldest first."""
        target = self._channel(channel)
        viewer = self._user(as_user) if as_user is not None else None
        if viewer is not None and not self._can_use(viewer, target):
            raise ControlError(403, f"{viewer.name} cannot see this channel")
        visible = [
            m
            for m in self.world.channel_messages(target.id)
            if self.world.can_see(m, viewer.id if viewer else 0)
        ]
        return [self.message_view(m) for m in visible[-limit:]] if limit > 0 else []

    def message(self, message: Ref, *, as_user: Ref | None = None) -> JSON:
        """Return one message as a user sees it (without `as_user`, as everybody does)."""
        target = self._message(message)
        viewer = self._user(as_user) if as_user is not None else None
        channel = self.world.channels[target.channel_id]
        if viewer is not None and not self._can_use(viewer, channel):
            raise ControlError(403, f"{viewer.name} cannot see this channel")
        if not self.world.can_see(target, viewer.id if viewer else 0):
            raise ControlError(404, f"no message {message!r} for this user")
        return self.message_view(target)

    def attachment(self, attachment_id: str, filename: str) -> tuple[str, bytes]:
        """Return an attachment's content type and bytes, as its URL serves them to anyone."""
        stored = self.world.files.get(attachment_id)
        names = {
            a["filename"]
            for m in self.world.messages.values()
            for a in m.attachments
            if a["id"] == attachment_id
        }
        if stored is None or filename not in names:
            raise ControlError(404, f"no attachment {attachment_id}/{filename}")
        return stored

    def dms(self, user: Ref, *, limit: int = 50) -> list[JSON]:
        """Return the bot's last `limit` DMs to a user, oldest first."""
        target = self._user(user)
        return self.messages(self.world.dm_channel(target).id, as_user=target.id, limit=limit)

    def log(self, since: int = 0) -> list[JSON]:
        """Return every REST call the bot made after call number `since`."""
        return [entry.to_json() for entry in self.world.log[since:]]

    def message_view(self, m: Message) -> JSON:
        """Return a message as the control API shows it."""
        return {
            "id": str(m.id),
            "channel_id": str(m.channel_id),
            "author": _author(self.world.users[m.author_id]),
            "content": m.content,
            "embeds": m.embeds,
            "components": m.components,
            "attachments": [a["filename"] for a in m.attachments],
            "attachment_urls": [a["url"] for a in m.attachments],
            "ephemeral": m.ephemeral,
            "loading": bool(m.flags & LOADING),
            "edited": m.edited_timestamp is not None,
        }

    # waiting

    async def wait_until(self, condition: Callable[[], Any], *, timeout: float = 5.0) -> Any:
        """Wait until `condition()` is truthy and return its value.

        It is checked on every change to the world and every `POLL` seconds, for
        conditions on the bot's side.
        """
        async with asyncio.timeout(timeout):
            while True:
                changed = self.world.changed
                value = condition()
                if value:
                    return value
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), POLL)

    async def wait_ready(self, timeout: float = 10.0) -> None:
        """Wait until a bot has identified and received its guilds."""
        await self.wait_until(lambda: self.gateway.ready, timeout=timeout)

    # acting as users

    async def interact(self, request: JSON) -> JSON:
        """Dispatch one interaction described as the control API takes it."""
        kind = request.get("type")
        fields = {k: v for k, v in request.items() if k != "type"}
        try:
            if kind == "command":
                return await self.command(**fields)
            if kind == "autocomplete":
                return await self.autocomplete(**fields)
            if kind == "button":
                return await self.click(**fields)
            if kind == "select":
                return await self.select(**fields)
        except TypeError as error:
            raise ControlError(400, f"bad {kind} interaction: {error}") from None
        raise ControlError(400, "type must be command, autocomplete, button or select")

    async def command(
        self, user: Ref, channel: Ref, name: str, options: JSON | None = None
    ) -> JSON:
        """Run a slash command (`name` is the path, e.g. "shithead create") as a user."""
        actor, where = self._user(user), self._channel(channel)
        data = self._command_data(actor, where, name, options or {}, focused=None)
        return await self._run(
            self.world.new_interaction(type=COMMAND, user_id=actor.id, channel=where, data=data)
        )

    async def autocomplete(
        self, user: Ref, channel: Ref, name: str, focused: str, options: JSON | None = None
    ) -> JSON:
        """Type into a command option; the answer's `response` is `{"choices": [...]}`."""
        actor, where = self._user(user), self._channel(channel)
        data = self._command_data(actor, where, name, options or {}, focused=focused)
        return await self._run(
            self.world.new_interaction(
                type=AUTOCOMPLETE, user_id=actor.id, channel=where, data=data
            )
        )

    async def click(self, user: Ref, message: Ref, custom_id: str) -> JSON:
        """Click a button on a message as a user."""
        actor, target = self._user(user), self._message(message)
        component = self._component(actor, target, custom_id)
        if component.get("type") != BUTTON or component.get("style") == LINK_STYLE:
            raise ControlError(400, f"{custom_id!r} is not a button the bot handles")
        data = {"custom_id": custom_id, "component_type": BUTTON, "id": component.get("id")}
        return await self._component_interaction(actor, target, data)

    async def delete_message(self, user: Ref, message: Ref) -> None:
        """Delete a message as a member: their own, or anyone's with Manage Messages."""
        actor, target = self._user(user), self._message(message)
        channel = self.world.channels[target.channel_id]
        if not self._can_use(actor, channel) or not self.world.can_see(target, actor.id):
            raise ControlError(404, f"{actor.name} can't see message {target.id}")
        if target.author_id != actor.id:
            guild = self.world.guilds.get(channel.guild_id or 0)
            if guild is None or not self.world.permissions(guild, actor.id) & MANAGE_MESSAGES:
                raise ControlError(403, f"{actor.name} may not delete others' messages")
        self.world.delete_message(target)

    async def select(self, user: Ref, message: Ref, custom_id: str, values: list[str]) -> JSON:
        """Choose values in a select menu as a user."""
        actor, target = self._user(user), self._message(message)
        component = self._component(actor, target, custom_id)
        kind = component.get("type")
        if kind not in SELECTS:
            raise ControlError(400, f"{custom_id!r} is not a select menu")
        low, high = component.get("min_values", 1), component.get("max_values", 1)
        if not low <= len(values) <= high:
            raise ControlError(400, f"choose between {low} and {high} values")
        data: JSON = {"custom_id": custom_id, "component_type": kind, "values": values}
        if kind == STRING_SELECT:
            offered = {o["value"] for o in component.get("options", [])}
            if not set(values) <= offered:
                raise ControlError(400, f"{sorted(set(values) - offered)} not offered")
        else:
            data["resolved"] = {"users": {v: factory.user(self._user(v)) for v in values}}
        return await self._component_interaction(actor, target, data)

    async def _component_interaction(self, actor: User, target: Message, data: JSON) -> JSON:
        channel = self.world.channels[target.channel_id]
        interaction = self.world.new_interaction(
            type=COMPONENT, user_id=actor.id, channel=channel, data=data, message_id=target.id
        )
        return await self._run(interaction)

    async def _run(self, interaction: Interaction) -> JSON:
        """Dispatch an interaction and wait for the first answer or the deadline."""
        await self.gateway.dispatch(
            "INTERACTION_CREATE", factory.interaction(self.world, interaction)
        )
        left = interaction.created_at + self.world.interaction_deadline - self.world.clock.now()
        result: JSON = {
            "id": str(interaction.id),
            "status": "timeout",
            "error": None,
            "response": None,
        }
        try:
            answer = await asyncio.wait_for(asyncio.shield(interaction.first_answer), max(left, 0))
        except TimeoutError:
            return result
        if answer.error is not None:
            code, message = answer.error
            return {**result, "status": "failed", "error": {"code": code, "message": message}}
        response: JSON | None = answer.extra
        if answer.message_id is not None and answer.callback_type != DEFERRED_UPDATE:
            response = self.message_view(self.world.messages[answer.message_id])
        return {**result, "status": "answered", "response": response}

    # building interaction data

    def _command_data(
        self, actor: User, where: Channel, path: str, given: JSON, focused: str | None
    ) -> JSON:
        root, *subpath = path.split()
        command = self.world.find_command(root, where.guild_id)
        if command is None:
            raise ControlError(404, f"no command /{root} synced here")
        self._check_command_permission(actor, where, command.payload)
        schema: list[JSON] = command.payload.get("options") or []
        nesting: list[JSON] = []
        for part in subpath:
            option = next((o for o in schema if o["name"] == part), None)
            if option is None or option.get("type") not in (SUB_COMMAND, SUB_COMMAND_GROUP):
                raise ControlError(404, f"/{path}: no subcommand {part!r}")
            nesting.append({"name": part, "type": option["type"]})
            schema = option.get("options") or []
        if any(o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in schema):
            raise ControlError(400, f"/{path} needs a subcommand")
        resolved: JSON = {}
        options = self._options(where, schema, given, focused, resolved)
        for level in reversed(nesting):
            options = [{**level, "options": options}]
        data: JSON = {"id": str(command.id), "name": root, "type": 1, "options": options}
        if command.guild_id is not None:
            data["guild_id"] = str(command.guild_id)
        if resolved:
            data["resolved"] = resolved
        return data

    def _check_command_permission(self, actor: User, where: Channel, payload: JSON) -> None:
        if where.guild_id is None:
            if payload.get("contexts") is not None and 1 not in payload["contexts"]:
                raise ControlError(403, f"/{payload['name']} cannot be used in DMs")
            return
        guild = self.world.guilds[where.guild_id]
        if actor.id not in guild.members:
            raise ControlError(403, f"{actor.name} is not a member of {guild.name}")
        if payload.get("contexts") is not None and 0 not in payload["contexts"]:
            raise ControlError(403, f"/{payload['name']} cannot be used in servers")
        required = payload.get("default_member_permissions")
        if required is None:
            return
        have = self.world.permissions(guild, actor.id)
        need = int(required) or ADMINISTRATOR
        if have & need != need:
            raise ControlError(403, f"{actor.name} lacks the permissions of /{payload['name']}")

    def _options(
        self,
        where: Channel,
        schema: list[JSON],
        given: JSON,
        focused: str | None,
        resolved: JSON,
    ) -> list[JSON]:
        by_name = {o["name"]: o for o in schema}
        unknown = set(given) - set(by_name)
        if unknown:
            raise ControlError(400, f"unknown options {sorted(unknown)}")
        if focused is not None and focused not in by_name:
            raise ControlError(400, f"unknown option {focused!r}")
        options: list[JSON] = []
        for name, option in by_name.items():
            if name == focused:
                value = str(given.get(name, ""))
                options.append(
                    {"name": name, "type": option["type"], "value": value, "focused": True}
                )
            elif name in given:
                value = self._option_value(where, option, given[name], resolved)
                options.append({"name": name, "type": option["type"], "value": value})
            elif option.get("required") and focused is None:
                raise ControlError(400, f"option {name!r} is required")
        return options

    def _option_value(self, where: Channel, option: JSON, raw: Any, resolved: JSON) -> Any:
        kind, name = option["type"], option["name"]
        try:
            value = _convert(kind, raw)
        except (TypeError, ValueError):
            raise ControlError(400, f"option {name!r}: {raw!r} is not a valid value") from None
        choices = option.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise ControlError(400, f"option {name!r}: {raw!r} is not one of the choices")
        if kind == STRING and not (
            option.get("min_length", 0) <= len(value) <= option.get("max_length", 6000)
        ):
            raise ControlError(400, f"option {name!r}: length out of range")
        if kind in (INTEGER, NUMBER):
            low, high = option.get("min_value"), option.get("max_value")
            if (low is not None and value < low) or (high is not None and value > high):
                raise ControlError(400, f"option {name!r}: {value} out of range")
        if kind in (USER, MENTIONABLE):
            user = self._user(raw)
            guild = self.world.guilds.get(where.guild_id or 0)
            resolved.setdefault("users", {})[str(user.id)] = factory.user(user)
            if guild is not None and user.id in guild.members:
                member = factory.member(self.world, guild, user.id, with_user=False)
                resolved.setdefault("members", {})[str(user.id)] = member
            return str(user.id)
        if kind == CHANNEL:
            channel = self._channel(raw)
            resolved.setdefault("channels", {})[str(channel.id)] = {
                **factory.channel(self.world, channel),
                "permissions": str(self.world.permissions(self.guild, self.world.bot.id)),
            }
            return str(channel.id)
        if kind == ROLE:
            guild = self.world.guilds[where.guild_id or 0]
            role = next((r for r in guild.roles.values() if raw in (r.id, str(r.id), r.name)), None)
            if role is None:
                raise ControlError(404, f"no role {raw!r}")
            resolved.setdefault("roles", {})[str(role.id)] = factory.role(role)
            return str(role.id)
        return value

    # lookups

    def _guild(self, ref: Ref | None) -> Guild:
        if ref is None:
            return self.guild
        for guild in self.world.guilds.values():
            if ref in (guild.id, str(guild.id), guild.name):
                return guild
        raise ControlError(404, f"no guild {ref!r}")

    def _user(self, ref: Ref) -> User:
        for user in self.world.users.values():
            if ref in (user.id, str(user.id), user.name) and not user.bot:
                return user
        raise ControlError(404, f"no user {ref!r}")

    def _channel(self, ref: Ref) -> Channel:
        name = ref.removeprefix("#") if isinstance(ref, str) else ref
        for channel in self.world.channels.values():
            if ref in (channel.id, str(channel.id)) or (
                channel.type != DM and name == channel.name
            ):
                return channel
        raise ControlError(404, f"no channel {ref!r}")

    def _message(self, ref: Ref) -> Message:
        message = self.world.messages.get(int(ref)) if str(ref).isdigit() else None
        if message is None:
            raise ControlError(404, f"no message {ref!r}")
        return message

    def _can_use(self, user: User, channel: Channel) -> bool:
        if channel.type == DM:
            return channel.recipient_id == user.id
        return user.id in self.world.guilds[channel.guild_id or 0].members

    def _component(self, actor: User, message: Message, custom_id: str) -> JSON:
        channel = self.world.channels[message.channel_id]
        if not self._can_use(actor, channel) or not self.world.can_see(message, actor.id):
            raise ControlError(403, f"{actor.name} cannot see message {message.id}")
        for component in components_of(message.components):
            if component.get("custom_id") == custom_id:
                if component.get("disabled"):
                    raise ControlError(400, f"{custom_id!r} is disabled")
                return component
        raise ControlError(404, f"message {message.id} has no component {custom_id!r}")

    def _user_view(self, user: User) -> JSON:
        guilds = [str(g.id) for g in self.world.guilds.values() if user.id in g.members]
        moderator = any(
            g.moderator_role_id in g.members[user.id].role_ids
            for g in self.world.guilds.values()
            if user.id in g.members
        )
        return {
            **_author(user),
            "dms_open": user.dms_open,
            "moderator": moderator,
            "guilds": guilds,
        }

    def _channel_view(self, channel: Channel) -> JSON:
        return {
            "id": str(channel.id),
            "name": channel.name,
            "guild_id": factory.snowflake(channel.guild_id),
        }


def _author(user: User) -> JSON:
    return {"id": str(user.id), "name": user.name, "bot": user.bot}


def _convert(kind: int, raw: Any) -> Any:
    """Turn a control-API option value into the JSON type Discord sends."""
    if kind == STRING:
        return str(raw)
    if kind == INTEGER:
        if isinstance(raw, bool):
            raise TypeError(raw)
        return int(raw)
    if kind == NUMBER:
        return float(raw)
    if kind == BOOLEAN:
        if isinstance(raw, bool):
            return raw
        if str(raw).lower() in ("true", "false"):
            return str(raw).lower() == "true"
        raise ValueError(raw)
    return raw
