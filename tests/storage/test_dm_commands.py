"""Commands typed in a DM reach shard 0's process, whichever process owns the typist's table.

Discord sends a DM's slash commands on shard 0, as it does DM clicks. Unlike a click, a
command names no table: each `/shithead` subcommand looks for the table of the channel it
was typed in (or reads the server's settings), and a DM channel has no table. So the
process that receives it answers it, and its answer cannot depend on which process owns
the typist's table: the test shows both answers are the same and no table changed.
"""

from __future__ import annotations

import json

from bench.postgres import Cluster
from sandbox.driver import Driver
from sandbox.world import DM
from tests.bot.test_play_e2e import JSON, open_table, table_of
from tests.storage.test_two_processes import two_processes

# Every subcommand of /shithead, with the options it needs.
SUBCOMMANDS: list[tuple[str, JSON]] = [
    ("create", {}),
    ("join", {}),
    ("leave", {}),
    ("start", {}),
    ("addbot", {}),
    ("hand", {}),
    ("table", {}),
    ("rules", {}),
    ("kick", {"member": "ben"}),
    ("end", {}),
    ("houserules", {}),
    ("forget-me", {}),
]
# Members of a server on shard 0 (the DM shard's own), at a table of their own.
LOCALS = ("dan", "eve", "fay")


async def dm_channel(driver: Driver, name: str) -> str:
    """Name the DM channel between a member and the bot (once the bot has opened it)."""
    user = next(u for u in driver.world.users.values() if u.name == name)
    channel = await driver.wait_until(
        lambda: next(
            (
                c
                for c in driver.world.channels.values()
                if c.type == DM and c.recipient_id == user.id
            ),
            None,
        )
    )
    return str(channel.id)


async def answer(driver: Driver, name: str, subcommand: str, options: JSON) -> str:
    """Type a subcommand in a member's DM; return what the answer shows, the member left out."""
    channel = await dm_channel(driver, name)
    result = await driver.command(name, channel, f"shithead {subcommand}", options)
    assert result["status"] == "answered", (subcommand, result)
    message: JSON = result["response"]
    if message.get("loading"):  # deferred: wait for the answer to be filled in
        message_id = message["id"]
        await driver.wait_until(lambda: not driver.message(message_id)["loading"])
        message = driver.message(message_id)
    user = next(u for u in driver.world.users.values() if u.name == name)
    shown = {key: message[key] for key in ("content", "embeds", "components", "ephemeral")}
    return json.dumps(shown, sort_keys=True).replace(str(user.id), "<member>")


async def test_every_subcommand_typed_in_a_dm_is_answered_alike_by_either_owner(
    postgres: Cluster,
) -> None:
    async with two_processes(postgres) as run:
        driver, first, owner = run.driver, run.first, run.owner
        # Ana's table is the owner's (shard 1); Dan's is the first process's (shard 0).
        away, away_lobby = await open_table(driver, "ana", run.channel, "ben", "cid")
        for name in LOCALS:
            await driver.create_user(name)
        general = next(
            str(c) for c in driver.guild.channel_ids if driver.world.channels[c].name == "general"
        )
        home, home_lobby = await open_table(driver, "dan", general, "eve", "fay")
        for table_id, lobby, host in ((away, away_lobby, "ana"), (home, home_lobby, "dan")):
            started = await driver.click(host, lobby["id"], f"sh:{table_id}:0:start")
            assert started["status"] == "answered", started
        assert first.tables.find(away) is None and owner.tables.find(home) is None
        tables = {away: table_of(owner, away), home: table_of(first, home)}
        synced = driver.world.find_command("shithead", None)
        assert synced is not None
        assert sorted(o["name"] for o in synced.payload["options"]) == sorted(
            name for name, _ in SUBCOMMANDS
        )
        before = {table_id: table.to_json() for table_id, table in tables.items()}
        for subcommand, options in SUBCOMMANDS:
            ours = await answer(driver, "dan", subcommand, options)
            theirs = await answer(driver, "ana", subcommand, options)
            assert theirs == ours, subcommand
        # The same answers, read or refused: "There is no table in this channel" for the
        # table commands, the default rules for `rules`, a prompt for `forget-me`.
        assert "There is no table in this channel" in await answer(driver, "ana", "hand", {})
        assert "forget:<member>:yes" in await answer(driver, "ana", "forget-me", {})
        # Nothing changed at either table, and neither process took the other's.
        assert {table_id: table.to_json() for table_id, table in tables.items()} == before
        assert first.tables.find(away) is None and owner.tables.find(home) is None
