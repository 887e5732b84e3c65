"""When a slow answer is deferred: in time for Discord's deadline, counted from its creation."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.answers import DEFER_AFTER, DEFER_BY, Acknowledged, defer_delay, locale_of, member_of
from bot.i18n import language_of

CREATED = 1_795_000_000.0  # Unix seconds, a whole millisecond as a snowflake holds it


def made_at(when: float) -> int:
    """Return an interaction id (a snowflake) stamped with its creation time."""
    return (round(when * 1000) - discord.utils.DISCORD_EPOCH) << 22


class Made:
    """An interaction as far as the deadline goes: its id, which says when it was created."""

    def __init__(self, when: float) -> None:
        self.id = made_at(when)


def delay_at(age: float) -> float:
    fake: Any = Made(CREATED)
    return defer_delay(fake, CREATED + age)


def test_the_creation_time_is_read_as_discord_py_reads_it() -> None:
    fake: Any = Made(CREATED)
    created = discord.utils.snowflake_time(fake.id).timestamp()
    assert created == CREATED
    assert defer_delay(fake, created + 1.25) == pytest.approx(DEFER_BY - 1.25)


def test_a_fresh_interaction_may_take_the_bots_own_allowance() -> None:
    assert delay_at(0.0) == DEFER_AFTER


def test_an_interaction_that_waited_in_a_queue_is_deferred_sooner() -> None:
    assert delay_at(1.5) == pytest.approx(DEFER_BY - 1.5)
    assert delay_at(1.5) < DEFER_AFTER


def test_an_interaction_near_its_deadline_is_deferred_at_once() -> None:
    assert delay_at(2.5) == 0.0
    assert delay_at(60.0) == 0.0


def test_a_clock_behind_discords_falls_back_to_the_bots_own_allowance() -> None:
    assert delay_at(-5.0) == DEFER_AFTER


class Clicked:
    """An interaction as far as a deferral goes: when it was made, and its hold."""

    def __init__(self, age: float) -> None:
        self.id = made_at(time.time() - age)


async def test_a_quick_answer_starts_no_task_and_is_never_deferred() -> None:
    holds: list[str] = []

    async def hold() -> None:
        holds.append("held")

    fake: Any = Clicked(age=0.0)
    before = len(asyncio.all_tasks())
    async with Acknowledged(fake, edit=True, hold=hold):
        assert len(asyncio.all_tasks()) == before
    await asyncio.sleep(DEFER_AFTER + 0.1)
    assert holds == []


async def test_a_slow_answer_is_deferred_when_due() -> None:
    holds: list[str] = []

    async def hold() -> None:
        holds.append("held")

    fake: Any = Clicked(age=DEFER_BY)  # due at once
    async with Acknowledged(fake, edit=True, hold=hold):
        await asyncio.sleep(0.05)
        assert holds == ["held"]


async def test_a_deferral_under_way_is_seen_through() -> None:
    steps: list[str] = []

    async def hold() -> None:
        steps.append("holding")
        await asyncio.sleep(0.1)
        steps.append("held")

    fake: Any = Clicked(age=DEFER_BY)
    async with Acknowledged(fake, edit=True, hold=hold):
        await asyncio.sleep(0.01)
        assert steps == ["holding"]
    assert steps == ["holding", "held"]


def holding(name: str, holds: list[str]) -> Callable[[], Awaitable[None]]:
    """Make a hold that notes who was held."""

    async def hold() -> None:
        holds.append(name)

    return hold


async def test_answers_coming_and_going_share_one_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    armed: list[float] = []
    call_at = loop.call_at

    def counted(when: float, callback: Any, *args: Any, **kwargs: Any) -> asyncio.TimerHandle:
        armed.append(when)
        return call_at(when, callback, *args, **kwargs)

    monkeypatch.setattr(loop, "call_at", counted)
    holds: list[str] = []
    for n in range(20):
        fake: Any = Clicked(age=0.0)
        async with Acknowledged(fake, edit=True, hold=holding(f"quick {n}", holds)):
            await asyncio.sleep(0)
    assert len(armed) == 1
    await asyncio.sleep(DEFER_AFTER + 0.1)
    assert holds == []


async def test_a_deferral_due_sooner_than_the_timer_is_not_kept_waiting() -> None:
    holds: list[str] = []
    fresh: Any = Clicked(age=0.0)
    late: Any = Clicked(age=DEFER_BY)  # waited in a queue: due at once
    async with Acknowledged(fresh, edit=True, hold=holding("fresh", holds)):
        async with Acknowledged(late, edit=True, hold=holding("late", holds)):
            await asyncio.sleep(0.05)
            assert holds == ["late"]
        await asyncio.sleep(DEFER_AFTER)
        assert holds == ["late", "fresh"]


async def test_an_answer_still_waiting_is_deferred_after_earlier_ones_left() -> None:
    holds: list[str] = []
    first: Any = Clicked(age=0.0)
    async with Acknowledged(first, edit=True, hold=holding("first", holds)):
        await asyncio.sleep(0.2)
    second: Any = Clicked(age=0.0)
    async with Acknowledged(second, edit=True, hold=holding("second", holds)):
        await asyncio.sleep(DEFER_AFTER - 0.1)  # the timer ran for the first, gone
        assert holds == []
        await asyncio.sleep(0.2)
        assert holds == ["second"]


def interaction_with(permissions: int) -> discord.Interaction:
    """Build a click in a server as discord.py reads it, by a member with these permissions."""
    client = discord.Client(intents=discord.Intents(guilds=True))
    state: Any = client._connection
    bot: Any = {"id": "1", "username": "bot", "discriminator": "0", "avatar": None}
    state.user = discord.ClientUser(state=state, data=bot)  # as once logged in
    user = {"id": "42", "username": "ana", "discriminator": "0", "global_name": None}
    user["avatar"] = None
    member: dict[str, Any] = {
        "roles": [],
        "nick": "Annie",
        "joined_at": None,
        "flags": 0,
        "user": user,
    }
    member["permissions"] = str(permissions)
    payload: Any = {
        "id": str(made_at(CREATED)),
        "application_id": "1300000000000000001",
        "type": 3,
        "data": {"custom_id": "sh:ab12:3:play:0", "component_type": 2},
        "token": "token",
        "version": 1,
        "locale": "en-US",
        "entitlements": [],
        "attachment_size_limit": 10_485_760,
        "guild_id": "5",
        "guild_locale": "en-US",
        "member": member,
        "channel": {"id": "7", "type": 0, "guild_id": "5", "name": "general", "position": 0},
    }
    return discord.Interaction(data=payload, state=state)


@pytest.mark.parametrize(
    "permissions",
    [
        0,
        discord.Permissions.manage_guild.flag,
        discord.Permissions.manage_messages.flag,
        discord.Permissions.manage_guild.flag | discord.Permissions.manage_messages.flag,
        discord.Permissions.send_messages.flag | discord.Permissions.kick_members.flag,
    ],
)
async def test_a_member_moderates_with_either_permission(permissions: int) -> None:
    interaction = interaction_with(permissions)
    perms = interaction.permissions
    member = member_of(interaction)
    assert member.moderator == (perms.manage_guild or perms.manage_messages)
    assert (member.user_id, member.name) == (42, "Annie")


def test_a_member_is_answered_in_their_discord_language_every_time() -> None:
    locales = [*discord.Locale, discord.enums.try_enum(discord.Locale, "xx-YY")]
    for _ in range(2):  # the second time from what the first worked out
        for locale in locales:
            fake: Any = SimpleNamespace(locale=locale)
            assert locale_of(fake) == language_of(locale.value)
    assert locale_of(SimpleNamespace(locale=discord.Locale.german)) == "de"  # type: ignore[arg-type]
