"""A DM conversation's first message leaves no rate-limit bucket behind in discord.py, unless
the bucket still holds a request back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import discord
import pytest
from discord.http import HTTPClient, Ratelimit, Route

from bot.client import ShitheadBot
from bot.ratelimits import forget_idle, send_first_dm
from sandbox.rules import RateLimit
from sandbox.server import Sandbox
from sandbox.testing import connected_bot, running_sandbox
from tests.bot.test_play_e2e import make_bot

SEND = "POST /channels/{channel_id}/messages"
# One message a second per channel: a second message within the second is refused with a 429.
WINDOW = 1.0


def dm_route(channel_id: int) -> Route:
    """The route of a message sent to a channel."""
    return Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)


def buckets_of(http: HTTPClient, channel_id: int) -> list[str]:
    """The keys of discord.py's rate-limit buckets for the channel's routes."""
    return [key for key in http._buckets if key.endswith(f":{channel_id}")]


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with running_sandbox(rate_limits={SEND: RateLimit(limit=1, per=WINDOW)}) as started:
        yield started


async def test_a_first_dm_refused_for_now_is_sent_once_and_its_bucket_forgotten(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    async with connected_bot(sandbox, make_bot(tmp_path)) as bot:
        assert isinstance(bot, ShitheadBot)
        user = await sandbox.driver.create_user("ana")
        channel = sandbox.world.dm_channel(sandbox.world.users[int(user["id"])])
        since = len(sandbox.world.log)
        # Something else took the channel's one message of this second: the bot's gets a 429.
        async with aiohttp.ClientSession() as session:
            taken = await session.post(
                f"{sandbox.api_base}/channels/{channel.id}/messages",
                json={"content": "first"},
                headers={"Authorization": f"Bot {sandbox.token}"},
            )
            assert taken.status == 200
        channel_id, message_id = await send_first_dm(bot, int(user["id"]), content="hello")
        assert channel_id == channel.id
        statuses = [e.status for e in sandbox.world.log[since:] if e.method + " " + e.route == SEND]
        assert statuses == [200, 429, 200]
        sent = [m.content for m in sandbox.world.channel_messages(channel.id)]
        assert sent == ["first", "hello"]
        assert sandbox.world.messages[message_id].content == "hello"
        assert buckets_of(bot.http, channel.id) == []


async def test_a_first_dm_refused_for_good_leaves_no_bucket_either(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    async with connected_bot(sandbox, make_bot(tmp_path)) as bot:
        user = await sandbox.driver.create_user("dan", dms_open=False)
        with pytest.raises(discord.Forbidden):
            await send_first_dm(bot, int(user["id"]), content="hello")
        channel = sandbox.world.dm_channel(sandbox.world.users[int(user["id"])])
        assert buckets_of(bot.http, channel.id) == []


async def test_a_bucket_that_holds_requests_back_is_kept() -> None:
    http = HTTPClient(asyncio.get_running_loop())
    route = dm_route(7)
    http._bucket_hashes[route.key] = "abc"
    keys = [f"{route.key}:7", "abc:7"]

    def bucket() -> Ratelimit:
        made = Ratelimit(None)
        for key in keys:
            http._buckets[key] = made
        return made

    exhausted = bucket()
    exhausted.remaining = 0
    exhausted.expires = asyncio.get_running_loop().time() + 5
    assert not forget_idle(http, route)
    outgoing = bucket()
    outgoing.outgoing = 1
    assert not forget_idle(http, route)
    sleeping = bucket()
    await sleeping._sleeping.acquire()
    assert not forget_idle(http, route)
    assert buckets_of(http, 7) == keys
    # Its window over, or tokens left and nothing in it: nothing to hold back.
    exhausted = bucket()
    exhausted.remaining = 0
    exhausted.expires = asyncio.get_running_loop().time() - 1
    assert forget_idle(http, route)
    assert buckets_of(http, 7) == []
    bucket().remaining = 3
    assert forget_idle(http, route)
    assert buckets_of(http, 7) == []
    assert not forget_idle(http, route)
