"""Every rule the sandbox enforces answers with Discord's status, code and shape."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord.http import Route

from sandbox.driver import Driver
from sandbox.rules import RateLimit
from sandbox.server import Sandbox
from sandbox.testing import connected_bot, running_sandbox
from sandbox.world import INTERACTION_DEADLINE, TOKEN_LIFETIME
from tests.sandbox.contract_bot import SLOW_SECONDS, ContractBot

MESSAGES = "POST /channels/{channel_id}/messages"


def button(custom_id: str) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": "B", "custom_id": custom_id}


def row(*items: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(items)}


def select(options: int) -> dict[str, Any]:
    choices = [{"label": str(n), "value": str(n)} for n in range(options)]
    return {"type": 3, "custom_id": "s", "options": choices}


def embed(**fields: Any) -> dict[str, Any]:
    return {"type": "rich", **fields}


@pytest.mark.parametrize(
    ("body", "status", "code", "text"),
    [
        ({"content": "x" * 2001}, 400, 50035, "content: Must be 2000 or fewer"),
        ({"embeds": [embed(title="t")] * 11}, 400, 50035, "embeds: Must be 10 or fewer"),
        (
            {"embeds": [embed(description="d" * 4000), embed(description="d" * 2001)]},
            400,
            50035,
            "maximum size of 6000",
        ),
        ({"embeds": [embed(title="t" * 257)]}, 400, 50035, "embeds.0.title"),
        ({"components": [row(button(f"b{n}")) for n in range(6)]}, 400, 50035, "5 or fewer"),
        (
            {"components": [row(*(button(f"b{n}") for n in range(6)))]},
            400,
            50035,
            "components.0.components: Must be 5 or fewer",
        ),
        ({"components": [row(select(26))]}, 400, 50035, "options: Must be 25 or fewer"),
        ({"components": [row(button("x" * 101))]}, 400, 50035, "custom_id: Must be 100"),
        (
            {"components": [row(button("a")), row(button("a"))]},
            400,
            50035,
            "custom id cannot be duplicated",
        ),
        ({"content": ""}, 400, 50006, "Cannot send an empty message"),
    ],
)
async def test_message_limits(
    bot: ContractBot, driver: Driver, body: dict[str, Any], status: int, code: int, text: str
) -> None:
    channel_id = driver.guild.channel_ids[0]
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)
    with pytest.raises(discord.HTTPException) as refused:
        await bot.http.request(route, json=body)
    assert (refused.value.status, refused.value.code) == (status, code)
    assert text in refused.value.text
    assert driver.messages(channel_id) == []
    assert (driver.log()[-1]["status"], driver.log()[-1]["code"]) == (status, code)


async def test_the_limits_at_their_edge_pass(bot: ContractBot, driver: Driver) -> None:
    channel_id = driver.guild.channel_ids[0]
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)
    rows = [row(*(button(f"b{r}{n}") for n in range(5))) for r in range(4)] + [row(select(25))]
    body = {"content": "x" * 2000, "components": rows, "embeds": [embed(title="t")] * 10}
    await bot.http.request(route, json=body)
    assert len(driver.messages(channel_id)[0]["components"]) == 5


async def test_a_refused_first_answer_fails_the_interaction(
    bot: ContractBot, driver: Driver
) -> None:
    await driver.create_user("alice")
    result = await driver.command("alice", "general", "shithead shout", {"length": 2001})
    assert result["status"] == "failed"
    assert result["error"] == {"code": 50035, "message": "Invalid Form Body"}


async def test_a_second_first_answer_is_40060(bot: ContractBot, driver: Driver) -> None:
    await driver.create_user("alice")
    result = await driver.command("alice", "general", "shithead twice")
    assert result["response"]["content"] == "first"
    await driver.wait_until(lambda: bot.errors)
    assert [(e.status, e.code) for e in bot.errors] == [(400, 40060)]


async def test_interaction_tokens_expire_after_15_minutes(bot: ContractBot, driver: Driver) -> None:
    await driver.create_user("alice")
    await driver.command("alice", "general", "shithead secret")
    interaction = bot.interactions[-1]
    await interaction.followup.send("still in time")
    driver.advance_time(TOKEN_LIFETIME + 1)
    with pytest.raises(discord.HTTPException) as refused:
        await interaction.followup.send("too late")
    assert (refused.value.status, refused.value.code) == (401, 50027)
    contents = [m["content"] for m in driver.messages("general", as_user="alice")]
    assert contents == ["your hand", "still in time"]


def test_discord_deadline_is_three_seconds() -> None:
    assert INTERACTION_DEADLINE == 3.0


@pytest.fixture
async def short_deadline() -> AsyncIterator[Sandbox]:
    async with running_sandbox(interaction_deadline=SLOW_SECONDS / 2) as sandbox:
        yield sandbox


async def test_an_answer_after_the_deadline_is_10062(short_deadline: Sandbox) -> None:
    driver = short_deadline.driver
    async with connected_bot(short_deadline, ContractBot()) as bot:
        await driver.create_user("alice")
        started = time.monotonic()
        result = await driver.command("alice", "general", "shithead slow")
        waited = time.monotonic() - started
        assert result == {"id": result["id"], "status": "timeout", "error": None, "response": None}
        assert SLOW_SECONDS / 2 <= waited < SLOW_SECONDS
        await driver.wait_until(lambda: bot.errors)
    assert [(e.status, e.code) for e in bot.errors] == [(404, 10062)]
    assert driver.messages("general") == []


@pytest.fixture
async def tight_limits() -> AsyncIterator[Sandbox]:
    async with running_sandbox(rate_limits={MESSAGES: RateLimit(limit=2, per=0.4)}) as sandbox:
        yield sandbox


async def test_a_429_is_well_formed(tight_limits: Sandbox) -> None:
    channel_id = tight_limits.driver.guild.channel_ids[0]
    url = f"{tight_limits.api_base}/channels/{channel_id}/messages"
    headers = {"Authorization": f"Bot {tight_limits.token}"}
    async with aiohttp.ClientSession(headers=headers) as session:
        answers = []
        for n in range(3):
            async with session.post(url, json={"content": str(n)}) as response:
                answers.append((response.status, dict(response.headers), await response.json()))
    (ok, first, _), (_, second, _), (limited, third, body) = answers
    assert ok == 200 and first["X-RateLimit-Remaining"] == "1"
    assert second["X-RateLimit-Remaining"] == "0"
    assert float(second["X-RateLimit-Reset-After"]) <= 0.4
    assert limited == 429
    assert third["Via"] and third["Content-Type"] == "application/json"
    assert 0 < body["retry_after"] <= 0.4 and body["global"] is False
    assert [m["content"] for m in tight_limits.driver.messages(channel_id)] == ["0", "1"]


async def test_discord_py_waits_out_the_limit(tight_limits: Sandbox) -> None:
    driver = tight_limits.driver
    channel_id = driver.guild.channel_ids[0]
    async with connected_bot(tight_limits, ContractBot()) as bot:
        channel = bot.get_channel(channel_id)
        assert isinstance(channel, discord.TextChannel)
        # Another client spends the bucket, so discord.py meets a 429 it did not foresee.
        url = f"{tight_limits.api_base}/channels/{channel_id}/messages"
        headers = {"Authorization": f"Bot {tight_limits.token}"}
        async with aiohttp.ClientSession(headers=headers) as session:
            for n in range(2):
                async with session.post(url, json={"content": f"other {n}"}):
                    pass
        for n in range(3):
            await channel.send(f"bot {n}")
    statuses = [
        e["status"] for e in driver.log() if e["route"] == "/channels/{channel_id}/messages"
    ]
    assert 429 in statuses
    contents = [m["content"] for m in driver.messages(channel_id)]
    assert contents == ["other 0", "other 1", "bot 0", "bot 1", "bot 2"]


async def test_an_edit_is_held_to_the_same_limits(bot: ContractBot, driver: Driver) -> None:
    channel_id = driver.guild.channel_ids[0]
    posted = await bot.http.request(
        Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id),
        json={"content": "kept"},
    )
    route = Route(
        "PATCH",
        "/channels/{channel_id}/messages/{message_id}",
        channel_id=channel_id,
        message_id=posted["id"],
    )
    for body, code in [({"content": "x" * 2001}, 50035), ({"content": ""}, 50006)]:
        with pytest.raises(discord.HTTPException) as refused:
            await bot.http.request(route, json=body)
        assert (refused.value.status, refused.value.code) == (400, code)
    assert [(m["content"], m["edited"]) for m in driver.messages(channel_id)] == [("kept", False)]
