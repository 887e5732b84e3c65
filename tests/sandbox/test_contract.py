"""Real discord.py against the sandbox: login, sync, gateway, commands, components, DMs."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable

import discord
import pytest

from sandbox.driver import ControlError, Driver
from sandbox.server import Sandbox
from sandbox.testing import connected_bot
from tests.sandbox.contract_bot import ContractBot


def test_the_contract_holds_for_the_pinned_discord_py() -> None:
    major, minor = (int(part) for part in discord.__version__.split(".")[:2])
    assert (major, minor) == (2, 7)


async def test_login_sync_and_ready(sandbox: Sandbox, bot: ContractBot, driver: Driver) -> None:
    state = driver.state()
    assert state["bot"]["connected"] and state["bot"]["ready"]
    assert bot.user is not None and str(bot.user.id) == state["bot"]["id"]
    assert bot.application_id == sandbox.world.application_id
    assert [g.name for g in bot.guilds] == ["Sandbox"]
    assert [c.name for c in bot.guilds[0].text_channels] == ["general"]
    assert state["commands"] == {"global": ["shithead", "shithead-admin"]}
    routes = [(e["method"], e["route"], e["status"]) for e in driver.log()]
    assert routes[:3] == [
        ("GET", "/users/@me", 200),
        ("GET", "/oauth2/applications/@me", 200),
        ("PUT", "/applications/{application_id}/commands", 200),
    ]


async def test_a_wrong_token_fails_login(sandbox: Sandbox) -> None:
    client = discord.Client(intents=discord.Intents(guilds=True))
    with pytest.raises(discord.LoginFailure):
        await client.login("not-the-token")
    await client.close()
    assert sandbox.driver.log()[-1]["status"] == 401


async def test_guild_sync_routes_guild_commands(sandbox: Sandbox, driver: Driver) -> None:
    guild_id = driver.guild.id
    async with connected_bot(sandbox, ContractBot(guild_id=guild_id)):
        await driver.create_user("alice")
        assert driver.state()["commands"] == {str(guild_id): ["shithead", "shithead-admin"]}
        result = await driver.command("alice", "general", "shithead create", {"preset": "fast"})
    assert result["status"] == "answered"
    assert result["response"]["content"] == "fast table"


async def test_resume_after_a_reconnect_request(bot: ContractBot, driver: Driver) -> None:
    await driver.create_user("alice")
    await driver.reconnect()
    await asyncio.wait_for(bot.resumed.wait(), 5)
    result = await driver.command("alice", "general", "shithead create", {"preset": "classic"})
    assert result["status"] == "answered"


async def test_slash_command_with_options_and_member(bot: ContractBot, driver: Driver) -> None:
    await driver.create_user("alice")
    await driver.create_user("bob")
    result = await driver.command(
        "alice", "#general", "shithead create", {"preset": "classic", "opponent": "bob"}
    )
    assert result["status"] == "answered" and result["error"] is None
    message = result["response"]
    assert message["content"] == "classic table against bob"
    custom_ids = [c["custom_id"] for row in message["components"] for c in row["components"]]
    assert custom_ids == ["join", "ack", "play:1", "pick"]
    assert driver.messages("general", as_user="bob") == [message]


async def test_control_calls_a_client_could_not_make_are_refused(
    bot: ContractBot, driver: Driver
) -> None:
    await driver.create_user("alice")
    with pytest.raises(ControlError, match="no command"):
        await driver.command("alice", "general", "poker")
    with pytest.raises(ControlError, match="required"):
        await driver.command("alice", "general", "shithead create")
    with pytest.raises(ControlError, match="choices"):
        await driver.command("alice", "general", "shithead create", {"preset": "chaos"})
    with pytest.raises(ControlError, match="no user"):
        await driver.command("mallory", "general", "shithead create", {"preset": "fast"})
    assert [e["route"] for e in driver.log()].count(
        "/interactions/{interaction_id}/{interaction_token}/callback"
    ) == 0


async def test_default_member_permissions(bot: ContractBot, driver: Driver) -> None:
    await driver.create_user("alice")
    await driver.create_user("mod", moderator=True)
    with pytest.raises(ControlError) as refused:
        await driver.command("alice", "general", "shithead-admin reset")
    assert refused.value.status == 403
    result = await driver.command("mod", "general", "shithead-admin reset")
    assert result["response"]["content"] == "reset"


async def test_autocomplete(bot: ContractBot, driver: Driver) -> None:
    await driver.create_user("alice")
    result = await driver.autocomplete(
        "alice", "general", "shithead join", focused="game", options={"game": "al"}
    )
    assert result["status"] == "answered"
    assert [c["value"] for c in result["response"]["choices"]] == ["alpha", "albatross"]


async def _table(driver: Driver) -> str:
    result = await driver.command("alice", "general", "shithead create", {"preset": "classic"})
    return str(result["response"]["id"])


async def test_button_updates_its_message(bot: ContractBot, driver: Driver) -> None:
    await driver.create_user("alice")
    await driver.create_user("bob")
    table = await _table(driver)
    result = await driver.click("bob", table, "join")
    assert result["status"] == "answered"
    assert result["response"]["id"] == table
    assert result["response"]["content"] == "bob joined"
    assert result["response"]["edited"]


async def test_deferred_update_then_original_edit(bot: ContractBot, driver: Driver) -> None:
    await driver.create_user("alice")
    table = await _table(driver)
    result = await driver.click("alice", table, "ack")
    assert result["status"] == "answered" and result["response"] is None
    await driver.wait_until(lambda: driver.messages("general")[0]["content"] == "acknowledged")


async def test_select_menu(bot: ContractBot, driver: Driver) -> None:
    await driver.create_user("alice")
    table = await _table(driver)
    result = await driver.select("alice", table, "pick", ["high"])
    assert result["response"]["content"] == "picked high"
    with pytest.raises(ControlError, match="not offered"):
        await driver.select("alice", table, "pick", ["medium"])
    with pytest.raises(ControlError, match="no component"):
        await driver.click("alice", table, "leave")


async def test_ephemeral_messages_are_seen_only_by_their_user(
    bot: ContractBot, driver: Driver
) -> None:
    await driver.create_user("alice")
    await driver.create_user("bob")
    result = await driver.command("alice", "general", "shithead secret")
    hand = result["response"]
    assert hand["ephemeral"] and hand["content"] == "your hand"
    assert driver.messages("general", as_user="alice") == [hand]
    assert driver.messages("general", as_user="bob") == []
    with pytest.raises(ControlError) as refused:
        await driver.click("bob", hand["id"], "play:7")
    assert refused.value.status == 403
    played = await driver.click("alice", hand["id"], "play:7")
    assert played["response"]["ephemeral"]
    assert played["response"]["content"].startswith("played in game 7")


async def test_deferral_then_followup_fills_the_loading_message(
    bot: ContractBot, driver: Driver
) -> None:
    await driver.create_user("alice")
    result = await driver.command("alice", "general", "shithead think", {"ephemeral": True})
    assert result["status"] == "answered"
    assert result["response"]["loading"] and result["response"]["ephemeral"]

    def answered() -> bool:
        messages = driver.messages("general", as_user="alice")
        return [(m["id"], m["content"], m["loading"]) for m in messages] == [
            (result["response"]["id"], "thought it through", False)
        ]

    await driver.wait_until(answered)
    assert driver.messages("general") == []


async def test_edits_through_webhook_and_channel_routes(bot: ContractBot, driver: Driver) -> None:
    await driver.create_user("alice")
    await driver.command("alice", "general", "shithead edits")
    await driver.wait_until(lambda: any(e["method"] == "DELETE" for e in driver.log()))
    messages = [(m["content"], m["edited"]) for m in driver.messages("general", as_user="alice")]
    assert messages == [("original v2", True), ("followup v2", True), ("channel v2", True)]
    assert all(e["code"] is None for e in driver.log())


async def test_dm_to_open_and_closed_users(bot: ContractBot, driver: Driver) -> None:
    await driver.create_user("alice")
    await driver.create_user("carol", dms_open=False)
    sent = await driver.command("alice", "general", "shithead dm")
    assert sent["response"]["content"] == "sent you a DM"
    [hand] = driver.dms("alice")
    assert hand["content"] == "your cards: 3♠ 7♥"
    played = await driver.click("alice", hand["id"], "play:9")
    assert played["response"]["content"].startswith("played in game 9")
    assert [m["content"] for m in driver.dms("alice")][1:] == [played["response"]["content"]]
    refused = await driver.command("carol", "general", "shithead dm")
    assert refused["response"]["content"] == "DMs closed (50007)"
    assert [e.status for e in bot.errors] == [403]
    assert driver.dms("carol") == []


async def test_a_new_bot_process_handles_a_click_on_an_old_message(
    sandbox: Sandbox, driver: Driver
) -> None:
    await driver.create_user("alice")
    async with connected_bot(sandbox, ContractBot()):
        created = await driver.command(
            "alice", "general", "shithead create", {"preset": "classic", "game": 42}
        )
    table = created["response"]["id"]
    assert not driver.state()["bot"]["connected"]
    command = [sys.executable, "-m", "tests.sandbox.contract_bot"]
    process = subprocess.Popen(
        [*command, sandbox.api_base, sandbox.gateway_url, sandbox.token],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        await driver.wait_ready(timeout=20)
        played = await driver.click("alice", table, "play:42")
        joined = await driver.click("alice", table, "join")
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=10)
    assert played["status"] == "answered", stderr.decode()
    content = played["response"]["content"]
    assert content.startswith("played in game 42 by pid ")
    assert content != f"played in game 42 by pid {os.getpid()}"
    assert joined["response"]["content"] == "alice joined"


async def test_fetches_and_unknown_objects(bot: ContractBot, driver: Driver) -> None:
    guild = await bot.fetch_guild(driver.guild.id)
    assert guild.name == "Sandbox"
    assert [c.name for c in await guild.fetch_channels()] == ["general"]
    assert bot.user is not None
    assert (await guild.fetch_member(bot.user.id)).id == bot.user.id
    channel = await bot.fetch_channel(driver.guild.channel_ids[0])
    assert isinstance(channel, discord.TextChannel)
    await channel.send("hello")
    assert [m.content async for m in channel.history(limit=5)] == ["hello"]
    assert [c.name for c in await bot.tree.fetch_commands()] == ["shithead", "shithead-admin"]
    shards, url, _ = await bot.http.get_bot_gateway()
    assert shards == 1 and url.startswith(driver.gateway.url)
    unknown: list[tuple[Callable[[], Awaitable[object]], int]] = [
        (lambda: bot.fetch_guild(1), 10004),
        (lambda: bot.fetch_user(1), 10013),
        (lambda: bot.fetch_channel(1), 10003),
        (lambda: guild.fetch_member(1), 10007),
        (lambda: channel.fetch_message(1), 10008),
    ]
    for fetch, code in unknown:
        with pytest.raises(discord.NotFound) as refused:
            await fetch()
        assert refused.value.code == code
