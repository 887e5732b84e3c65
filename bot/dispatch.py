"""Clicks on our components go straight to their DynamicItem, without parsing the message.

discord.py parses every component interaction's message in full (its embeds and
components, into a `Message`) and then rebuilds the message's view (`View.from_message`)
only to find the clicked item and swap our DynamicItem in. Our items read everything from
the custom_id and the interaction's own data, and the bot reads only the message's id, its
channel and whom it answered: so a click whose custom_id is one of ours comes with a
`ClickedMessage` of those instead of a `discord.Message`, and is handed to the matching
item's `from_custom_id`, `interaction_check` and `callback`. Any other interaction goes the
usual way.

Nor is the rest of such a click parsed before it is read (`Click`): answering it reads its
ids, token, user, locales and permissions, and those alone are read as it comes in.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord

from bot.components import Clicked

if TYPE_CHECKING:
    from discord.types.interactions import Interaction as InteractionPayload

log = logging.getLogger(__name__)

# Discord's interaction type of a component (a button or a menu) ...
_COMPONENT = 3
# ... and a button's component type (taken for a click that names none).
_BUTTON = 2

Parse = Callable[[Any], None]
Factory = type[discord.ui.DynamicItem[Any]]


def light(data: dict[str, Any]) -> dict[str, Any]:
    """Leave out of an interaction what a deferral never reads: its message's content."""
    message = data.get("message")
    if not isinstance(message, dict):
        return data
    message = {**message, "embeds": [], "attachments": [], "components": []}
    return {**data, "message": message}


@dataclass(frozen=True, slots=True)
class ClickedMetadata:
    """Whose command or click a message answered."""

    user: discord.Object


# Not frozen: a frozen dataclass sets each field through `object.__setattr__` (0.34 us more
# per click), and nothing writes to one once made.
@dataclass(slots=True)
class ClickedMessage:
    """What the bot reads of the message a click was on (in place of a `discord.Message`)."""

    id: int
    channel_id: int
    interaction_metadata: ClickedMetadata | None
    # When it was last edited (an answer is an edit): a click on it as it was before.
    edited_at: datetime | None = None

    @classmethod
    def of(cls, message: dict[str, Any]) -> ClickedMessage:
        """Read a clicked message's id, channel and whom it answered from its payload."""
        meta = message.get("interaction_metadata")
        answered = None
        if isinstance(meta, dict) and isinstance(meta.get("user"), dict):
            answered = ClickedMetadata(discord.Object(int(meta["user"]["id"])))
        # As discord.py's `utils.parse_time`, without a call through it per click.
        stamp = message.get("edited_timestamp")
        edited = datetime.fromisoformat(stamp) if stamp else None
        return cls(int(message["id"]), int(message["channel_id"]), answered, edited)


# What discord.py 2.7.1's `Interaction._from_data` makes of an interaction that answering a
# click does not read: its channel (a DM's with its recipient, a `User`), its entitlements,
# its context, the apps that may use it, its attachments' size limit.
_LATER = (
    "channel",
    "entitlement_sku_ids",
    "entitlements",
    "context",
    "_integration_owners",
    "filesize_limit",
)


