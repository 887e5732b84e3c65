"""The sandbox notes when the bot's first answer to an interaction reached it, late or not."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sandbox.server import Sandbox
from sandbox.testing import connected_bot, running_sandbox
from tests.sandbox.contract_bot import SLOW_SECONDS, ContractBot


@pytest.fixture
async def short_deadline() -> AsyncIterator[Sandbox]:
    async with running_sandbox(interaction_deadline=SLOW_SECONDS / 2) as sandbox:
        yield sandbox


async def test_a_timely_answer_is_timed_from_the_interactions_arrival(
    short_deadline: Sandbox,
) -> None:
    driver = short_deadline.driver
    async with connected_bot(short_deadline, ContractBot()):
        await driver.create_user("alice")
        result = await driver.command("alice", "general", "shithead secret")
    interaction = short_deadline.world.interactions[int(result["id"])]
    assert result["status"] == "answered"
    assert interaction.acknowledged
    assert interaction.answered_at is not None
    assert 0 <= interaction.answered_at - interaction.created_at < SLOW_SECONDS / 2


async def test_a_late_answer_is_timed_but_not_acknowledged(short_deadline: Sandbox) -> None:
    driver = short_deadline.driver
    async with connected_bot(short_deadline, ContractBot()) as bot:
        await driver.create_user("alice")
        result = await driver.command("alice", "general", "shithead slow")
        interaction = short_deadline.world.interactions[int(result["id"])]
        assert interaction.answered_at is None  # the bot is still thinking
        await driver.wait_until(lambda: bot.errors)
    assert result["status"] == "timeout"
    assert not interaction.acknowledged
    assert interaction.answered_at is not None
    assert interaction.answered_at - interaction.created_at >= SLOW_SECONDS
