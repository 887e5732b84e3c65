"""Clicks on our components reach their DynamicItem without discord.py parsing their message."""

from __future__ import annotations

import asyncio
import gc
import logging
import re
from datetime import UTC, datetime
from typing import Any, ClassVar, cast

import aiohttp
import discord
import pytest

from bot.client import GatewaySocket, ShitheadBot
from bot.dispatch import Click, ClickDispatch, ClickedMessage, light
from bot.lifecycle import _clicks_in_flight
from sandbox.driver import Driver
from sandbox.server import Sandbox
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
    def no_view(*args: object, **kwargs: object) -> discord.ui.View:
        raise AssertionError("View.from_message was called for one of our components")

    original = Click._from_data
    embed_from_dict = discord.Embed.from_dict.__func__  # type: ignore[attr-defined]
    read_back: list[int] = []

    def read(cls: type[discord.Embed], data: Any) -> discord.Embed:
        read_back.append(1)
        return embed_from_dict(cls, data)  # type: ignore[no-any-return]

    interactions: list[discord.Interaction] = []
    messages_parsed: list[int] = []
    message_init = discord.Message.__init__

    def counted(interaction: Click, data: Any) -> None:
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
    monkeypatch.setattr(Click, "_from_data", counted)
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
    # Each click (a menu and a button for a play) came with a message full of embeds: no
    # message was built, each click carried its message's id and channel only.
    clicked = [each.message for each in interactions]
    assert len(clicked) >= moves and all(isinstance(each, ClickedMessage) for each in clicked)
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


async def test_a_frame_s_type_is_dispatched_only_when_something_waits_for_it(
    bot: ShitheadBot, driver: Driver, caplog: pytest.LogCaptureFixture
) -> None:
    table_id, lobby = await ana_and_ben_table(driver)
    caplog.set_level(logging.DEBUG, logger="discord.client")
    answer = await driver.click("ben", lobby["id"], f"sh:{table_id}:0:join")
    assert answer["status"] == "answered", answer
    # Nothing of the bot's reads a gateway frame's type: discord.py's dispatch was skipped.
    dispatched = [each.getMessage() for each in caplog.records]
    assert "Dispatching event socket_event_type" not in dispatched
    heard: list[str] = []

    async def listener(event: str) -> None:
        heard.append(event)

    bot.add_listener(listener, "on_socket_event_type")
    waited = asyncio.ensure_future(bot.wait_for("socket_event_type"))
    answer = await driver.click("ben", lobby["id"], f"sh:{table_id}:0:leave")
    assert answer["status"] == "answered", answer
    assert await asyncio.wait_for(waited, 5) == "INTERACTION_CREATE"
    await asyncio.sleep(0)
    assert "INTERACTION_CREATE" in heard


async def test_the_gateway_s_frames_are_received_under_one_timer(
    bot: ShitheadBot, driver: Driver
) -> None:
    table_id, lobby = await ana_and_ben_table(driver)
    assert bot.ws is not None
    socket = bot.ws.socket
    assert type(socket) is GatewaySocket
    watch = socket._watch
    assert watch is not None
    answer = await driver.click("ben", lobby["id"], f"sh:{table_id}:0:join")
    assert answer["status"] == "answered", answer
    # The click's frames were received under the socket's one timer, none made per frame.
    assert socket._watch is watch and not watch.cancelled()


async def test_a_gateway_receive_fails_once_silent_for_its_timeout(sandbox: Sandbox) -> None:
    loop = asyncio.get_running_loop()
    async with (
        aiohttp.ClientSession(ws_response_class=GatewaySocket) as session,
        session.ws_connect(sandbox.gateway_url) as socket,
    ):
        assert isinstance(socket, GatewaySocket)
        hello = await socket.receive(timeout=0.2)
        assert hello.type is aiohttp.WSMsgType.TEXT
        await asyncio.sleep(0.15)
        # Nothing comes before IDENTIFY: the wait fails 0.2 s after it began, not before.
        began = loop.time()
        with pytest.raises(TimeoutError):
            await socket.receive(timeout=0.2)
        assert 0.2 <= loop.time() - began < 1.0


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


