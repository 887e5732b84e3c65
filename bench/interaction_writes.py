"""What a click's answer and a redraw through its token cost the bot in CPU, per call.

    python -m bench.interaction_writes [--calls 2000] [--rounds 3]

Against a sandbox run in a process of its own (its CPU is not counted), sends `--calls`
UPDATE_MESSAGE callbacks (a click answered by editing its message) and as many edits of
their tokens' `@original`, each the size of a private view (an embed of six fields, a menu
of ten cards and four buttons, no pictures), one after another, three ways: through
discord.py's webhook adapter, as `bot.edits` sent them before; through `bot.rest` on the
aiohttp session, as it sent them before; and through `bot.rest` on its own keep-alive
connections (`bot.http1`), as the bot sends them now. It prints µs of CPU of the sending
process per call, each way (taking turns going first), the median over rounds; the last
line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any, NamedTuple

import aiohttp
import discord
from discord.http import Route, handle_message_parameters
from discord.webhook.async_ import async_context, interaction_message_response_params

from bot.client import use_discord_at
from bot.rest import UPDATE_MESSAGE, Rest, message_body, rest
from sandbox.api import BotApi
from sandbox.server import Sandbox

# Discord's interaction type of a component, and a button's component type.
COMPONENT = 3
BUTTON = 2


class Click(NamedTuple):
    """An interaction waiting for its answer: its id and token."""

    id: int
    token: str


Send = Callable[[aiohttp.ClientSession, Click, dict[str, Any]], Awaitable[None]]


def private_view() -> dict[str, Any]:
    """Draw a message the size of a private view, as edit keywords."""
    embed = discord.Embed(title="Table ab12 · your cards", description="Your turn: beat 7♠.")
    for name in ("Hand", "Face up", "Face down", "Pile", "Stock", "Last moves"):
        embed.add_field(name=name, value="7♠ 8♥ 9♦ 10♣ J♠ Q♥ K♦", inline=False)
    view = discord.ui.View(timeout=None)
    options = [
        discord.SelectOption(label=f"{rank}♠", value=str(i)) for i, rank in enumerate("A23456789T")
    ]
    view.add_item(discord.ui.Select(custom_id="sh:ab12:1:pick", options=options, max_values=4))
    for action in ("play", "pickup", "flip", "table"):
        view.add_item(discord.ui.Button(label=action.title(), custom_id=f"sh:ab12:1:{action}"))
    return {"embeds": [embed], "view": view}


async def adapter_update(
    session: aiohttp.ClientSession, interaction: Click, kwargs: dict[str, Any]
) -> None:
    """Answer a click through discord.py's webhook adapter (as `bot.edits` did)."""
    params = interaction_message_response_params(type=UPDATE_MESSAGE, **kwargs)
    route = Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=interaction.id,
        webhook_token=interaction.token,
    )
    await async_context.get().request(
        route, session=session, payload=params.payload, multipart=params.multipart
    )


async def adapter_edit(
    session: aiohttp.ClientSession, interaction: Click, kwargs: dict[str, Any]
) -> None:
    """Edit a token's `@original` through discord.py's webhook adapter (as `bot.edits` did)."""
    with handle_message_parameters(**kwargs) as params:
        await async_context.get().edit_webhook_message(
            APPLICATION_ID,
            interaction.token,
            "@original",  # type: ignore[arg-type]
            session=session,
            payload=params.payload,
            multipart=params.multipart,
            files=params.files,
            with_components=bool(kwargs.get("view")),
        )


def rest_ways(writer: Rest) -> tuple[Send, Send]:
    """Answer a click, and edit a token's `@original`, through a `Rest`."""

    async def update(
        session: aiohttp.ClientSession, interaction: Click, kwargs: dict[str, Any]
    ) -> None:
        data, files = message_body(**kwargs)
        await writer.callback(
            session, interaction.id, interaction.token, UPDATE_MESSAGE, data, files
        )

    async def edit(
        session: aiohttp.ClientSession, interaction: Click, kwargs: dict[str, Any]
    ) -> None:
        data, files = message_body(**kwargs)
        await writer.edit_original(session, APPLICATION_ID, interaction.token, data, files)

    return update, edit


# `bot.rest` on the aiohttp session, as before `bot.http1`.
on_aiohttp = Rest(lean=False)
WAYS: dict[str, tuple[Send, Send]] = {
    "discord.py": (adapter_update, adapter_edit),
    "aiohttp": rest_ways(on_aiohttp),
    "bot.rest": rest_ways(rest),
}
APPLICATION_ID = 0  # the sandbox's, once it runs


