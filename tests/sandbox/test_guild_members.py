"""GUILD_CREATE lists a guild's members only with the presences intent, as Discord's does;
REQUEST_GUILD_MEMBERS (op 8) gives the rest, the whole list only with the members intent."""

from __future__ import annotations

import json

import aiohttp
import discord
import pytest

from sandbox.server import Sandbox
from sandbox.testing import connected_bot
from sandbox.world import GUILD_MEMBERS, GUILD_PRESENCES
from tests.sandbox.test_shards import identify

GUILDS = 1


def member_ids(payload: dict[str, object]) -> set[int]:
    members = payload["members"]
    assert isinstance(members, list)
    return {int(m["user"]["id"]) for m in members}


async def test_without_the_presences_intent_guild_create_lists_the_bot_alone(
    sandbox: Sandbox,
) -> None:
    for name in ("alice", "bob"):
        await sandbox.driver.create_user(name)
    everyone = set(sandbox.driver.guild.members)
    bot = sandbox.world.bot.id
    async with aiohttp.ClientSession() as http:
        for intents in (GUILDS, GUILDS | GUILD_MEMBERS):
            shard = await identify(http, sandbox, None, intents=intents)
            _, created = await shard.event(), await shard.event()
            assert member_ids(created["d"]) == {bot}
            assert created["d"]["member_count"] == len(everyone) > 1
            await shard.ws.close()
        sandbox.world.privileged_intents |= GUILD_PRESENCES  # switched on in the portal
        shard = await identify(http, sandbox, None, intents=GUILDS | GUILD_PRESENCES)
        _, created = await shard.event(), await shard.event()
        assert member_ids(created["d"]) == everyone
        await shard.ws.close()


async def test_the_whole_member_list_is_given_only_with_the_members_intent(
    sandbox: Sandbox,
) -> None:
    alice = await sandbox.driver.create_user("alice")
    guild = str(sandbox.driver.guild.id)
    everyone = {"guild_id": guild, "query": "", "limit": 0, "nonce": "all"}
    by_id = {"guild_id": guild, "user_ids": [alice["id"], "42"], "limit": 0, "nonce": "ids"}
    async with aiohttp.ClientSession() as http:
        without = await identify(http, sandbox, None, intents=GUILDS)
        _, _ = await without.event(), await without.event()  # READY, GUILD_CREATE
        for request in (everyone, by_id):
            await without.ws.send_str(json.dumps({"op": 8, "d": request}))
        # Requests are answered in order: the first answer is to the second request.
        answer = await without.event()
        await without.ws.close()
        assert (answer["t"], answer["d"]["nonce"]) == ("GUILD_MEMBERS_CHUNK", "ids")
        assert member_ids(answer["d"]) == {int(alice["id"])}
        assert answer["d"]["not_found"] == ["42"]
        with_members = await identify(http, sandbox, None, intents=GUILDS | GUILD_MEMBERS)
        _, _ = await with_members.event(), await with_members.event()
        await with_members.ws.send_str(json.dumps({"op": 8, "d": everyone}))
        chunk = await with_members.event()
        await with_members.ws.close()
    assert chunk["t"] == "GUILD_MEMBERS_CHUNK"
    assert chunk["d"]["nonce"] == "all" and chunk["d"]["guild_id"] == guild
    assert (chunk["d"]["chunk_index"], chunk["d"]["chunk_count"]) == (0, 1)
    assert member_ids(chunk["d"]) == set(sandbox.driver.guild.members)


class Chunking(discord.Client):
    """A client with discord.py's defaults for its intents: with members, it chunks at start."""

    def __init__(self, *, members: bool) -> None:
        super().__init__(intents=discord.Intents(guilds=True, members=members))


async def test_a_client_that_chunks_at_start_gets_every_member_at_once(
    sandbox: Sandbox,
) -> None:
    for name in ("alice", "bob"):
        await sandbox.driver.create_user(name)
    # Unanswered, the chunk request would hold on_ready for 5 s, past this timeout.
    async with connected_bot(sandbox, Chunking(members=True), timeout=4) as client:
        guild = client.get_guild(sandbox.driver.guild.id)
        assert guild is not None and guild.chunked
        assert {m.id for m in guild.members} == set(sandbox.driver.guild.members)
        assert {m.name for m in guild.members} >= {"alice", "bob"}


@pytest.mark.parametrize("members", [False, True])
async def test_members_are_found_by_a_names_beginning_or_by_id_with_or_without_the_intent(
    sandbox: Sandbox, members: bool
) -> None:
    alice = await sandbox.driver.create_user("alice")
    await sandbox.driver.create_user("albert")
    bob = await sandbox.driver.create_user("bob")
    async with connected_bot(sandbox, Chunking(members=members)) as client:
        guild = client.get_guild(sandbox.driver.guild.id)
        assert guild is not None
        found = await guild.query_members(query="AL", limit=1)
        assert [m.name for m in found] == ["alice"]
        found = await guild.query_members(query="al", limit=10)
        assert sorted(m.name for m in found) == ["albert", "alice"]
        found = await guild.query_members(user_ids=[int(bob["id"]), int(alice["id"])])
        assert sorted(m.name for m in found) == ["alice", "bob"]
