"""Open a member's DM conversation, and let discord.py forget its rate-limit bucket after.

discord.py keeps a `Ratelimit` (with a deque and an asyncio.Lock, about 0.9 KB) per route and
channel for 300 s after its last request, and looks for stale ones only once it holds 256: at
500 tables that is one per member's DM conversation (1,504 alive, 1.4 MB), though the bot
writes there again through the interaction tokens of the member's clicks, not this route.
A bucket that limits nothing is dropped: no request of it outgoing or waiting, none sleeping
out its window, and tokens left or its window over. discord.py makes a new one for the
route's next request, which then goes alone until Discord's headers give the bucket's limit,
as for any route used the first time; a 429 is waited out and retried by discord.py before
the send returns, so nothing is dropped while it limits. This reads discord.py's internals
(its version is pinned); tests/bot/test_ratelimits.py checks them.
"""

from __future__ import annotations

from typing import Any

import discord
from discord.http import HTTPClient, Ratelimit, Route


async def send_first_dm(client: discord.Client, user_id: int, **kwargs: Any) -> tuple[int, int]:
    """Open the member's DM conversation and send its first message; give its channel and id."""
    channel = await client.create_dm(discord.Object(user_id))
    try:
        message = await channel.send(**kwargs)
    finally:
        # Refused too (the member's DMs are closed): the bucket is as idle either way.
        forget_idle(
            client.http, Route("POST", "/channels/{channel_id}/messages", channel_id=channel.id)
        )
    return channel.id, message.id


def forget_idle(http: HTTPClient, route: Route) -> bool:
    """Drop `route`'s bucket if it limits nothing now; say whether it was dropped."""
    major = route.major_parameters
    keys = [f"{route.key}:{major}"]
    # Once Discord named the route's bucket, discord.py files it under that name as well.
    named = http._bucket_hashes.get(route.key)
    if named is not None:
        keys.append(f"{named}:{major}")
    buckets = [http._buckets.get(key) for key in keys]
    if any(bucket is not None and not _idle(bucket) for bucket in buckets):
        return False
    for key, bucket in zip(keys, buckets, strict=True):
        if bucket is not None:
            del http._buckets[key]
    return any(bucket is not None for bucket in buckets)


def _idle(bucket: Ratelimit) -> bool:
    """Say whether `bucket` holds nothing back: no request in it, and none it must delay."""
    if bucket.outgoing or bucket._pending_requests or bucket._sleeping.locked():
        return False
    return bucket.remaining > 0 or bucket.expires is None or bucket.is_expired()
