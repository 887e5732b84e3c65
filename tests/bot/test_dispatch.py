"""Clicks on our components reach their DynamicItem without discord.py parsing their message."""

from __future__ import annotations

import asyncio
import gc
from datetime import UTC, datetime
from typing import Any

import discord
import pytest

from bot.client import ShitheadBot
from bot.dispatch import ClickedMessage, light
from bot.lifecycle import _clicks_in_flight
from sandbox.driver import Driver
from tests.bot.test_play_e2e import act, bot, driver, latest_dm, open_table, sandbox, table_of

__all__ = ["bot", "driver", "sandbox"]


async def ana_and_ben_table(driver: Driver) -> tuple[str, dict[str, Any]]:
    """Make Ana and Ben, and Ana's table in #general with Ben in it: its id and lobby."""
    for name in ("ana", "ben"):
        await driver.create_user(name)
    return await open_table(driver, "ana", "general", "ben")


def test_an_interaction_is_read_without_its_message_content() -> None:
    embeds = [{"title": "Table ab12", "fields": [{"name": "Pile", "value": "7♠"}]}]
    data: dict[str, Any] = {
        "id": "1",
        "type": 3,
        "data": {"custom_id": "sh:ab12:3:play:0", "component_type": 2},
        "message": {"id": "99", "embeds": embeds, "components": [{"type": 1}], "flags": 0},
    }
    trimmed = light(data)
    empty: dict[str, list[Any]] = {"embeds": [], "attachments": [], "components": []}
    assert trimmed["message"] == {"id": "99", "flags": 0, **empty}
    assert trimmed["data"] == data["data"]
    # The gateway's own payload is left as it came.
    assert data["message"]["embeds"] == embeds


def test_a_clicked_message_is_read_for_its_id_channel_and_whom_it_answered() -> None:
    message: dict[str, Any] = {
        "id": "99",
        "channel_id": "7",
        "embeds": [{"title": "Your cards"}],
        "interaction_metadata": {"id": "5", "type": 2, "user": {"id": "42", "username": "ana"}},
    }
    clicked = ClickedMessage.of(message)
    assert (clicked.id, clicked.channel_id) == (99, 7)
    assert clicked.interaction_metadata is not None
    assert clicked.interaction_metadata.user.id == 42
    # A message that answered no interaction (a DM, the table message posted anew).
    never_edited = ClickedMessage.of({"id": "99", "channel_id": "7"})
    assert never_edited.interaction_metadata is None and never_edited.edited_at is None
    # An answer is an edit: two views of one message differ by their last edit.
    edited = ClickedMessage.of({**message, "edited_timestamp": "2026-11-27T04:40:00.123000+00:00"})
    assert edited.edited_at == datetime(2026, 11, 27, 4, 40, 0, 123000, tzinfo=UTC)


