"""The sandbox's gateway shards like Discord's: a connection per shard, events by guild."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from sandbox.gateway import guild_of, shard_of
from sandbox.server import Sandbox
from sandbox.testing import running_sandbox

JSON = dict[str, Any]


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with running_sandbox(interaction_deadline=0.3) as started:
        for n in range(3):  # four guilds in all, two on each of two shards
            await started.driver.create_guild(f"Guild {n}")
        yield started


class Shard:
    """One raw gateway connection, identified as a shard."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws

    async def event(self) -> JSON:
        """Read the next dispatch."""
        while True:
            frame: JSON = json.loads(await asyncio.wait_for(self.ws.receive_str(), 5))
            if frame["op"] == 0:
                return frame

    async def events_until_quiet(self) -> list[JSON]:
        """Read dispatches until none comes for a moment."""
        events: list[JSON] = []
        while True:
            try:
                frame = json.loads(await asyncio.wait_for(self.ws.receive_str(), 0.3))
            except TimeoutError:
                return events
            if frame["op"] == 0:
                events.append(frame)


async def identify(
    http: aiohttp.ClientSession, sandbox: Sandbox, shard: list[int] | None, *, intents: int = 1
) -> Shard:
    """Connect a raw socket to the gateway and identify (with the guilds intent alone)."""
    ws = await http.ws_connect(sandbox.gateway_url)
    hello = json.loads(await ws.receive_str())
    assert hello["op"] == 10
    data: JSON = {"token": sandbox.token, "intents": intents, "properties": {}}
    if shard is not None:
        data["shard"] = shard
    await ws.send_str(json.dumps({"op": 2, "d": data}))
    return Shard(ws)


async def send(http: aiohttp.ClientSession, sandbox: Sandbox, channel: str) -> JSON:
    """Post a message with one button as the bot."""
    body = {
        "content": "press",
        "components": [
            {"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": "b"}]}
        ],
    }
    async with http.post(
        f"{sandbox.api_base}/channels/{channel}/messages",
        json=body,
        headers={"Authorization": f"Bot {sandbox.token}"},
    ) as response:
        assert response.status == 200, await response.text()
        message: JSON = await response.json()
        return message


async def test_each_shard_gets_its_guilds_and_their_interactions(sandbox: Sandbox) -> None:
    world, driver = sandbox.world, sandbox.driver
    by_shard = {s: {g for g in world.guilds if shard_of(g, 2) == s} for s in (0, 1)}
    assert all(len(guilds) == 2 for guilds in by_shard.values()), by_shard
    ana = await driver.create_user("ana")
    guild = min(by_shard[1])
    await driver.create_user("ben", guild=str(guild))
    async with aiohttp.ClientSession() as http:
        shards = [await identify(http, sandbox, [s, 2]) for s in (0, 1)]
        for shard, connection in enumerate(shards):
            ready, *created = await connection.events_until_quiet()
            assert ready["t"] == "READY" and ready["d"]["shard"] == [shard, 2]
            assert {int(g["id"]) for g in ready["d"]["guilds"]} == by_shard[shard]
            assert {e["t"] for e in created} == {"GUILD_CREATE"}
            assert {int(e["d"]["id"]) for e in created} == by_shard[shard]
        await driver.wait_ready(timeout=5)

        # A click in a guild of shard 1 reaches shard 1 only.
        channel = next(c for c in world.channels.values() if c.guild_id == guild)
        message = await send(http, sandbox, str(channel.id))
        click = asyncio.create_task(driver.click("ben", message["id"], "b"))
        event = await shards[1].event()
        assert event["t"] == "INTERACTION_CREATE" and event["d"]["guild_id"] == str(guild)
        await click
        assert await shards[0].events_until_quiet() == []

        # A click in a DM has no guild: it reaches shard 0.
        async with http.post(
            f"{sandbox.api_base}/users/@me/channels",
            json={"recipient_id": ana["id"]},
            headers={"Authorization": f"Bot {sandbox.token}"},
        ) as response:
            dm = await response.json()
        message = await send(http, sandbox, dm["id"])
        click = asyncio.create_task(driver.click("ana", message["id"], "b"))
        event = await shards[0].event()
        assert event["t"] == "INTERACTION_CREATE" and "guild_id" not in event["d"]
        await click
        assert await shards[1].events_until_quiet() == []
        for connection in shards:
            await connection.ws.close()


async def test_a_shard_out_of_range_is_refused(sandbox: Sandbox) -> None:
    async with aiohttp.ClientSession() as http:
        connection = await identify(http, sandbox, [2, 2])
        await connection.ws.receive()
        assert connection.ws.close_code == 4010


async def test_a_bot_without_shards_gets_every_guild(sandbox: Sandbox) -> None:
    async with aiohttp.ClientSession() as http:
        connection = await identify(http, sandbox, None)
        ready, *created = await connection.events_until_quiet()
        assert ready["d"]["shard"] == [0, 1]
        assert {int(e["d"]["id"]) for e in created} == set(sandbox.world.guilds)
        await connection.ws.close()


def test_an_event_goes_to_the_shard_of_its_guild_whatever_names_the_guild() -> None:
    assert guild_of("GUILD_CREATE", {"id": "5"}) == 5
    assert guild_of("GUILD_MEMBER_REMOVE", {"guild_id": "6", "user": {"id": "1"}}) == 6
    assert guild_of("INTERACTION_CREATE", {"guild_id": "7", "id": "99"}) == 7
    assert guild_of("INTERACTION_CREATE", {"id": "99", "channel_id": "3"}) is None  # a DM
