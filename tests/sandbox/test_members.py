"""Members leave guilds: the control call, GUILD_MEMBER_REMOVE by intent, Unknown Member."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest

from sandbox.driver import ControlError, Driver
from sandbox.server import Sandbox
from sandbox.testing import connected_bot


class Watcher(discord.Client):
    """A client that records every member removal it hears of."""

    def __init__(self, *, members: bool) -> None:
        super().__init__(intents=discord.Intents(guilds=True, members=members))
        self.removed: asyncio.Queue[tuple[int, int]] = asyncio.Queue()

    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        await self.removed.put((payload.guild_id, payload.user.id))


@pytest.fixture
async def http(sandbox: Sandbox) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(base_url=sandbox.url) as session:
        yield session


async def call(http: aiohttp.ClientSession, method: str, path: str, **kwargs: Any) -> Any:
    async with http.request(method, "/_sandbox" + path, **kwargs) as response:
        return response.status, await response.json()


async def test_a_bot_with_the_members_intent_hears_a_member_leave(
    sandbox: Sandbox, driver: Driver, http: aiohttp.ClientSession
) -> None:
    alice = await driver.create_user("alice")
    bob = await driver.create_user("bob")
    guild_id = driver.guild.id
    async with connected_bot(sandbox, Watcher(members=True)) as client:
        status, body = await call(http, "DELETE", f"/guilds/{guild_id}/members/alice")
        assert status == 200
        assert body == {"guild_id": str(guild_id), "user_id": alice["id"], "removed": True}
        removed = await asyncio.wait_for(client.removed.get(), 5)
        assert removed == (guild_id, int(alice["id"]))
        with pytest.raises(discord.NotFound) as unknown:
            await client.http.get_member(guild_id, int(alice["id"]))
        assert unknown.value.code == 10007
        member = await client.http.get_member(guild_id, int(bob["id"]))
        assert member["user"]["username"] == "bob"
    assert [u["guilds"] for u in driver.state()["users"] if u["name"] == "alice"] == [[]]
    with pytest.raises(ControlError) as refused:
        driver.messages("general", as_user="alice")
    assert refused.value.status == 403


async def test_a_bot_without_the_members_intent_hears_nothing(
    sandbox: Sandbox, driver: Driver
) -> None:
    await driver.create_user("alice")
    await driver.create_user("bob")
    async with connected_bot(sandbox, Watcher(members=False)) as client:
        await driver.remove_member("alice")
        await driver.remove_member("bob", guild="Sandbox")
        await asyncio.sleep(0.2)
        assert client.removed.empty()


async def test_the_members_intent_switched_off_refuses_a_bot_that_asks_for_it(
    sandbox: Sandbox, http: aiohttp.ClientSession
) -> None:
    status, body = await call(http, "POST", "/intents", json={"members": False})
    assert (status, body) == (200, {"members": False})
    with pytest.raises(discord.PrivilegedIntentsRequired):
        async with connected_bot(sandbox, Watcher(members=True)):
            pass
    async with connected_bot(sandbox, Watcher(members=False)) as client:
        assert client.is_ready()
    status, body = await call(http, "POST", "/intents", json={"members": "yes"})
    assert status == 400 and "true or false" in body["error"]
    await call(http, "POST", "/intents", json={"members": True})
    async with connected_bot(sandbox, Watcher(members=True)) as client:
        assert client.is_ready()


async def test_removals_a_guild_could_not_make_are_refused(
    sandbox: Sandbox, driver: Driver, http: aiohttp.ClientSession
) -> None:
    await driver.create_user("alice")
    await driver.create_guild("Other")
    await driver.create_user("olga", guild="Other")
    guild_id = driver.guild.id
    status, body = await call(http, "DELETE", f"/guilds/{guild_id}/members/olga")
    assert status == 404 and body["error"] == "olga is not a member of Sandbox"
    status, body = await call(http, "DELETE", "/guilds/Nowhere/members/alice")
    assert status == 404 and "no guild" in body["error"]
    status, body = await call(http, "DELETE", f"/guilds/{guild_id}/members/mallory")
    assert status == 404 and "no user" in body["error"]
    owner = driver.guild.owner_id
    status, body = await call(http, "DELETE", f"/guilds/{guild_id}/members/{owner}")
    assert status == 400 and "cannot leave" in body["error"]
    status, _ = await call(http, "DELETE", "/guilds/Other/members/olga")
    assert status == 200
    assert [u["guilds"] for u in driver.state()["users"] if u["name"] in ("alice", "olga")] == [
        [str(guild_id)],
        [],
    ]
