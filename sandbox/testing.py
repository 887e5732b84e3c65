"""Test helpers: a sandbox on a free port, and a real discord.py bot connected to it.

    async with running_sandbox() as sandbox, connected_bot(sandbox, MyBot()) as bot:
        alice = await sandbox.driver.create_user("alice")
        result = await sandbox.driver.command(alice["id"], "general", "shithead create")

discord.py's REST base and gateway URL are process-wide, so run one sandbox at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, TypeVar

import discord

from bot.client import use_discord_at
from sandbox.server import Sandbox

ClientT = TypeVar("ClientT", bound=discord.Client)

# How long on_ready waits after the last GUILD_CREATE; discord.py's default is 2 s.
TEST_GUILD_READY_TIMEOUT = 0.05


@contextlib.asynccontextmanager
async def running_sandbox(**options: Any) -> AsyncIterator[Sandbox]:
    """Start a sandbox on 127.0.0.1 and a free port, and point discord.py at it.

    `options` go to `Sandbox` (token, guild_name, interaction_deadline, rate_limits).
    """
    sandbox = Sandbox(host="127.0.0.1", port=0, **options)
    await sandbox.start()
    use_discord_at(sandbox.api_base, sandbox.gateway_url)
    try:
        yield sandbox
    finally:
        await sandbox.stop()


@contextlib.asynccontextmanager
async def connected_bot(
    sandbox: Sandbox, client: ClientT, *, timeout: float = 10.0
) -> AsyncIterator[ClientT]:
    """Log a client in to the sandbox and yield it once `on_ready` fired; close it after."""
    # The constructor option is not reachable through ShitheadBot's signature.
    client._connection.guild_ready_timeout = TEST_GUILD_READY_TIMEOUT
    task = asyncio.create_task(client.start(sandbox.token))
    ready = asyncio.create_task(client.wait_until_ready())
    try:
        done, _ = await asyncio.wait(
            {task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if task in done:
            task.result()  # raises why the client stopped
            raise RuntimeError("the client stopped before it was ready")
        if ready not in done:
            raise TimeoutError(f"the client was not ready within {timeout} s")
        yield client
    finally:
        ready.cancel()
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            await task
