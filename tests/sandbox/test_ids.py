"""Snowflakes carry their creation time, as Discord's do: a bot reads an interaction's age."""

from __future__ import annotations

import time

import discord

from sandbox.world import World


async def test_ids_increase_and_say_when_they_were_made() -> None:
    world = World()
    before = discord.utils.utcnow()
    ids = [world.new_id() for _ in range(1000)]
    assert ids == sorted(set(ids))
    made = discord.utils.snowflake_time(ids[-1])
    assert abs((made - before).total_seconds()) < 1.0
    time.sleep(0.05)
    later = world.new_id()
    assert (discord.utils.snowflake_time(later) - made).total_seconds() >= 0.04
