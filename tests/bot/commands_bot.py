"""The bot on a fresh database in a sandbox, for tests of the storage-backed commands."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.client import ShitheadBot
from bot.settings import get_settings
from bot.storage import Storage
from sandbox.driver import Driver
from sandbox.server import Sandbox
from sandbox.testing import connected_bot, running_sandbox


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with running_sandbox() as started:
        await started.driver.create_user("mod", moderator=True)
        await started.driver.create_user("ann")
        yield started


@pytest.fixture
async def bot(sandbox: Sandbox, tmp_path: Path) -> AsyncIterator[ShitheadBot]:
    settings = get_settings(
        command_name="shithead", dev_guild_id=None, database_path=tmp_path / "bot.sqlite3"
    )
    async with connected_bot(sandbox, ShitheadBot(settings)) as client:
        yield client


@pytest.fixture
def driver(sandbox: Sandbox, bot: ShitheadBot) -> Driver:
    return sandbox.driver


@pytest.fixture
def storage(bot: ShitheadBot) -> Storage:
    assert bot.storage is not None
    return bot.storage
