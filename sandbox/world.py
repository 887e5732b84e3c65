"""The sandbox's world: guilds, channels, users, messages, commands and interactions.

Plain data and the rules that need only data (permissions, visibility, ids). No HTTP,
no gateway, no Discord payload shapes: those live in `rest`, `gateway` and `factory`.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

JSON = dict[str, Any]

DISCORD_EPOCH_MS = 1420070400000
# Guilds spread evenly over any shard count that divides this (see `World._spread_id`).
SHARD_SPREAD = 64

# Permission bits (https://discord.com/developers/docs/topics/permissions).
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_APPLICATION_COMMANDS = 1 << 31
ALL_PERMISSIONS = (1 << 53) - 1

EVERYONE_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | ADD_REACTIONS
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_APPLICATION_COMMANDS
)
MODERATOR_PERMISSIONS = MANAGE_GUILD | MANAGE_MESSAGES
BOT_PERMISSIONS = EVERYONE_PERMISSIONS | MANAGE_MESSAGES

# Gateway intents (https://discord.com/developers/docs/events/gateway#gateway-intents); the
# privileged ones work only when switched on for the application in the developer portal.
GUILD_MEMBERS = 1 << 1
GUILD_PRESENCES = 1 << 8
MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = GUILD_MEMBERS | GUILD_PRESENCES | MESSAGE_CONTENT

# Channel types and message flags.
GUILD_TEXT = 0
DM = 1
EPHEMERAL = 1 << 6
LOADING = 1 << 7

INTERACTION_DEADLINE = 3.0  # seconds to the first answer
TOKEN_LIFETIME = 15 * 60.0  # seconds an interaction token works


class Clock:
    """Monotonic seconds that tests can move forward (token expiry without waiting)."""

    def __init__(self) -> None:
        self._offset = 0.0

    def now(self) -> float:
        """Return the current time in seconds."""
        return time.monotonic() + self._offset

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        self._offset += seconds


def utcnow_iso() -> str:
    """Return the wall-clock time in Discord's ISO 8601 format."""
    return datetime.now(UTC).isoformat()


@dataclass
class User:
    id: int
    name: str
    dms_open: bool = True
    bot: bool = False
    # The language of the member's Discord client (sent with every interaction).
    locale: str = "en-US"


@dataclass
class Role:
    id: int
    name: str
    permissions: int
    position: int


@dataclass
class Member:
    user_id: int
    role_ids: list[int]
    joined_at: str


@dataclass
class Channel:
    id: int
    type: int
    name: str
    guild_id: int | None = None
    recipient_id: int | None = None
    position: int = 0


@dataclass
class Guild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, Role] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)
    moderator_role_id: int = 0
    # The server's own language in Discord.
    locale: str = "en-US"


@dataclass
class Message:
    id: int
    channel_id: int
    author_id: int
    content: str
    embeds: list[JSON]
    components: list[JSON]
    flags: int
    timestamp: str
    attachments: list[JSON] = field(default_factory=list)
    edited_timestamp: str | None = None
    visible_to: int | None = None  # the only user who sees an ephemeral message
    interaction_id: int | None = None  # the interaction this message answers

    @property
    def ephemeral(self) -> bool:
        """Tell whether only one user sees the message."""
        return bool(self.flags & EPHEMERAL)


@dataclass
class Command:
    id: int
    guild_id: int | None
    payload: JSON  # as the bot synced it, with Discord's defaults filled in

    @property
    def name(self) -> str:
        """Return the command's name."""
        return str(self.payload["name"])


@dataclass
class FirstAnswer:
    """How the bot first answered an interaction: a callback type, or the error it got."""

    callback_type: int | None = None
    error: tuple[int, str] | None = None
    message_id: int | None = None
    extra: JSON | None = None  # autocomplete choices (type 8) or the modal (type 9)


