"""Discord payloads built from the world: the one place that knows their shapes.

A payload that lacks a field discord.py reads kills the client's gateway parser, so
every user, member, channel, message and interaction the sandbox emits comes from here.
"""

from __future__ import annotations

from sandbox.rules import MAX_ATTACHMENT_SIZE
from sandbox.world import (
    DM,
    EVERYONE_PERMISSIONS,
    JSON,
    Channel,
    Guild,
    Interaction,
    Message,
    Role,
    User,
    World,
)


def snowflake(value: int | None) -> str | None:
    """Return an id as Discord sends it (a string), keeping None."""
    return None if value is None else str(value)


def user(u: User) -> JSON:
    """Build a user object."""
    return {
        "id": str(u.id),
        "username": u.name,
        "global_name": u.name,
        "discriminator": "0",
        "avatar": None,
        "bot": u.bot,
        "system": False,
        "public_flags": 0,
        "flags": 0,
        "banner": None,
        "accent_color": None,
        "avatar_decoration_data": None,
    }


def member(world: World, guild: Guild, user_id: int, *, with_user: bool = True) -> JSON:
    """Build a guild member object (with `permissions` as interactions carry it)."""
    m = guild.members[user_id]
    payload: JSON = {
        "roles": [str(r) for r in m.role_ids],
        "nick": None,
        "avatar": None,
        "banner": None,
        "joined_at": m.joined_at,
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "communication_disabled_until": None,
        "permissions": str(world.permissions(guild, user_id)),
    }
    if with_user:
        payload["user"] = user(world.users[user_id])
    return payload


def role(r: Role) -> JSON:
    """Build a role object."""
    return {
        "id": str(r.id),
        "name": r.name,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "icon": None,
        "unicode_emoji": None,
        "position": r.position,
        "permissions": str(r.permissions),
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def channel(world: World, c: Channel) -> JSON:
    """Build a channel object (a guild text channel or a DM)."""
    if c.type == DM:
        assert c.recipient_id is not None
        return {
            "id": str(c.id),
            "type": DM,
            "last_message_id": None,
            "flags": 0,
            "recipients": [user(world.users[c.recipient_id])],
        }
    return {
        "id": str(c.id),
        "type": c.type,
        "guild_id": snowflake(c.guild_id),
        "name": c.name,
        "position": c.position,
        "permission_overwrites": [],
        "parent_id": None,
        "topic": None,
        "nsfw": False,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "flags": 0,
    }


def guild(world: World, g: Guild) -> JSON:
    """Build a full guild object as GUILD_CREATE carries it."""
    return {
        "id": str(g.id),
        "name": g.name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(g.owner_id),
        "region": None,
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "nsfw_level": 0,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "preferred_locale": g.locale,
        "features": [],
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "safety_alerts_channel_id": None,
        "vanity_url_code": None,
        "max_members": 500000,
        "max_video_channel_users": 25,
        "roles": [role(r) for r in g.roles.values()],
        "emojis": [],
        "stickers": [],
        "joined_at": g.members[world.bot.id].joined_at,
        "large": False,
        "unavailable": False,
        "member_count": len(g.members),
        "members": [member(world, g, uid) for uid in g.members],
        "channels": [channel(world, world.channels[cid]) for cid in g.channel_ids],
        "threads": [],
        "voice_states": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "application_command_counts": {},
        "lazy": True,
    }


def application(world: World) -> JSON:
    """Build the bot's application object (no `interactions_endpoint_url`: gateway delivery)."""
    return {
        "id": str(world.application_id),
        "name": world.bot.name,
        "icon": None,
        "description": "A Shithead bot in the sandbox",
        "summary": "",
        "type": None,
        "bot_public": True,
        "bot_require_code_grant": False,
        "verify_key": "0" * 64,
        "flags": 0,
        "owner": user(world.bot),
        "team": None,
        "bot": user(world.bot),
        "tags": [],
        "redirect_uris": [],
        "rpc_origins": [],
    }


def ready(world: World, session_id: str, resume_url: str) -> JSON:
    """Build the READY dispatch: the bot user and its guilds, not yet available."""
    return {
        "v": 10,
        "user": {**user(world.bot), "verified": True, "mfa_enabled": False},
        "guilds": [{"id": str(g), "unavailable": True} for g in world.guilds],
        "session_id": session_id,
        "resume_gateway_url": resume_url,
        "session_type": "normal",
        "application": {"id": str(world.application_id), "flags": 0},
        "private_channels": [],
        "relationships": [],
        "presences": [],
        "guild_join_requests": [],
        "geo_ordered_rtc_regions": [],
        "auth_session_id_hash": "",
        "user_settings": {},
    }


def message(world: World, m: Message) -> JSON:
    """Build a message object as the bot receives it."""
    c = world.channels[m.channel_id]
    payload: JSON = {
        "id": str(m.id),
        "type": 0,
        "channel_id": str(m.channel_id),
        "author": user(world.users[m.author_id]),
        "content": m.content,
        "timestamp": m.timestamp,
        "edited_timestamp": m.edited_timestamp,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "mention_channels": [],
        "attachments": m.attachments,
        "embeds": m.embeds,
        "components": m.components,
        "reactions": [],
        "pinned": False,
        "flags": m.flags,
        "position": 0,
    }
    if c.guild_id is not None:
        payload["guild_id"] = str(c.guild_id)
    if m.interaction_id is not None:
        i = world.interactions[m.interaction_id]
        payload["type"] = 20 if i.type == 2 else 0
        payload["webhook_id"] = str(world.application_id)
        payload["application_id"] = str(world.application_id)
        metadata: JSON = {
            "id": str(i.id),
            "type": i.type,
            "user": user(world.users[i.user_id]),
            "authorizing_integration_owners": {"0": str(i.guild_id or 0)},
        }
        if i.original_message_id is not None and i.original_message_id != m.id:
            metadata["original_response_message_id"] = str(i.original_message_id)
        if i.message_id is not None:
            metadata["interacted_message_id"] = str(i.message_id)
        payload["interaction_metadata"] = metadata
    return payload


def interaction(world: World, i: Interaction) -> JSON:
    """Build an INTERACTION_CREATE payload for a command, a component or an autocomplete."""
    c = world.channels[i.channel_id]
    payload: JSON = {
        "id": str(i.id),
        "application_id": str(world.application_id),
        "type": i.type,
        "data": i.data,
        "channel_id": str(c.id),
        "channel": channel(world, c),
        "token": i.token,
        "version": 1,
        "locale": world.users[i.user_id].locale,
        "entitlements": [],
        "entitlement_sku_ids": [],
        "authorizing_integration_owners": {"0": str(i.guild_id or 0)},
        "attachment_size_limit": MAX_ATTACHMENT_SIZE,
        "context": 0 if i.guild_id is not None else 1,
    }
    if i.guild_id is not None:
        g = world.guilds[i.guild_id]
        payload["guild_id"] = str(g.id)
        payload["guild"] = {"id": str(g.id), "locale": g.locale, "features": []}
        payload["guild_locale"] = g.locale
        payload["member"] = member(world, g, i.user_id)
        payload["app_permissions"] = str(world.permissions(g, world.bot.id))
    else:
        payload["user"] = user(world.users[i.user_id])
        payload["app_permissions"] = str(EVERYONE_PERMISSIONS)
    if i.message_id is not None:
        payload["message"] = message(world, world.messages[i.message_id])
    return payload