async def test_clicks_are_answered_and_redrawn_without_parsing_messages(
    bot: ShitheadBot, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed_embeds: list[int] = []

    def no_view(*args: object, **kwargs: object) -> discord.ui.View:
        raise AssertionError("View.from_message was called for one of our components")

    original = discord.Interaction._from_data
    embed_from_dict = discord.Embed.from_dict.__func__  # type: ignore[attr-defined]
    read_back: list[int] = []

    def read(cls: type[discord.Embed], data: Any) -> discord.Embed:
        read_back.append(1)
        return embed_from_dict(cls, data)  # type: ignore[no-any-return]

    interactions: list[discord.Interaction] = []
    messages_parsed: list[int] = []
    message_init = discord.Message.__init__

    def counted(interaction: discord.Interaction, data: Any) -> None:
        parsed_embeds.append(len(data.get("message", {}).get("embeds", [])))
        interactions.append(interaction)
        original(interaction, data)

    def parsed(message: discord.Message, **kwargs: Any) -> None:
        messages_parsed.append(int(kwargs["data"]["id"]))
        message_init(message, **kwargs)

    table_id, lobby = await ana_and_ben_table(driver)
    started = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    assert started["status"] == "answered"
    await bot.presenter.pacer.idle()  # the first DMs are sent (and read back: their ids)
    monkeypatch.setattr(discord.ui.View, "from_message", classmethod(no_view))
    monkeypatch.setattr(discord.Interaction, "_from_data", counted)
    monkeypatch.setattr(discord.Embed, "from_dict", classmethod(read))
    monkeypatch.setattr(discord.Message, "__init__", parsed)
    table = table_of(bot, table_id)
    names = {0: "ana", 1: "ben"}
    moves = 0
    while moves < 6 and table.phase != "over":
        game = table.game
        assert game is not None
        seat = next(s for s in game.to_act() if s in names)
        message = await latest_dm(driver, names[seat], table, seat)
        before = table.seats[seat].version
        answer = await act(driver, names[seat], message)
        assert answer["status"] == "answered", answer
        assert table.seats[seat].version > before
        moves += 1
    # Each click (a menu and a button for a play) came with a message full of embeds: none
    # of them was parsed.
    assert len(parsed_embeds) >= moves and not any(parsed_embeds)
    # Nor was any message built: each click carried its message's id and channel only.
    clicked = [each.message for each in interactions]
    assert clicked and all(isinstance(each, ClickedMessage) for each in clicked)
    assert messages_parsed == []
    # The answers and the redraws (DMs and the table message, through tokens) read back
    # no message from what Discord returned.
    await bot.presenter.pacer.idle()
    assert read_back == []


async def test_a_click_of_ours_is_noted_at_once_without_an_event_task(
    bot: ShitheadBot, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, locale in (("ana", "en-US"), ("ben", "de")):
        await driver.create_user(name, locale=locale)
    table_id, lobby = await open_table(driver, "ana", "general", "ben")
    events: list[str] = []
    state = bot._connection
    dispatch = state.dispatch

    def counted(event: str, /, *args: Any, **kwargs: Any) -> None:
        events.append(event)
        dispatch(event, *args, **kwargs)

    monkeypatch.setattr(state, "dispatch", counted)
    user = next(u for u in driver.world.users.values() if u.name == "ben")
    bot.presenter.member_locales.pop(user.id, None)
    answer = await driver.click("ben", lobby["id"], f"sh:{table_id}:0:join")
    assert answer["status"] == "answered", answer
    # Ben's click was noted (his language remembered for his private views) as it came in,
    # and discord.py scheduled no `on_interaction` task for it.
    assert bot.presenter.member_locales[user.id] == "de"
    assert "interaction" not in events


async def test_a_click_s_interaction_goes_when_it_is_answered_without_the_collector(
    bot: ShitheadBot, driver: Driver
) -> None:
    table_id, lobby = await ana_and_ben_table(driver)

    def alive() -> int:
        return sum(isinstance(each, discord.Interaction) for each in gc.get_objects())

    gc.collect()
    before = alive()
    gc.disable()
    try:
        for _ in range(5):
            answer = await driver.click("ben", lobby["id"], f"sh:{table_id}:0:join")
            assert answer["status"] == "answered", answer
        await bot.presenter.pacer.idle()
        # Each click's interaction was freed by its reference count once it was answered.
        assert alive() - before <= 1
    finally:
        gc.enable()


async def test_a_click_s_token_is_kept_without_a_webhook_object(
    bot: ShitheadBot, driver: Driver
) -> None:
    table_id, lobby = await ana_and_ben_table(driver)
    answer = await driver.click("ben", lobby["id"], f"sh:{table_id}:0:join")
    assert answer["status"] == "answered", answer
    await bot.presenter.pacer.idle()
    gc.collect()
    # The table message's editor keeps the join's token, and no `discord.Webhook` for it.
    assert bot.presenter.tables[table_id].editor is not None
    assert not any(isinstance(each, discord.Webhook) for each in gc.get_objects())


async def test_a_click_being_answered_is_one_a_stop_waits_for(
    bot: ShitheadBot, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, lobby = await ana_and_ben_table(driver)
    lobby_answer = bot.answers.lobby
    entered, release = asyncio.Event(), asyncio.Event()

    async def held(*args: Any) -> None:
        entered.set()
        await release.wait()
        await lobby_answer(*args)

    monkeypatch.setattr(bot.answers, "lobby", held)
    click = asyncio.create_task(driver.click("ben", lobby["id"], f"sh:{table_id}:0:join"))
    await asyncio.wait_for(entered.wait(), 5)
    # The stop (`bot.lifecycle`) lets the clicks in flight finish: it finds this one.
    assert len(_clicks_in_flight()) == 1
    release.set()
    assert (await click)["status"] == "answered"
