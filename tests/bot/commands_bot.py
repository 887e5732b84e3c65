"""The bot with only the storage-backed commands, on an in-memory database, for sandbox tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from discord import app_commands

from bot.client import ShitheadBot
from bot.cogs import houserules, stats
from bot.settings import get_settings
from bot.storage import Storage
from sandbox.driver import Driver
from sandbox.testing import connected_bot, running_sandbox


class CommandsBot(ShitheadBot):
    """`/houserules`, `/leaderboard`, `/stats` and the root's `houserules` and `forget-me`."""

    def __init__(self, storage: Storage) -> None:
        super().__init__(get_settings(command_name="shithead", dev_guild_id=None))
        self.storage = storage

    async def setup_hook(self) -> None:
        """Add the commands and sync them."""
        root = app_commands.Group(name="shithead", description="Shithead")
        await houserules.setup(self, self.storage)
        await stats.setup(self, self.storage)
        houserules.register_root(root, self.storage)
        stats.register_root(root, self.storage)
        self.tree.add_command(root)
        await self.tree.sync()


@pytest.fixture
async def storage() -> AsyncIterator[Storage]:
    opened = await Storage.open(":memory:")
    yield opened
    await opened.close()


@pytest.fixture
async def driver(storage: Storage) -> AsyncIterator[Driver]:
    async with running_sandbox() as sandbox, connected_bot(sandbox, CommandsBot(storage)):
        await sandbox.driver.create_user("mod", moderator=True)
        await sandbox.driver.create_user("ann")
        yield sandbox.driver