async def test_a_click_from_a_dm_is_answered_without_building_its_channel(
    bot: ShitheadBot, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, lobby = await ana_and_ben_table(driver)
    started = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    assert started["status"] == "answered"
    await bot.presenter.pacer.idle()
    built: list[int] = []
    dm_channel_init = discord.DMChannel.__init__

    def counted(channel: discord.DMChannel, **kwargs: Any) -> None:
        built.append(int(kwargs["data"]["id"]))
        dm_channel_init(channel, **kwargs)

    monkeypatch.setattr(discord.DMChannel, "__init__", counted)
    table = table_of(bot, table_id)
    game = table.game
    assert game is not None
    seat = next(iter(game.to_act()))
    name = ("ana", "ben")[seat]
    before = table.seats[seat].version
    answer = await act(driver, name, await latest_dm(driver, name, table, seat))
    assert answer["status"] == "answered", answer
    assert table.seats[seat].version > before
    # The click's channel (a DM, with its recipient) was not built: its id is all it read.
    assert built == []


def _user(user_id: int, name: str) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "global_name": name.title(),
        "discriminator": "0",
        "avatar": None,
    }


def _click_payload(*, in_dm: bool) -> dict[str, Any]:
    """A click's payload as the gateway gives it, from a DM or from a server's channel."""
    payload: dict[str, Any] = {
        "id": "1300000000000000123",
        "application_id": "1300000000000000001",
        "type": 3,
        "data": {"custom_id": "sh:ab12:3:play:0", "component_type": 2},
        "token": "token",
        "version": 1,
        "locale": "de",
        "entitlements": [],
        "authorizing_integration_owners": {"0": "5"},
        "attachment_size_limit": 10_485_760,
        "context": 1 if in_dm else 0,
        "message": {"id": "99", "channel_id": "7", "embeds": [{"title": "Your cards"}]},
    }
    if in_dm:
        recipient = _user(42, "ana")
        payload["channel"] = {"id": "7", "type": 1, "recipients": [recipient]}
        payload["user"] = recipient
        payload["app_permissions"] = "1024"
        return payload
    channel = {"id": "7", "type": 0, "guild_id": "5", "name": "general", "position": 0}
    member: dict[str, Any] = {"roles": [], "nick": "Annie", "joined_at": None, "flags": 0}
    member["permissions"] = "8224"
    payload |= {"channel": channel, "guild_id": "5", "guild": {"id": "5", "locale": "pl"}}
    payload |= {"guild_locale": "pl", "member": {**member, "user": _user(42, "ana")}}
    payload["app_permissions"] = "2048"
    return payload


@pytest.mark.parametrize("in_dm", [True, False])
async def test_a_click_reads_as_discord_py_reads_the_interaction(in_dm: bool) -> None:
    client = discord.Client(intents=discord.Intents(guilds=True))
    state: Any = client._connection
    me: Any = _user(1, "bot")
    state.user = discord.ClientUser(state=state, data=me)  # as once logged in
    payload: Any = _click_payload(in_dm=in_dm)
    full = discord.Interaction(data=payload, state=state)
    click = Click(data=payload, state=state)
    read = [
        ("id", "type", "data", "token", "version", "guild_id", "application_id"),
        ("locale", "guild_locale", "permissions", "app_permissions", "created_at", "channel_id"),
        ("entitlement_sku_ids", "entitlements", "filesize_limit"),
    ]
    for name in (each for names in read for each in names):
        assert getattr(click, name) == getattr(full, name), name
    assert type(click.user) is type(full.user)
    assert (click.user.id, click.user.display_name) == (full.user.id, full.user.display_name)
    assert click._integration_owners == full._integration_owners == {0: 5}
    assert repr(click.context) == repr(full.context)
    # Its channel is built as discord.py builds it, once it is asked for.
    assert type(click.channel) is type(full.channel)
    assert click.channel is not None and click.channel.id == 7
    assert isinstance(click.message, ClickedMessage) and click.message.id == 99