async def serve(conn: Connection) -> None:
    """Serve a sandbox with the bot's message on it; make clicks on it when asked, until None."""
    # Clicks are made a round ahead: none may expire before its answer is sent.
    sandbox = Sandbox(interaction_deadline=3600.0)
    await sandbox.start()
    world = sandbox.world
    user = await sandbox.driver.create_user("bench")
    channel = next(iter(world.channels.values()))
    message = BotApi(world).create_message(channel.id, {"content": "a view"}, [])
    conn.send((sandbox.api_base, sandbox.gateway_url, world.application_id))
    data = {"custom_id": "sh:ab12:1:play", "component_type": BUTTON}
    loop = asyncio.get_running_loop()
    while (count := await loop.run_in_executor(None, conn.recv)) is not None:
        made = [
            world.new_interaction(
                type=COMPONENT,
                user_id=int(user["id"]),
                channel=channel,
                data=data,
                message_id=int(message["id"]),
            )
            for _ in range(count)
        ]
        conn.send([Click(each.id, each.token) for each in made])
    await sandbox.stop()


def run_sandbox(conn: Connection) -> None:
    """The sandbox process."""
    asyncio.run(serve(conn))


class SandboxProcess:
    """A sandbox in a process of its own, making clicks (nobody hears them) when asked."""

    def __init__(self) -> None:
        self.conn, self._child = multiprocessing.Pipe()
        self.process = multiprocessing.get_context("spawn").Process(
            target=run_sandbox, args=(self._child,), daemon=True
        )

    def start(self) -> tuple[str, str, int]:
        """Start the sandbox; return its REST base, gateway URL and application id."""
        self.process.start()
        # Only the sandbox holds its end now: if it dies, `recv` here fails instead of waiting.
        self._child.close()
        api_base, gateway_url, application_id = self.conn.recv()
        return api_base, gateway_url, application_id

    def clicks(self, count: int) -> list[Click]:
        """Make `count` clicks on the bot's message."""
        self.conn.send(count)
        clicks: list[Click] = self.conn.recv()
        return clicks

    def stop(self) -> None:
        """Stop the sandbox and wait for its process."""
        self.conn.send(None)
        self.process.join()


@contextmanager
def running_sandbox() -> Iterator[SandboxProcess]:
    """Run a sandbox in a process and point discord.py at it."""
    global APPLICATION_ID
    served = SandboxProcess()
    api_base, gateway_url, APPLICATION_ID = served.start()
    use_discord_at(api_base, gateway_url)
    try:
        yield served
    finally:
        served.stop()


async def timed(
    session: aiohttp.ClientSession, send: Send, clicks: list[Click], kwargs: dict[str, Any]
) -> float:
    """Send one call per click, one after another; return µs of this process's CPU per call."""
    began = time.process_time()
    for click in clicks:
        await send(session, click, kwargs)
    return (time.process_time() - began) / len(clicks) * 1e6


async def measure(served: SandboxProcess, calls: int, rounds: int) -> dict[str, Any]:
    """Time both ways' callbacks and edits, round after round; return the medians."""
    kwargs = private_view()
    figures: dict[str, dict[str, list[float]]] = {way: {"callback": [], "edit": []} for way in WAYS}
    async with aiohttp.ClientSession() as session:
        # A few calls first, so that both ways find the connection and the code warm.
        for update, edit in WAYS.values():
            for click in served.clicks(5):
                await update(session, click, kwargs)
                await edit(session, click, kwargs)
        for round_ in range(rounds):
            # Every other round the other way goes first: neither always finds the sandbox fresher.
            ways = list(WAYS.items())
            for way, (update, edit) in ways[:: 1 if round_ % 2 == 0 else -1]:
                clicks = served.clicks(calls)
                figures[way]["callback"].append(await timed(session, update, clicks, kwargs))
                figures[way]["edit"].append(await timed(session, edit, clicks, kwargs))
    await rest.close()
    return {
        f"{way}_{kind}_us": round(statistics.median(values), 1)
        for way, kinds in figures.items()
        for kind, values in kinds.items()
    }


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m bench.interaction_writes", description=__doc__)
    parser.add_argument("--calls", type=int, default=2000, help="calls of each kind a round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with running_sandbox() as served:
        figures = asyncio.run(measure(served, args.calls, args.rounds))
    for way in WAYS:
        print(
            f"{way:>10}: {figures[f'{way}_callback_us']:7.1f} µs CPU a callback, "
            f"{figures[f'{way}_edit_us']:7.1f} µs an edit of @original"
        )
    print(json.dumps({"calls": args.calls, "rounds": args.rounds, **figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
