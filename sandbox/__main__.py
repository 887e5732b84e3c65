"""Run the sandbox alone: `python -m sandbox [--host H] [--port P] [--token T]`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging

from sandbox.server import Sandbox


def describe(sandbox: Sandbox) -> str:
    """Return where the sandbox listens and how to point a bot at it."""
    return (
        f"Sandbox Discord listening on {sandbox.url}\n"
        f"  REST base (discord.http.Route.BASE): {sandbox.api_base}\n"
        f"  gateway (DiscordWebSocket.DEFAULT_GATEWAY): {sandbox.gateway_url}\n"
        f"  bot token: {sandbox.token}\n"
        f"  control API: {sandbox.url}/_sandbox/state (see docs/sandbox.md)"
    )


async def serve(sandbox: Sandbox) -> None:
    """Start the sandbox, print its addresses and run until cancelled."""
    await sandbox.start()
    print(describe(sandbox), flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await sandbox.stop()


def main() -> None:
    """Parse the command line and serve."""
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0 takes any free port")
    parser.add_argument("--token", default="sandbox-token")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(Sandbox(host=args.host, port=args.port, token=args.token)))


if __name__ == "__main__":
    main()
