"""Many `/shithead create` commands at once, each in its own channel, on a slow disk."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.client import ShitheadBot
from bot.storage import StoredTable
from sandbox.driver import Driver
from sandbox.server import Sandbox
from sandbox.testing import connected_bot, running_sandbox
from tests.bot.test_play_e2e import ROOMY, assert_no_client_errors, make_bot

# Each table write takes this long (a busy disk), and this many tables open at once: one
# after another, the last would be shown after CHANNELS * WRITE_SECONDS.
WRITE_SECONDS = 0.6
CHANNELS = 8
# Every table message is in place this soon after the burst: about one write, with room
# for a busy machine, and well under the CHANNELS writes that waiting in turn would take.
SHOWN_WITHIN = 3.0


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with running_sandbox(rate_limits=ROOMY) as started:
        yield started


@pytest.fixture
async def bot(sandbox: Sandbox, tmp_path: Path) -> AsyncIterator[ShitheadBot]:
    async with connected_bot(sandbox, make_bot(tmp_path)) as client:
        yield client


@pytest.fixture
def slow_writes(bot: ShitheadBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every table write of the bot take WRITE_SECONDS."""
    storage = bot.storage
    assert storage is not None
    write = storage.save_table

    async def slow(table: StoredTable) -> None:
        await asyncio.sleep(WRITE_SECONDS)
        await write(table)

    monkeypatch.setattr(storage, "save_table", slow)


async def test_creates_in_many_channels_at_once_do_not_wait_for_each_others_writes(
    bot: ShitheadBot, sandbox: Sandbox, slow_writes: None
) -> None:
    driver: Driver = sandbox.driver
    channels = [f"burst-{n}" for n in range(CHANNELS)]
    for n, channel in enumerate(channels):
        await driver.create_channel(channel)
        await driver.create_user(f"host{n}")
    began = time.monotonic()
    answers = await asyncio.gather(
        *(
            driver.command(f"host{n}", channel, "shithead create")
            for n, channel in enumerate(channels)
        )
    )
    assert all(answer["status"] == "answered" for answer in answers), answers
    shown_ids = [answer["response"]["id"] for answer in answers]

    def shown() -> bool:
        """Every answer (a deferral's "thinking" filled in, or not) is a table message."""
        messages = [driver.message(message_id) for message_id in shown_ids]
        return all(not m["loading"] and "sh:" in json.dumps(m["components"]) for m in messages)

    await driver.wait_until(shown, timeout=CHANNELS * WRITE_SECONDS + 10)
    assert time.monotonic() - began < SHOWN_WITHIN
    assert len({table.channel_id for table in bot.tables.tables.values()}) == CHANNELS
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_a_second_create_in_a_channel_while_the_first_is_written_is_refused(
    bot: ShitheadBot, sandbox: Sandbox, slow_writes: None
) -> None:
    driver: Driver = sandbox.driver
    ana = int((await driver.create_user("ana"))["id"])
    await driver.create_user("ben")
    first, second = await asyncio.gather(
        driver.command("ana", "general", "shithead create"),
        driver.command("ben", "general", "shithead create"),
    )
    assert first["status"] == second["status"] == "answered"
    assert len(bot.tables.tables) == 1
    (table,) = bot.tables.tables.values()
    assert table.host_id == ana
    assert "already has a table" in json.dumps(second["response"]), second
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)
