"""What the bot may do through REST, as Discord does it; refusals raise `DiscordError`.

Transport-free: `rest` parses HTTP and calls these; they change the world and return
Discord payloads built by `factory`.
"""

from __future__ import annotations

import struct
from urllib.parse import quote

from sandbox import factory
from sandbox.rules import (
    DiscordError,
    invalid_form,
    not_found,
    number_components,
    too_long,
    validate_files,
    validate_message,
)
from sandbox.world import (
    DM,
    EPHEMERAL,
    JSON,
    LOADING,
    TOKEN_LIFETIME,
    Channel,
    Command,
    FirstAnswer,
    Guild,
    Interaction,
    Message,
    World,
    utcnow_iso,
)

COMMAND, COMPONENT, AUTOCOMPLETE = 2, 3, 4
MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 4, 5, 6, 7
AUTOCOMPLETE_RESULT, MODAL = 8, 9
ALLOWED_CALLBACKS = {
    COMMAND: {MESSAGE, DEFERRED_MESSAGE, MODAL},
    COMPONENT: {MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL},
    AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
}
MAX_CHOICES = 25
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_SIGNATURE = b"\xff\xd8"
ATTACHMENTS_ROUTE = "/_sandbox/attachments"


class BotApi:
    """The REST operations of API v10 that the bot uses."""

    def __init__(self, world: World) -> None:
        self.world = world

    # lookups

    def channel(self, channel_id: int) -> Channel:
        """Return a channel or Discord's 10003."""
        channel = self.world.channels.get(channel_id)
        if channel is None:
            raise not_found(10003, "Channel")
        return channel

    def guild(self, guild_id: int) -> Guild:
        """Return a guild or Discord's 10004."""
        guild = self.world.guilds.get(guild_id)
        if guild is None:
            raise not_found(10004, "Guild")
        return guild

    def message(self, channel_id: int, message_id: int) -> Message:
        """Return a message the bot can reach through channel routes (not ephemeral)."""
        message = self.world.messages.get(message_id)
        if message is None or message.channel_id != channel_id or message.ephemeral:
            raise not_found(10008, "Message")
        return message

    # application and commands

    def put_commands(
        self, application_id: int, guild_id: int | None, body: list[JSON]
    ) -> list[JSON]:
        """Replace the commands of one scope (global or a guild), keeping ids of same names."""
        self._check_application(application_id)
        if guild_id is not None:
            self.guild(guild_id)
        previous = {
            (c.name, c.payload.get("type", 1)): c.id for c in self.world.commands.get(guild_id, [])
        }
        commands = []
        for payload in body:
            key = (payload["name"], payload.get("type", 1))
            command_id = previous.get(key) or self.world.new_id()
            commands.append(
                Command(command_id, guild_id, self._command_payload(command_id, guild_id, payload))
            )
        self.world.commands[guild_id] = commands
        self.world.touch()
        return [c.payload for c in commands]

    def get_commands(self, application_id: int, guild_id: int | None) -> list[JSON]:
        """Return the commands of one scope."""
        self._check_application(application_id)
        return [c.payload for c in self.world.commands.get(guild_id, [])]

    def _command_payload(self, command_id: int, guild_id: int | None, payload: JSON) -> JSON:
        kind = payload.get("type", 1)
        echoed: JSON = {
            "type": kind,
            "description": "" if kind != 1 else payload.get("description", ""),
            "options": [],
            "default_member_permissions": None,
            "nsfw": False,
            "contexts": None,
            "integration_types": [0],
            "name_localizations": None,
            "description_localizations": None,
            **payload,
            "id": str(command_id),
            "application_id": str(self.world.application_id),
            "version": str(self.world.new_id()),
        }
        if guild_id is not None:
            echoed["guild_id"] = str(guild_id)
        return echoed

    def _check_application(self, application_id: int) -> None:
        if application_id != self.world.application_id:
            raise DiscordError(403, 50001, "Missing Access")

    # channel messages

    def create_message(self, channel_id: int, body: JSON, files: list[JSON]) -> JSON:
        """Post a message to a text channel or a DM (50007 when the user closed their DMs)."""
        channel = self.channel(channel_id)
        validate_files(files)
        validate_message({**body, "attachments": files or body.get("attachments")})
        if channel.type == DM:
            assert channel.recipient_id is not None
            if not self.world.users[channel.recipient_id].dms_open:
                raise DiscordError(403, 50007, "Cannot send messages to this user")
        message = self._new_message(channel, body, files, visible_to=None, interaction=None)
        return factory.message(self.world, message)

    def edit_message(self, channel_id: int, message_id: int, body: JSON, files: list[JSON]) -> JSON:
        """Edit one of the bot's messages."""
        message = self.message(channel_id, message_id)
        if message.author_id != self.world.bot.id:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        validate_files(files)
        self._apply_edit(message, body, files)
        return factory.message(self.world, message)

    def delete_message(self, channel_id: int, message_id: int) -> None:
        """Delete a message."""
        message = self.message(channel_id, message_id)
        self._delete(message)

    def get_message(self, channel_id: int, message_id: int) -> JSON:
        """Return one message."""
        return factory.message(self.world, self.message(channel_id, message_id))

    def history(self, channel_id: int, limit: int) -> list[JSON]:
        """Return the newest non-ephemeral messages of a channel, newest first."""
        self.channel(channel_id)
        if not 1 <= limit <= 100:
            raise invalid_form(["limit"], "NUMBER_TYPE_MAX", "int value should be <= 100.")
        visible = [m for m in self.world.channel_messages(channel_id) if not m.ephemeral]
        return [factory.message(self.world, m) for m in reversed(visible[-limit:])]

    def open_dm(self, recipient_id: int) -> JSON:
        """Return the DM channel with a user (it opens even when they closed their DMs)."""
        user = self.world.users.get(recipient_id)
        if user is None or user.bot:
            raise DiscordError(400, 50033, "Invalid Recipient(s)")
        return factory.channel(self.world, self.world.dm_channel(user))

    # interactions

    def interaction(self, interaction_id: int, token: str) -> Interaction:
        """Return a live interaction or Discord's 10062."""
        interaction = self.world.interactions.get(interaction_id)
        if interaction is None or interaction.token != token:
            raise not_found(10062, "interaction")
        return interaction

    def callback(
        self, interaction_id: int, token: str, body: JSON, files: list[JSON] | None = None
    ) -> JSON:
        """Answer an interaction for the first time (types 4 to 9); files come with 4 and 7."""
        interaction = self.interaction(interaction_id, token)
        if interaction.answered_at is None:
            interaction.answered_at = self.world.clock.now()
        try:
            return self._callback(interaction, body, files or [])
        except DiscordError as error:
            self._settle(interaction, FirstAnswer(error=(error.code, error.message)))
            raise

    def _callback(self, interaction: Interaction, body: JSON, files: list[JSON]) -> JSON:
        if interaction.acknowledged:
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        if self.world.clock.now() - interaction.created_at > self.world.interaction_deadline:
            raise not_found(10062, "interaction")
        kind = body.get("type")
        data: JSON = body.get("data") or {}
        validate_files(files)
        if kind not in ALLOWED_CALLBACKS[interaction.type]:
            raise invalid_form(
                ["type"], "INTERACTION_RESPONSE_TYPE_INVALID", "Invalid interaction response type"
            )
        channel = self.world.channels[interaction.channel_id]
        message: Message | None = None
        extra: JSON | None = None
        if kind == MESSAGE:
            validate_message({**data, "attachments": files or data.get("attachments")})
            message = self._interaction_message(interaction, channel, data, flags=0, files=files)
        elif kind == DEFERRED_MESSAGE:
            message = self._interaction_message(
                interaction, channel, {}, flags=LOADING | (data.get("flags", 0) & EPHEMERAL)
            )
        elif kind in (DEFERRED_UPDATE, UPDATE_MESSAGE):
            assert interaction.message_id is not None
            message = self.world.messages[interaction.message_id]
            if kind == UPDATE_MESSAGE:
                self._apply_edit(message, data, files)
        elif kind == AUTOCOMPLETE_RESULT:
            choices = data.get("choices") or []
            if len(choices) > MAX_CHOICES:
                raise too_long(["data", "choices"], MAX_CHOICES)
            extra = {"choices": choices}
        else:
            extra = {"modal": data}
        interaction.acknowledged = True
        interaction.original_message_id = message.id if message is not None else None
        self._settle(interaction, FirstAnswer(kind, None, interaction.original_message_id, extra))
        response: JSON = {
            "id": str(interaction.id),
            "type": interaction.type,
            "response_message_id": factory.snowflake(interaction.original_message_id),
            "response_message_loading": kind == DEFERRED_MESSAGE,
            "response_message_ephemeral": bool(message and message.ephemeral),
            "activity_instance_id": None,
        }
        resource: JSON = {"type": kind}
        if message is not None and kind != DEFERRED_UPDATE:
            resource["message"] = factory.message(self.world, message)
        return {"interaction": response, "resource": resource}

    def _settle(self, interaction: Interaction, answer: FirstAnswer) -> None:
        if not interaction.first_answer.done():
            interaction.first_answer.set_result(answer)

    def _webhook_interaction(self, application_id: int, token: str) -> Interaction:
        """Return the acknowledged, unexpired interaction behind a webhook token."""
        interaction = self.world.interaction_by_token(token)
        if application_id != self.world.application_id or interaction is None:
            raise not_found(10015, "Webhook")
        if self.world.clock.now() - interaction.created_at > TOKEN_LIFETIME:
            raise DiscordError(401, 50027, "Invalid Webhook Token")
        if not interaction.acknowledged:
            raise not_found(10015, "Webhook")
        return interaction

    def _webhook_message(self, interaction: Interaction, message_id: str) -> Message:
        """Return the original response (`@original`) or a followup of an interaction."""
        target = interaction.original_message_id if message_id == "@original" else int(message_id)
        message = self.world.messages.get(target) if target is not None else None
        if message is None or (
            message.interaction_id != interaction.id and target != interaction.original_message_id
        ):
            raise not_found(10008, "Message")
        return message

    def followup(self, application_id: int, token: str, body: JSON, files: list[JSON]) -> JSON:
        """Send a followup; the first after a deferral fills the loading message."""
        interaction = self._webhook_interaction(application_id, token)
        validate_files(files)
        validate_message({**body, "attachments": files or body.get("attachments")})
        original = self.world.messages.get(interaction.original_message_id or 0)
        if original is not None and original.flags & LOADING:
            self._fill(original, body, files)
            return factory.message(self.world, original)
        channel = self.world.channels[interaction.channel_id]
        message = self._interaction_message(interaction, channel, body, flags=0, files=files)
        return factory.message(self.world, message)

    def get_webhook_message(self, application_id: int, token: str, message_id: str) -> JSON:
        """Return the original response or a followup."""
        interaction = self._webhook_interaction(application_id, token)
        return factory.message(self.world, self._webhook_message(interaction, message_id))

    def edit_webhook_message(
        self, application_id: int, token: str, message_id: str, body: JSON, files: list[JSON]
    ) -> JSON:
        """Edit the original response or a followup (a loading original is filled, not edited)."""
        interaction = self._webhook_interaction(application_id, token)
        message = self._webhook_message(interaction, message_id)
        validate_files(files)
        if message.flags & LOADING:
            self._fill(message, body, files)
        else:
            self._apply_edit(message, body, files)
        return factory.message(self.world, message)

    def delete_webhook_message(self, application_id: int, token: str, message_id: str) -> None:
        """Delete the original response or a followup."""
        interaction = self._webhook_interaction(application_id, token)
        self._delete(self._webhook_message(interaction, message_id))

    # message storage

    def _interaction_message(
        self,
        interaction: Interaction,
        channel: Channel,
        body: JSON,
        *,
        flags: int,
        files: list[JSON] | None = None,
    ) -> Message:
        flags |= int(body.get("flags") or 0) & EPHEMERAL
        visible_to = interaction.user_id if flags & EPHEMERAL else None
        return self._new_message(
            channel,
            {**body, "flags": flags},
            files or [],
            visible_to=visible_to,
            interaction=interaction,
        )

    def _new_message(
        self,
        channel: Channel,
        body: JSON,
        files: list[JSON],
        *,
        visible_to: int | None,
        interaction: Interaction | None,
    ) -> Message:
        message = Message(
            id=self.world.new_id(),
            channel_id=channel.id,
            author_id=self.world.bot.id,
            content=str(body.get("content") or ""),
            embeds=list(body.get("embeds") or []),
            components=number_components(body.get("components") or []),
            flags=int(body.get("flags") or 0) & (EPHEMERAL | LOADING),
            timestamp=utcnow_iso(),
            attachments=self._attachments(files),
            visible_to=visible_to,
            interaction_id=interaction.id if interaction is not None else None,
        )
        self.world.messages[message.id] = message
        self.world.touch()
        return message

    def _attachments(self, files: list[JSON]) -> list[JSON]:
        """Store uploaded files' bytes and return them as Discord attachments.

        Their URL is the sandbox's own `GET /_sandbox/attachments/{id}/{filename}`.
        """
        attachments = []
        for f in files:
            attachment_id = str(self.world.new_id())
            data: bytes = f["data"]
            url = f"{self.world.base_url}{ATTACHMENTS_ROUTE}/{attachment_id}/{quote(f['filename'])}"
            attachment: JSON = {
                "id": attachment_id,
                "filename": f["filename"],
                "size": len(data),
                "url": url,
                "proxy_url": url,
                "content_type": f["content_type"],
            }
            attachment.update(_image_size(data))
            self.world.files[attachment_id] = (f["content_type"], data)
            attachments.append(attachment)
        return attachments

    def _fill(self, message: Message, body: JSON, files: list[JSON]) -> None:
        """Replace a deferral's loading message with the real answer."""
        self._apply_edit(message, body, files, mark_edited=False)
        message.flags &= ~LOADING

    def _apply_edit(
        self, message: Message, body: JSON, files: list[JSON], *, mark_edited: bool = True
    ) -> None:
        """Apply an edit's fields; refuse it as Discord would (invalid or empty result)."""
        content = str(body["content"] or "") if "content" in body else message.content
        embeds = list(body["embeds"] or []) if "embeds" in body else message.embeds
        components = message.components
        if "components" in body:
            components = number_components(body["components"] or [])
        kept, dropped = message.attachments, []
        if files or "attachments" in body:
            kept_ids = {str(a.get("id")) for a in body.get("attachments") or []}
            kept = [a for a in message.attachments if a["id"] in kept_ids]
            dropped = [a for a in message.attachments if a["id"] not in kept_ids]
        validate_message(
            {
                "content": content,
                "embeds": embeds,
                "components": components,
                "attachments": kept + files,
            }
        )
        # Only an edit that holds stores its files and forgets the ones it removed.
        attachments = kept + self._attachments(files)
        self.world.forget_files(dropped)
        message.content, message.embeds = content, embeds
        message.components, message.attachments = components, attachments
        if mark_edited:
            message.edited_timestamp = utcnow_iso()
        self.world.touch()

    def _delete(self, message: Message) -> None:
        self.world.delete_message(message)


def _image_size(data: bytes) -> JSON:
    """Return a PNG's or JPEG's `width` and `height` as Discord gives them (else nothing)."""
    if len(data) >= 24 and data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return {"width": width, "height": height}
    if data.startswith(JPEG_SIGNATURE):
        return _jpeg_size(data)
    return {}


def _jpeg_size(data: bytes) -> JSON:
    """Read a JPEG's size from its start-of-frame segment (nothing when there is none)."""
    at = 2
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        # SOF0-SOF15 carry the size, but C4 (Huffman tables), C8 and CC are not frames.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if at + 9 > len(data):
                return {}
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return {"width": width, "height": height}
        at += 2 + length
    return {}
