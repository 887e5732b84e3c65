"""Who is still on a table's server: Discord is asked rarely, and a departure is acted on."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import discord

from bot.membership import TRUST_SECONDS, Membership
from tables.intents import Join, Member, Start
from tables.model import Table
from tables.service import TableService
from tests.tables.test_service import ANA, BEN, CID, seated

GUILD = 10  # the guild `seated` opens its tables on


def http_error(status: int, code: int) -> discord.HTTPException:
    """Discord's answer to a member fetch that failed, as discord.py raises it."""
    response = SimpleNamespace(status=status, reason="")
    kind = discord.NotFound if status == 404 else discord.HTTPException
    return kind(response, {"code": code, "message": "refused"})


class Discord:
    """Answers the bot's member fetches: a member unless told otherwise; counts the asks."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, int]] = []
        self.errors: dict[int, discord.HTTPException] = {}
        self.answer = asyncio.Event()
        self.answer.set()

    async def fetch_member(self, guild_id: int, user_id: int) -> object:
        self.asked.append((guild_id, user_id))
        await self.answer.wait()
        if user_id in self.errors:
            raise self.errors[user_id]
        return {"user": {"id": str(user_id)}}


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


async def setup(*members: Member) -> tuple[TableService, Table, Membership, Discord, Clock]:
    service = TableService()
    table = await seated(service, *members)
    discord_, clock = Discord(), Clock()
    return service, table, Membership(service, discord_.fetch_member, clock=clock), discord_, clock


async def test_a_seated_player_is_asked_about_at_most_once_every_few_minutes() -> None:
    _, table, membership, discord_, clock = await setup(ANA, BEN)
    assert not await membership.left(table.id, BEN.user_id)
    clock.now += TRUST_SECONDS - 1
    assert not await membership.left(table.id, BEN.user_id)
    assert discord_.asked == [(GUILD, BEN.user_id)]
    clock.now += 1
    assert not await membership.left(table.id, BEN.user_id)
    assert discord_.asked == [(GUILD, BEN.user_id)] * 2


async def test_clicks_at_once_share_one_question() -> None:
    _, table, membership, discord_, _ = await setup(ANA, BEN)
    discord_.answer.clear()
    clicks = [asyncio.create_task(membership.left(table.id, BEN.user_id)) for _ in range(3)]
    await asyncio.sleep(0.01)
    discord_.answer.set()
    assert await asyncio.gather(*clicks) == [False, False, False]
    assert discord_.asked == [(GUILD, BEN.user_id)]


async def test_a_member_seen_on_the_server_lately_is_not_asked_about() -> None:
    _, table, membership, discord_, clock = await setup(ANA, BEN)
    membership.seen(GUILD, BEN.user_id)
    clock.now += TRUST_SECONDS - 1
    assert not await membership.left(table.id, BEN.user_id)
    assert discord_.asked == []


async def test_a_player_who_left_leaves_the_table_and_is_refused_from_then_on() -> None:
    service, table, membership, discord_, _ = await setup(ANA, BEN, CID)
    await service.submit(table.id, ANA, Start())
    discord_.errors[BEN.user_id] = http_error(404, 10007)
    assert await membership.left(table.id, BEN.user_id)
    assert table.seats[1].removed and table.phase == "over"
    assert table.game is not None and table.game.loser == 1
    assert await membership.left(table.id, BEN.user_id)
    assert discord_.asked == [(GUILD, BEN.user_id)]


async def test_a_departure_heard_of_frees_the_seat_until_the_member_is_back() -> None:
    service, table, membership, discord_, _ = await setup(ANA, BEN)
    await membership.departed(GUILD, BEN.user_id)
    assert table.names == ["Ana"]
    assert await membership.left(table.id, BEN.user_id)
    # Back on the server and seen acting there (he sits down again), Ben plays as anyone.
    membership.seen(GUILD, BEN.user_id)
    await service.submit(table.id, BEN, Join())
    assert not await membership.left(table.id, BEN.user_id)
    assert table.names == ["Ana", "Ben"]
    assert discord_.asked == []


async def test_other_servers_and_members_who_do_not_play_are_left_alone() -> None:
    _, table, membership, discord_, _ = await setup(ANA, BEN)
    await membership.departed(GUILD + 1, BEN.user_id)
    assert table.names == ["Ana", "Ben"]
    assert not await membership.left(table.id, BEN.user_id)
    assert not await membership.left(table.id, CID.user_id)
    assert not await membership.left("no-such-table", BEN.user_id)
    assert discord_.asked == [(GUILD, BEN.user_id)]


async def test_when_discord_cannot_say_the_player_plays_on_and_is_asked_again() -> None:
    _, table, membership, discord_, _ = await setup(ANA, BEN, CID)
    discord_.errors[BEN.user_id] = http_error(503, 0)
    discord_.errors[CID.user_id] = http_error(404, 10004)  # Unknown Guild: not a departure
    for _ in range(2):
        assert not await membership.left(table.id, BEN.user_id)
        assert not await membership.left(table.id, CID.user_id)
    assert table.names == ["Ana", "Ben", "Cid"]
    assert discord_.asked == [(GUILD, BEN.user_id), (GUILD, CID.user_id)] * 2
