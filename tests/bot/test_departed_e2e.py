"""Members who leave a server leave its tables; their DM clicks no longer act there."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.client import MEMBERS_INTENT_OFF
from bot.membership import TRUST_SECONDS
from sandbox.driver import Driver
from sandbox.server import Sandbox
from sandbox.testing import connected_bot, running_sandbox
from sandbox.world import Member, utcnow_iso
from tests.bot.test_play_e2e import (
    ROOMY,
    assert_no_client_errors,
    find,
    latest_dm,
    log_lines,
    make_bot,
    open_table,
    ready_up,
    table_of,
)

LEFT = "You left this table's server, so you no longer play at it."
MEMBER_ROUTE = "/guilds/{guild_id}/members/{user_id}"


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with running_sandbox(rate_limits=ROOMY) as started:
        yield started


@pytest.fixture
def driver(sandbox: Sandbox) -> Driver:
    return sandbox.driver


def member_checks(driver: Driver) -> list[tuple[str, int, int | None]]:
    """The bot's questions to Discord whether someone is a member: (path, status, code)."""
    return [(e["path"], e["status"], e["code"]) for e in driver.log() if e["route"] == MEMBER_ROUTE]


async def test_a_player_who_leaves_the_server_mid_game_leaves_the_table(
    sandbox: Sandbox, driver: Driver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with connected_bot(sandbox, make_bot(tmp_path)) as bot:
        assert bot.intents.members
        for name in ("ana", "ben", "cid"):
            await driver.create_user(name)
        table_id, lobby = await open_table(driver, "ana", "general", "ben", "cid")
        await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
        table = table_of(bot, table_id)
        for seat, name in enumerate(("ana", "ben", "cid")):
            await ready_up(driver, name, await latest_dm(driver, name, table, seat))
        assert table.game is not None and table.game.phase == "play"
        view = await latest_dm(driver, "cid", table, 2)

        async def held(table_id: str, seat: int) -> bool:
            return False  # no DM is redrawn yet: cid's old view, with its menu, still shows

        monkeypatch.setattr(bot.presenter, "_draw_dm", held)
        await driver.remove_member("cid")
        # The engine's rule for a player who leaves: they are the Shithead, the game ends.
        await driver.wait_until(lambda: table.phase == "over", timeout=10)
        assert table.seats[2].removed and table.game is not None and table.game.loser == 2
        assert "cid left the game" in log_lines(table)
        version = table.version
        # cid's DM view from before the game ended, still showing: a choice in it is refused
        # in words, and nothing changes.
        menu = find(view, "sel")
        assert menu is not None and driver.dms("cid")[-1]["id"] == view["id"]
        refused = await driver.select("cid", view["id"], menu["custom_id"], ["0"])
        assert refused["status"] == "answered"
        assert refused["response"]["content"] == LEFT and refused["response"]["ephemeral"]
        assert table.version == version and table.phase == "over"
        monkeypatch.undo()
        # The bot heard cid leave: it never had to ask Discord.
        assert member_checks(driver) == []
        await bot.presenter.pacer.idle()
        assert_no_client_errors(driver)


async def test_a_member_who_leaves_frees_their_lobby_seat_and_no_other_servers(
    sandbox: Sandbox, driver: Driver, tmp_path: Path
) -> None:
    async with connected_bot(sandbox, make_bot(tmp_path)) as bot:
        for name in ("ana", "ben"):
            await driver.create_user(name)
        cid = int((await driver.create_user("cid"))["id"])
        other = await driver.create_guild("Other")
        for name in ("dan", "eve"):
            await driver.create_user(name, guild="Other")
        # cid is a member of both servers and sits at a table on each.
        second = sandbox.world.guilds[int(other["id"])]
        second.members[cid] = Member(cid, [], utcnow_iso())
        channel = str(second.channel_ids[0])
        here, lobby = await open_table(driver, "ana", "general", "cid", "ben")
        there, other_lobby = await open_table(driver, "dan", channel, "cid", "eve")
        await driver.remove_member("cid")
        await driver.wait_until(lambda: table_of(bot, here).names == ["ana", "ben"], timeout=10)
        assert table_of(bot, there).names == ["dan", "cid", "eve"]
        assert table_of(bot, here).open

        def seats_shown() -> str | None:
            shown = driver.message(lobby["id"])["embeds"][0]["fields"][0]["value"]
            return shown if "cid" not in shown else None

        assert await driver.wait_until(seats_shown, timeout=10) == "1. ana\n2. ben"
        # On the other server cid plays on: the cards are dealt and cid's DM click acts.
        await driver.click("dan", other_lobby["id"], f"sh:{there}:0:start")
        table = table_of(bot, there)
        readied = await ready_up(driver, "cid", await latest_dm(driver, "cid", table, 1))
        assert find(readied["response"], "ready") is None and table.game is not None
        assert table.game.ready[1]
        await bot.presenter.pacer.idle()
        assert_no_client_errors(driver)


async def test_without_the_members_intent_a_departed_players_dm_click_is_refused(
    sandbox: Sandbox, driver: Driver, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    driver.set_intents(members=False)
    with caplog.at_level(logging.WARNING, logger="bot.client"):
        async with connected_bot(sandbox, make_bot(tmp_path)) as bot:
            assert not bot.intents.members
            assert caplog.messages.count(MEMBERS_INTENT_OFF) == 1
            ana, ben = [int((await driver.create_user(name))["id"]) for name in ("ana", "ben")]
            table_id, lobby = await open_table(driver, "ana", "general", "ben")
            await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
            table = table_of(bot, table_id)
            game = table.game
            assert game is not None
            # Both clicked in the channel a moment ago; five minutes on, the bot asks Discord.
            later = time.monotonic() + TRUST_SECONDS
            bot.membership.clock = lambda: later
            view = await latest_dm(driver, "ana", table, 0)
            menu = find(view, "swh")
            assert menu is not None
            chosen = await driver.select("ana", view["id"], menu["custom_id"], ["0"])
            await ready_up(driver, "ana", chosen["response"])
            assert game.ready == [True, False]
            guild = driver.guild.id
            assert member_checks(driver) == [(f"/api/v10/guilds/{guild}/members/{ana}", 200, None)]

            view = await latest_dm(driver, "ben", table, 1)
            await driver.remove_member("ben")
            await bot.presenter.pacer.idle()
            assert not table.seats[1].removed and table.phase == "setup"
            ready = find(view, "ready")
            assert ready is not None
            refused = await driver.click("ben", view["id"], ready["custom_id"])
            assert refused["status"] == "answered"
            assert refused["response"]["content"] == LEFT and refused["response"]["ephemeral"]
            # Ben's Ready did nothing; he left the table as a player who left the server.
            assert game.ready == [True, False]
            assert table.seats[1].removed and table.phase == "over" and game.loser == 1
            assert member_checks(driver)[1:] == [
                (f"/api/v10/guilds/{guild}/members/{ben}", 404, 10007)
            ]
            again = await driver.click("ben", view["id"], ready["custom_id"])
            assert again["response"]["content"] == LEFT
            assert len(member_checks(driver)) == 2
            await bot.presenter.pacer.idle()
            # Besides the question whose answer was Unknown Member, Discord refused nothing.
            refusals = [e for e in driver.log() if e["status"] >= 400]
            assert [e["route"] for e in refusals] == [MEMBER_ROUTE]


async def test_the_host_kicks_a_member_who_left_unheard_of(
    sandbox: Sandbox, driver: Driver, tmp_path: Path
) -> None:
    driver.set_intents(members=False)
    async with connected_bot(sandbox, make_bot(tmp_path)) as bot:
        for name in ("ana", "ben", "cid"):
            await driver.create_user(name)
        table_id, _ = await open_table(driver, "ana", "general", "ben", "cid")
        await driver.remove_member("cid")
        table = table_of(bot, table_id)
        assert table.names == ["ana", "ben", "cid"]
        # The option names a user who is no member any more: Discord resolves no member.
        kicked = await driver.command("ana", "general", "shithead kick", {"member": "cid"})
        assert kicked["response"]["content"] == "cid was removed."
        assert table.names == ["ana", "ben"]
