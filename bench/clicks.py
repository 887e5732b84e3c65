"""What a click costs the bot on its way in: the gateway's event to its item's callback.

    python -m bench.clicks [--clicks 2000] [--repeat 15]

Builds three clicks as the sandbox sends them (`sandbox.factory.interaction`): a Play
button and a menu choice on a private view in a DM, and Join on a lobby message in a
server's channel, each on a message with an embed and rows of components. Each is handed
`--clicks` times to the bot's parser of interactions (`bot.dispatch.ClickDispatch`), on a
discord.py state that knows the server (as after its GUILD_CREATE), and each click's task
runs up to its item's callback, which is left out: what is timed is parsing the click, its
task, and making its item. Times are this process's CPU time (`time.process_time`) per
click, the best of `--repeat` rounds; the collector is set as the bot sets it. The last
line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

import discord

from bot.components import DYNAMIC_ITEMS
from bot.dispatch import ClickDispatch, Factory
from bot.lifecycle import tune_collector
from sandbox import factory
from sandbox.api import COMPONENT
from sandbox.world import Channel, Message, World, utcnow_iso

BUTTON, MENU = 2, 3
EMBED = {
    "title": "Table ab12 · your cards",
    "description": "Your turn. Pile: 7♠ (3 cards). Stock: 31 cards.",
    "color": 0x2F7D32,
    "fields": [{"name": "Hand", "value": "3♣ 5♦ 9♥ J♠ K♦", "inline": False}] * 3,
    "footer": {"text": "table ab12 · view 3"},
}


def _row(custom_ids: list[str]) -> dict[str, Any]:
    """Say a row of buttons as Discord sends it back."""
    buttons = [{"type": BUTTON, "style": 2, "label": "Play", "custom_id": c} for c in custom_ids]
    return {"type": 1, "components": buttons}


def clicks(world: World) -> dict[str, dict[str, Any]]:
    """Make the three clicks' INTERACTION_CREATE payloads."""
    guild = world.add_guild("bench")
    ana = world.add_user("ana", dms_open=True, guild=guild, moderator=False, locale="de")
    dm, general = world.dm_channel(ana), world.channels[guild.channel_ids[0]]

    def click(channel: Channel, custom_id: str, kind: int, **more: Any) -> dict[str, Any]:
        rows = [_row([f"sh:ab12:3:play:{i}" for i in range(5)])] * 3
        message = Message(world.new_id(), channel.id, world.bot.id, "", [EMBED], rows, 0, "")
        message.timestamp = message.edited_timestamp = utcnow_iso()
        world.messages[message.id] = message
        data = {"custom_id": custom_id, "component_type": kind, **more}
        made = world.new_interaction(
            type=COMPONENT, user_id=ana.id, channel=channel, data=data, message_id=message.id
        )
        return factory.interaction(world, made)

    return {
        "dm_button": click(dm, "sh:ab12:3:play:0", BUTTON),
        "dm_menu": click(dm, "sh:ab12:3:sel:0", MENU, values=["1"]),
        "server_button": click(general, "sh:ab12:0:join", BUTTON),
    }


def uncalled(kind: Factory, reached: list[str]) -> Factory:
    """Make a component kind whose callback notes the click alone: the way to it is timed."""

    async def callback(self: Any, interaction: discord.Interaction) -> None:
        reached.append(kind.__name__)

    template = kind.__discord_ui_compiled_template__
    return type(kind.__name__, (kind,), {"callback": callback}, template=template)


async def measure(count: int, repeat: int) -> tuple[dict[str, float], dict[str, int]]:
    """Time each click's way in (microseconds of CPU a click); count the callbacks reached."""
    world = World()
    payloads = clicks(world)
    client = discord.Client(intents=discord.Intents(guilds=True, members=True))
    state: Any = client._connection
    state.user = discord.ClientUser(state=state, data=factory.user(world.bot))  # type: ignore[arg-type]
    for guild in world.guilds.values():
        state._add_guild_from_data(factory.guild(world, guild))
    reached: list[str] = []
    kinds = [uncalled(kind, reached) for kind in DYNAMIC_ITEMS]
    dispatch = ClickDispatch(state, kinds, lambda _: None)
    dispatch.install({"INTERACTION_CREATE": lambda _: None})
    tune_collector()
    figures: dict[str, float] = {}
    callbacks: dict[str, int] = {}
    for name, payload in payloads.items():
        reached.clear()
        best = float("inf")
        for _ in range(repeat):
            start = time.process_time()
            for _ in range(count):
                dispatch.received(payload)
                await asyncio.sleep(0)  # the click's task runs up to its callback
            best = min(best, (time.process_time() - start) / count)
        figures[name] = round(best * 1e6, 2)
        callbacks[name] = len(reached)
    return figures, callbacks


def main(argv: list[str] | None = None) -> int:
    """Time the clicks' way in and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=2000, help="clicks a round (2000)")
    parser.add_argument("--repeat", type=int, default=15, help="rounds; the best counts (15)")
    args = parser.parse_args(argv)
    figures, callbacks = asyncio.run(measure(args.clicks, args.repeat))
    for name, micros in figures.items():
        print(f"{name}: {micros:.2f} us of CPU per click, gateway event to callback")
    summary = {"clicks": args.clicks, "repeat": args.repeat, "us_per_click": figures}
    print(json.dumps({**summary, "callbacks": callbacks}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
