"""Run the bot: `python -m bot`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys

from bot.logs import setup_logging
from bot.settings import Settings, SettingsError, get_settings

log = logging.getLogger("bot")

SANDBOX_HELP = """\
No DISCORD_TOKEN is set, so the bot runs against the local sandbox (a stand-in for
Discord on this machine; see docs/sandbox.md). Play by acting as users:

  curl -s -XPOST {url}/_sandbox/users -d '{{"name": "alice"}}'
  curl -s -XPOST {url}/_sandbox/interactions \\
    -d '{{"type": "command", "user": "alice", "channel": "general", "name": "{command} create"}}'
  curl -s '{url}/_sandbox/channels/general/messages?as=alice'
  curl -s {url}/_sandbox/state

To play on Discord instead:
  1. Create an application at https://discord.com/developers/applications
  2. Under "Bot", reset and copy the token.
  3. Put it in .env as DISCORD_TOKEN=... (see .env.example) and run `make run` again.
"""


async def run_in_sandbox(settings: Settings) -> None:
    """Start the sandbox and the bot in this process; stop both when cancelled."""
    from bot.client import ShitheadBot, use_discord_at
    from sandbox.__main__ import describe
    from sandbox.server import Sandbox

    sandbox = Sandbox(host=settings.sandbox_host, port=settings.sandbox_port)
    await sandbox.start()
    use_discord_at(sandbox.api_base, sandbox.gateway_url)
    print(describe(sandbox))
    print(SANDBOX_HELP.format(url=sandbox.url, command=settings.command_name), flush=True)
    try:
        async with ShitheadBot(settings) as bot:
            await bot.start(sandbox.token)
    finally:
        await sandbox.stop()


def main() -> int:
    """Read settings, set up logging, then connect to Discord or explain what is missing."""
    try:
        settings = get_settings()
    except SettingsError as exc:
        print(exc, file=sys.stderr)
        return 2
    setup_logging(settings.log_level)
    if not settings.has_token:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run_in_sandbox(settings))
        return 0
    from bot.client import run_bot

    run_bot(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