class Click(discord.Interaction):
    """A click on one of our components, its message a `ClickedMessage`, parsed as read.

    The attributes a click's answer reads are set as discord.py 2.7.1's `_from_data` sets
    them; the others (`_LATER`) are parsed by discord.py itself the first time one is read.
    """

    # `response` is a slot here, made with the click: discord.py 2.7.1's `response` is a
    # `cached_slot_property`, whose first read raises and catches an AttributeError (two
    # here, `__getattr__` being asked too), and every read a call through its `__get__`.
    __slots__ = ("_payload", "response")

    def _from_data(self, payload: InteractionPayload) -> None:
        """Read the ids, token, locales, user and permissions; keep the rest for later."""
        # A click's payload as the gateway gave it (discord.py types it a union of them all).
        data: Any = payload
        # The clicked message is read below and not kept: a click waiting for its table
        # holds its payload, and the message's embeds and components are most of it (at
        # 500 tables, hundreds of clicks wait at once).
        message = data.pop("message", None)
        self._payload = data
        self.response = discord.InteractionResponse(self)
        self.id = int(data["id"])
        self.type = discord.InteractionType.component
        self.data = data.get("data")
        self.token = data["token"]
        self.version = data["version"]
        self.guild_id = discord.utils._get_as_snowflake(data, "guild_id")
        self.application_id = int(data["application_id"])
        self.locale = discord.enums.try_enum(discord.Locale, data.get("locale", "en-US"))
        self.guild_locale = None
        if "guild_locale" in data:
            self.guild_locale = discord.enums.try_enum(discord.Locale, data["guild_locale"])
        # Our code reads a clicked message's id, channel, whom it answered and last edit.
        self.message = ClickedMessage.of(message) if isinstance(message, dict) else None  # type: ignore[assignment]
        self.user = discord.utils.MISSING
        self._permissions = 0
        self._app_permissions = int(data.get("app_permissions", 0))
        if self.guild_id:
            # As discord.py: the server (if not known, a partial one) and the clicker in it.
            state = self._state
            guild = state._get_or_create_unavailable_guild(self.guild_id, data=data.get("guild"))
            if guild.me is None and self._client.user is not None:
                me = discord.Member._from_client_user(
                    user=self._client.user, guild=guild, state=state
                )
                guild._add_member(me)
            if "member" in data:
                self.user = discord.Member(state=state, guild=guild, data=data["member"])
                self._permissions = self.user._permissions or 0
        elif "user" in data:
            self.user = discord.User(state=self._state, data=data["user"])

    @property
    def channel_id(self) -> int | None:
        """Read the channel's id without building the channel."""
        return discord.utils._get_as_snowflake(self._payload.get("channel", {}), "id")

    def __getattr__(self, name: str) -> Any:
        """Parse what was kept for later, as discord.py does, the first time it is read."""
        if name == "response":  # let go of once answered (`ClickDispatch.run`): a new one
            self.response = discord.InteractionResponse(self)
            return self.response
        if name not in _LATER:
            raise AttributeError(name)
        full = discord.Interaction(data=self._payload, state=self._state)
        for each in _LATER:
            setattr(self, each, getattr(full, each))
        return getattr(self, name)


class ClickDispatch:
    """The gateway's INTERACTION_CREATE parser for clicks on our DynamicItems."""

    def __init__(
        self, state: Any, items: Sequence[Factory], noticed: Callable[[Any], None]
    ) -> None:
        self.state = state
        self.items = tuple(items)
        # What the bot notes of every interaction (`Bot.notice`), called here for a click of
        # ours instead of through an `on_interaction` event (a task per click).
        self.noticed = noticed
        self._parse: Parse | None = None
        # Named as discord.py names its own DynamicItem tasks: a stop lets the clicks in
        # flight finish, and finds them by that name (`bot.lifecycle.CLICK_TASKS`).
        self._names = {each: f"discord-ui-dynamic-item-{each.__name__}" for each in self.items}
        # The clicks in flight, held until their item has run (`run` lets go of its own).
        self._tasks: set[asyncio.Task[None]] = set()

    def install(self, parsers: dict[str, Parse]) -> None:
        """Take over the parser of interactions (the others' stays for everything else)."""
        self._parse = parsers["INTERACTION_CREATE"]
        parsers["INTERACTION_CREATE"] = self.received

    def match(self, custom_id: str) -> tuple[Factory, Any] | None:
        """Find the item kind whose template a custom_id matches, and the match."""
        for factory in self.items:
            found = factory.__discord_ui_compiled_template__.fullmatch(custom_id)
            if found is not None:
                return factory, found
        return None

    def received(self, data: dict[str, Any]) -> None:
        """Parse a click on one of ours lightly and run its item; pass anything else on."""
        assert self._parse is not None
        inner = data.get("data")
        found = None
        if data.get("type") == _COMPONENT and isinstance(inner, dict):
            found = self.match(str(inner.get("custom_id", "")))
        if found is None:
            self._parse(data)
            return
        payload: Any = data
        interaction = Click(data=payload, state=self.state)
        factory, match = found
        self.noticed(interaction)
        self._tasks.add(
            asyncio.get_running_loop().create_task(
                self.run(factory, interaction, match), name=self._names[factory]
            )
        )

    async def run(self, factory: Factory, interaction: Click, match: Any) -> None:
        """Build the clicked item from its custom_id, check it, and run its callback."""
        assert interaction.data is not None
        data: Any = interaction.data
        clicked = Clicked(str(data.get("custom_id")), data.get("component_type", _BUTTON))
        try:
            item = await factory.from_custom_id(interaction, clicked, match)
            if await item.interaction_check(interaction):
                await item.callback(interaction)
        except Exception:
            log.exception("a click on %s failed", factory.__name__)
        finally:
            # Let go of the click's task here rather than in a done-callback (a handle run
            # by the loop after each click).
            self._tasks.discard(asyncio.current_task())
            # An interaction and its `response` refer to each other: without that cycle the
            # click's objects go as soon as it is answered, not at the collector's next pass
            # (at 500 tables, over a thousand of them waited). Should anything ask for the
            # response later, it gets a new one, and a second answer meets Discord's 40060,
            # which `first_response` takes as answered already.
            del interaction.response  # a `Click`'s own slot, made with it