async def test_a_click_keeps_no_part_of_its_message_s_payload() -> None:
    client = discord.Client(intents=discord.Intents(guilds=True))
    state: Any = client._connection
    me: Any = _user(1, "bot")
    state.user = discord.ClientUser(state=state, data=me)
    payload: Any = _click_payload(in_dm=True)
    click = Click(data=payload, state=state)
    # A click waits for its table with its payload: the message (its embeds and components,
    # most of the payload) is read at once and not kept.
    assert isinstance(click.message, ClickedMessage) and click.message.id == 99
    assert "message" not in click._payload
    assert click.channel is not None and click.channel.id == 7


async def test_a_click_s_response_is_made_with_it_and_made_again_once_let_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = discord.Client(intents=discord.Intents(guilds=True))
    state: Any = client._connection
    me: Any = _user(1, "bot")
    state.user = discord.ClientUser(state=state, data=me)
    cached: list[str] = []
    made_late = discord.utils.CachedSlotProperty.__get__

    def noted(self: Any, instance: Any, owner: Any) -> Any:
        cached.append(self.name)
        return made_late(self, instance, owner)

    monkeypatch.setattr(discord.utils.CachedSlotProperty, "__get__", noted)
    payload: Any = _click_payload(in_dm=True)
    click = Click(data=payload, state=state)
    response = click.response
    # Read as a plain attribute: not made on first read by raising and catching.
    assert "_cs_response" not in cached
    assert isinstance(response, discord.InteractionResponse) and not response.is_done()
    assert click.response is response and response._parent is click
    # Let go of once answered (`ClickDispatch.run`), asked for again: a new one.
    del click.response
    again = click.response
    assert again is not response and again._parent is click and not again.is_done()


async def test_a_click_s_item_wraps_no_button_or_menu_built_for_it(
    bot: ShitheadBot, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, lobby = await ana_and_ben_table(driver)
    built: list[str] = []

    def no_item(self: discord.ui.Item[Any], *args: Any, **kwargs: Any) -> None:
        built.append(type(self).__name__)

    monkeypatch.setattr(discord.ui.Button, "__init__", no_item)
    monkeypatch.setattr(discord.ui.Select, "__init__", no_item)
    answer = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    assert answer["status"] == "answered", answer
    # The game started: Ana's click's item was made from its custom_id alone.
    assert table_of(bot, table_id).game is not None
    assert built == []


class _Recorded:
    """A DynamicItem kind whose items note each click they run for."""

    __discord_ui_compiled_template__ = re.compile(r"sh:(?P<table>[a-z0-9]+):.*")
    ran: ClassVar[list[int]] = []

    @classmethod
    async def from_custom_id(cls, interaction: Any, item: Any, match: Any) -> _Recorded:
        return cls()

    async def interaction_check(self, interaction: Any) -> bool:
        return True

    async def callback(self, interaction: Any) -> None:
        self.ran.append(interaction.id)


async def test_a_click_s_task_is_held_until_its_item_has_run() -> None:
    client = discord.Client(intents=discord.Intents(guilds=True))
    state: Any = client._connection
    me: Any = _user(1, "bot")
    state.user = discord.ClientUser(state=state, data=me)
    noticed: list[discord.Interaction] = []
    clicks = ClickDispatch(state, [cast(Any, _Recorded)], noticed.append)
    clicks.install({"INTERACTION_CREATE": lambda data: None})
    clicks.received(_click_payload(in_dm=True))
    (task,) = clicks._tasks
    assert task.get_name() == "discord-ui-dynamic-item-_Recorded"
    await task
    # The item ran, and its task was let go as it ended.
    assert _Recorded.ran == [1300000000000000123] and len(noticed) == 1
    assert clicks._tasks == set()