@dataclass
class Interaction:
    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    guild_id: int | None
    created_at: float
    data: JSON
    message_id: int | None = None  # the message whose component was used
    acknowledged: bool = False
    original_message_id: int | None = None
    # When the bot's first callback reached the sandbox (in time or too late), if it came.
    answered_at: float | None = None
    first_answer: asyncio.Future[FirstAnswer] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


@dataclass
class LogEntry:
    seq: int
    method: str
    route: str
    path: str
    status: int
    code: int | None

    def to_json(self) -> JSON:
        """Return the entry as the control API shows it."""
        return asdict(self)


class World:
    """Everything the sandbox knows; mutated only through its methods and the REST handlers."""

    def __init__(self, *, token: str = "sandbox-token", bot_name: str = "Shithead") -> None:
        self.clock = Clock()
        self.token = token
        self._last_id = 0
        self.bot = User(id=self.new_id(), name=bot_name, bot=True)
        self.application_id = self.bot.id
        self.users: dict[int, User] = {self.bot.id: self.bot}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.commands: dict[int | None, list[Command]] = {}
        self.interactions: dict[int, Interaction] = {}
        # The same by token: every interaction webhook call looks one up.
        self._by_token: dict[str, Interaction] = {}
        self.log: list[LogEntry] = []
        # The bytes of every live attachment: id -> (content type, bytes).
        self.files: dict[str, tuple[str, bytes]] = {}
        # Where attachment URLs point; the server sets it once it knows its port.
        self.base_url = "http://sandbox.invalid"
        self.interaction_deadline = INTERACTION_DEADLINE
        # The privileged intents switched on in the developer portal: Server Members only.
        self.privileged_intents = GUILD_MEMBERS
        self.changed = asyncio.Event()

    # ids and bookkeeping

    def new_id(self) -> int:
        """Return a fresh snowflake, increasing and unique, stamped with its creation time.

        As Discord's: the milliseconds since Discord's epoch in the top bits, so a bot can
        tell an interaction's age (and its 3 s deadline) from its id.
        """
        stamp = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last_id = max(stamp, self._last_id + 1)
        return self._last_id

    def _spread_id(self, number: int) -> int:
        """Return a fresh id for the `number`th guild that puts it on shard `number % count`.

        Discord's shard of a guild is `(id >> 22) % count`: the id's millisecond is moved up
        (by less than `SHARD_SPREAD` ms) to one that leaves that remainder for every count
        dividing `SHARD_SPREAD`, so a test's guilds spread evenly over its shards.
        """
        fresh = self.new_id()
        stamp = fresh >> 22
        stamp += (number - stamp) % SHARD_SPREAD
        self._last_id = max(self._last_id, (stamp << 22) | (fresh & ((1 << 22) - 1)))
        return self._last_id

    def touch(self) -> None:
        """Wake whoever waits for the world to change."""
        self.changed.set()
        self.changed = asyncio.Event()

    def record(self, method: str, route: str, path: str, status: int, code: int | None) -> None:
        """Add a REST call to the log."""
        self.log.append(LogEntry(len(self.log) + 1, method, route, path, status, code))
        self.touch()

    # building the world

    def add_guild(self, name: str) -> Guild:
        """Create a guild with @everyone, Moderator and bot roles, the bot and a #general."""
        guild_id = self._spread_id(len(self.guilds))
        owner = User(id=self.new_id(), name=f"{name} owner")
        self.users[owner.id] = owner
        guild = Guild(id=guild_id, name=name, owner_id=owner.id)
        guild.roles[guild_id] = Role(guild_id, "@everyone", EVERYONE_PERMISSIONS, 0)
        moderator = Role(self.new_id(), "Moderator", MODERATOR_PERMISSIONS, 1)
        bot_role = Role(self.new_id(), self.bot.name, BOT_PERMISSIONS, 2)
        guild.roles[moderator.id] = moderator
        guild.roles[bot_role.id] = bot_role
        guild.moderator_role_id = moderator.id
        self.guilds[guild_id] = guild
        guild.members[self.bot.id] = Member(self.bot.id, [bot_role.id], utcnow_iso())
        guild.members[owner.id] = Member(owner.id, [moderator.id], utcnow_iso())
        self.add_channel(guild, "general")
        return guild

    def add_channel(self, guild: Guild, name: str) -> Channel:
        """Create a text channel in a guild."""
        channel = Channel(
            id=self.new_id(),
            type=GUILD_TEXT,
            name=name,
            guild_id=guild.id,
            position=len(guild.channel_ids),
        )
        self.channels[channel.id] = channel
        guild.channel_ids.append(channel.id)
        return channel

    def add_user(
        self, name: str, *, dms_open: bool, guild: Guild, moderator: bool, locale: str = "en-US"
    ) -> User:
        """Create a user who is a member of a guild."""
        user = User(id=self.new_id(), name=name, dms_open=dms_open, locale=locale)
        self.users[user.id] = user
        roles = [guild.moderator_role_id] if moderator else []
        guild.members[user.id] = Member(user.id, roles, utcnow_iso())
        return user

    def remove_member(self, guild: Guild, user_id: int) -> None:
        """Take a member out of a guild (they left, or were kicked or banned); their DMs stay."""
        del guild.members[user_id]
        self.touch()

    def dm_channel(self, user: User) -> Channel:
        """Return the bot's DM channel with a user, creating it on first use."""
        for channel in self.channels.values():
            if channel.type == DM and channel.recipient_id == user.id:
                return channel
        channel = Channel(id=self.new_id(), type=DM, name="", recipient_id=user.id)
        self.channels[channel.id] = channel
        return channel

    def delete_message(self, message: Message) -> None:
        """Remove a message and forget the bytes of its attachments."""
        del self.messages[message.id]
        self.forget_files(message.attachments)
        self.touch()

    def forget_files(self, attachments: list[JSON]) -> None:
        """Forget the bytes of attachments no message shows any more."""
        for attachment in attachments:
            self.files.pop(str(attachment["id"]), None)

    # rules

    def permissions(self, guild: Guild, user_id: int) -> int:
        """Return a member's guild permissions (the owner and administrators have all)."""
        if user_id == guild.owner_id:
            return ALL_PERMISSIONS
        member = guild.members[user_id]
        value = guild.roles[guild.id].permissions
        for role_id in member.role_ids:
            value |= guild.roles[role_id].permissions
        return ALL_PERMISSIONS if value & ADMINISTRATOR else value

    def can_see(self, message: Message, user_id: int) -> bool:
        """Tell whether a user sees a message (ephemeral ones only their user)."""
        return message.visible_to is None or message.visible_to == user_id

    def channel_messages(self, channel_id: int) -> list[Message]:
        """Return a channel's messages, oldest first."""
        return [m for m in self.messages.values() if m.channel_id == channel_id]

    def new_interaction(
        self,
        *,
        type: int,
        user_id: int,
        channel: Channel,
        data: JSON,
        message_id: int | None = None,
    ) -> Interaction:
        """Create an interaction with a fresh id and token."""
        interaction = Interaction(
            id=self.new_id(),
            token=f"aW50ZXJhY3Rpb24.{secrets.token_urlsafe(48)}",
            type=type,
            user_id=user_id,
            channel_id=channel.id,
            guild_id=channel.guild_id,
            created_at=self.clock.now(),
            data=data,
            message_id=message_id,
        )
        self.interactions[interaction.id] = interaction
        self._by_token[interaction.token] = interaction
        return interaction

    def interaction_by_token(self, token: str) -> Interaction | None:
        """Find an interaction by its token."""
        return self._by_token.get(token)

    def find_command(self, name: str, guild_id: int | None) -> Command | None:
        """Find a chat-input command by name: the guild's own first, then global."""
        scopes = [guild_id, None] if guild_id is not None else [None]
        for scope in scopes:
            for command in self.commands.get(scope, []):
                if command.name == name and command.payload.get("type", 1) == 1:
                    return command
        return None
