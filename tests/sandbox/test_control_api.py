"""The HTTP control API does what the driver does; `python -m bot` plays in the sandbox."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest

from sandbox.server import Sandbox
from tests.sandbox.contract_bot import ContractBot


@pytest.fixture
async def http(sandbox: Sandbox) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(base_url=sandbox.url) as session:
        yield session


async def call(http: aiohttp.ClientSession, method: str, path: str, **kwargs: Any) -> Any:
    async with http.request(method, "/_sandbox" + path, **kwargs) as response:
        assert response.headers["Content-Type"] == "application/json; charset=utf-8"
        return response.status, await response.json()


async def test_a_game_through_the_control_api(
    bot: ContractBot, http: aiohttp.ClientSession
) -> None:
    status, alice = await call(http, "POST", "/users", json={"name": "alice"})
    assert status == 201 and alice["moderator"] is False and alice["dms_open"] is True
    status, channel = await call(http, "POST", "/channels", json={"name": "table-1"})
    assert status == 201
    command = {
        "type": "command",
        "user": alice["id"],
        "channel": channel["id"],
        "name": "shithead create",
        "options": {"preset": "classic"},
    }
    status, created = await call(http, "POST", "/interactions", json=command)
    assert status == 200 and created["status"] == "answered"
    message = created["response"]
    assert set(message) >= {"id", "author", "content", "embeds", "components", "ephemeral"}
    click = {"type": "button", "user": "alice", "message": message["id"], "custom_id": "join"}
    _, clicked = await call(http, "POST", "/interactions", json=click)
    assert clicked["response"]["content"] == "alice joined"
    choice = {**click, "type": "select", "custom_id": "pick", "values": ["low"]}
    _, picked = await call(http, "POST", "/interactions", json=choice)
    assert picked["response"]["content"] == "picked low"

    _, seen = await call(http, "GET", f"/channels/{channel['id']}/messages?as=alice&limit=5")
    assert [(m["content"], m["edited"]) for m in seen] == [("picked low", True)]
    _, state = await call(http, "GET", "/state")
    assert state["bot"]["ready"]
    assert [c["name"] for c in state["guilds"][0]["channels"]] == ["general", "table-1"]
    _, log = await call(http, "GET", "/log?since=3")
    assert [e["seq"] for e in log] == list(range(4, 4 + len(log)))
    assert {e["route"] for e in log} == {
        "/interactions/{interaction_id}/{interaction_token}/callback"
    }

    status, refused = await call(http, "DELETE", f"/messages/{message['id']}?as=alice")
    assert status == 403 and "may not delete" in refused["error"]
    await call(http, "POST", "/users", json={"name": "mo", "moderator": True})
    status, _ = await call(http, "DELETE", f"/messages/{message['id']}?as=mo")
    assert status == 200
    _, seen = await call(http, "GET", f"/channels/{channel['id']}/messages?as=alice")
    assert seen == []
    status, _ = await call(http, "DELETE", f"/messages/{message['id']}?as=mo")
    assert status == 404


async def test_dms_and_refusals_through_the_control_api(
    bot: ContractBot, http: aiohttp.ClientSession
) -> None:
    await call(http, "POST", "/users", json={"name": "alice"})
    await call(http, "POST", "/users", json={"name": "carol", "dms_open": False})
    command = {"type": "command", "user": "alice", "channel": "general", "name": "shithead dm"}
    await call(http, "POST", "/interactions", json=command)
    _, dms = await call(http, "GET", "/users/alice/dms?limit=1")
    assert [m["content"] for m in dms] == ["your cards: 3♠ 7♥"]
    status, refused = await call(
        http, "POST", "/interactions", json={**command, "name": "shithead-admin reset"}
    )
    assert status == 403 and "lacks the permissions" in refused["error"]
    status, refused = await call(http, "POST", "/interactions", json={"type": "wave"})
    assert status == 400
    status, refused = await call(http, "POST", "/users", json={"name": "alice"})
    assert status == 400 and "taken" in refused["error"]
    status, _ = await call(http, "GET", "/users/nobody/dms")
    assert status == 404


async def test_the_control_api_answers_utf8_json(
    bot: ContractBot, sandbox: Sandbox, http: aiohttp.ClientSession
) -> None:
    async with http.post("/_sandbox/users", json={"name": "zoë"}) as response:
        assert '"name": "zoë"'.encode() in await response.read()
    await call(
        http,
        "POST",
        "/interactions",
        json={"type": "command", "user": "zoë", "channel": "general", "name": "shithead dm"},
    )
    async with http.get("/_sandbox/users/zoë/dms") as response:
        raw = await response.read()
        assert response.headers["Content-Type"] == "application/json; charset=utf-8"
    assert '"content": "your cards: 3♠ 7♥"'.encode() in raw and b"\\u" not in raw
    # A lone surrogate cannot be UTF-8: it comes back as the JSON escape it was sent as.
    async with http.post("/_sandbox/users", data=b'{"name": "x\\ud83c"}') as response:
        assert response.status == 201 and b'"x\\ud83c"' in await response.read()
    status, one = await call(http, "GET", f"/messages/{json.loads(raw)[0]['id']}?as=zoë")
    assert status == 200 and one["content"] == "your cards: 3♠ 7♥"
    secret = {"type": "command", "user": "zoë", "channel": "general", "name": "shithead secret"}
    _, answer = await call(http, "POST", "/interactions", json=secret)
    ephemeral = answer["response"]["id"]
    assert (await call(http, "GET", f"/messages/{ephemeral}?as=zoë"))[0] == 200
    await call(http, "POST", "/users", json={"name": "yan"})
    for other in ("?as=yan", ""):
        status, hidden = await call(http, "GET", f"/messages/{ephemeral}{other}")
        assert status == 404 and hidden["error"].startswith("no message"), other
    status, unknown = await call(http, "GET", "/nowhere")
    assert status == 404 and unknown["error"].startswith("no control call /_sandbox/nowhere")
    status, wrong = await call(http, "PUT", "/state")
    assert status == 405 and wrong == {"error": "PUT is not allowed on /_sandbox/state"}


async def test_the_discord_api_answers_utf8_json_discord_py_reads(
    bot: ContractBot, sandbox: Sandbox, http: aiohttp.ClientSession
) -> None:
    channel = bot.get_channel(sandbox.driver.guild.channel_ids[0])
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("7♠ 10♥ 🃏")
    assert sent.content == "7♠ 10♥ 🃏"
    headers = {"Authorization": f"Bot {sandbox.token}"}
    async with http.get(
        f"/api/v10/channels/{channel.id}/messages/{sent.id}", headers=headers
    ) as response:
        assert response.headers["Content-Type"] == "application/json"
        assert '"content": "7♠ 10♥ 🃏"'.encode() in await response.read()
    assert [m.content async for m in channel.history(limit=1)] == ["7♠ 10♥ 🃏"]


async def test_guilds_time_and_reconnect_through_the_control_api(
    bot: ContractBot, sandbox: Sandbox, http: aiohttp.ClientSession
) -> None:
    status, guild = await call(
        http, "POST", "/guilds", json={"name": "Second", "preferred_locale": "pl"}
    )
    assert status == 201 and guild["name"] == "Second" and guild["preferred_locale"] == "pl"
    await sandbox.driver.wait_until(lambda: len(bot.guilds) == 2)
    polish = bot.get_guild(int(guild["id"]))
    assert polish is not None and polish.preferred_locale.value == "pl"
    _, bob = await call(
        http, "POST", "/users", json={"name": "bob", "guild": "Second", "locale": "da"}
    )
    assert bob["guilds"] == [guild["id"]]
    assert sandbox.world.users[int(bob["id"])].locale == "da"
    _, channel = await call(http, "POST", "/channels", json={"name": "t", "guild": guild["id"]})
    assert channel["guild_id"] == guild["id"]
    second = bot.get_guild(int(guild["id"]))
    assert second is not None
    await sandbox.driver.wait_until(
        lambda: [c.name for c in second.text_channels] == ["general", "t"]
    )

    before = sandbox.world.clock.now()
    assert await call(http, "POST", "/time", json={"advance": 60}) == (200, {"advanced": 60.0})
    assert sandbox.world.clock.now() - before >= 60
    assert await call(http, "POST", "/reconnect") == (200, {"reconnecting": True})
    await asyncio.wait_for(bot.resumed.wait(), 5)


async def test_python_m_bot_without_a_token_plays_in_the_sandbox(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env.update(SANDBOX_PORT="0", DATABASE_PATH=str(tmp_path / "db.sqlite3"), DISCORD_TOKEN="")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        first_line = (await asyncio.wait_for(process.stdout.readline(), 20)).decode()
        url = re.search(r"http://127\.0\.0\.1:\d+", first_line)
        assert url is not None, first_line
        async with aiohttp.ClientSession(base_url=url[0]) as session:
            for _ in range(200):
                async with session.get("/_sandbox/state") as response:
                    state = await response.json()
                if state["bot"]["ready"]:
                    break
                await asyncio.sleep(0.05)
        assert state["bot"]["ready"] and state["bot"]["name"] == "Shithead"
    finally:
        process.terminate()
        await process.wait()
