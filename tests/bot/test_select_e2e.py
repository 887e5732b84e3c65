"""A menu choice is answered with the view's components alone; Discord keeps the rest."""

from __future__ import annotations

from typing import Any

import pytest

from bot.client import ShitheadBot
from sandbox.api import UPDATE_MESSAGE, BotApi
from sandbox.driver import Driver
from tables.errors import TableError
from tests.bot.test_play_e2e import (
    JSON,
    assert_no_client_errors,
    bot,
    driver,
    find,
    latest_dm,
    latest_ephemeral,
    open_table,
    sandbox,
    table_of,
)

# The fixtures come from the play tests.
__all__ = ["bot", "driver", "sandbox"]


@pytest.fixture
def updates(monkeypatch: pytest.MonkeyPatch) -> list[JSON]:
    """Record the data of every UPDATE_MESSAGE callback the bot sends."""
    sent: list[JSON] = []
    callback = BotApi.callback

    def spy(api: BotApi, interaction_id: int, token: str, body: JSON, files: Any = None) -> JSON:
        if body.get("type") == UPDATE_MESSAGE:
            sent.append(dict(body.get("data") or {}))
        return callback(api, interaction_id, token, body, files)

    monkeypatch.setattr(BotApi, "callback", spy)
    return sent


async def dealt(bot: ShitheadBot, driver: Driver) -> tuple[str, int, str]:
    """Ana and Ben sit down and are ready: give the table, the seat to play and its member."""
    for name in ("ana", "ben"):
        await driver.create_user(name)
    table_id, lobby = await open_table(driver, "ana", "general", "ben")
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    table = table_of(bot, table_id)
    for seat, user in ((0, "ana"), (1, "ben")):
        message = await latest_dm(driver, user, table, seat)
        ready = find(message, "ready")
        assert ready is not None
        await driver.click(user, message["id"], ready["custom_id"])
    assert table.game is not None and table.game.turn is not None
    turn = table.game.turn
    return table_id, turn, ("ana", "ben")[turn]


def choose(driver: Driver, message: JSON) -> tuple[str, str]:
    menu = find(message, "sel")
    assert menu is not None
    return menu["custom_id"], menu["options"][0]["value"]


async def test_a_menu_choice_sends_components_only_and_the_dm_keeps_its_embed(
    bot: ShitheadBot, driver: Driver, updates: list[JSON]
) -> None:
    table_id, turn, user = await dealt(bot, driver)
    table = table_of(bot, table_id)
    message = await latest_dm(driver, user, table, turn)
    custom_id, value = choose(driver, message)
    updates.clear()
    chosen = await driver.select(user, message["id"], custom_id, [value])
    assert chosen["status"] == "answered"
    assert [sorted(data) for data in updates] == [["components", "tts"]]
    shown = driver.message(message["id"], as_user=user)
    assert shown["embeds"] == message["embeds"]
    play = find(shown, "play")
    assert play is not None and not play.get("disabled")
    # The view's record stays right: the play's answer and the redraws after it are whole.
    version = table.seats[turn].version
    await driver.click(user, message["id"], play["custom_id"])
    assert table.seats[turn].version > version
    after = await latest_dm(driver, user, table, turn)
    assert after["id"] == message["id"] and after["embeds"] != message["embeds"]
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_a_menu_choice_on_an_ephemeral_view_keeps_its_embed(
    bot: ShitheadBot, driver: Driver, updates: list[JSON]
) -> None:
    table_id, turn, user = await dealt(bot, driver)
    table = table_of(bot, table_id)
    lobby_id = str(bot.presenter.table_message(table_id))
    await driver.click(user, lobby_id, f"sh:{table_id}:0:hand")
    message = await latest_ephemeral(driver, user, "general", table, turn)
    custom_id, value = choose(driver, message)
    updates.clear()
    await driver.select(user, message["id"], custom_id, [value])
    assert [sorted(data) for data in updates] == [["components", "tts"]]
    shown = driver.message(message["id"], as_user=user)
    assert shown["embeds"] == message["embeds"]
    play = find(shown, "play")
    assert play is not None and not play.get("disabled")
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_a_click_lets_its_view_s_writes_go_however_it_ends(
    bot: ShitheadBot, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, turn, user = await dealt(bot, driver)
    table = table_of(bot, table_id)
    held = bot.presenter.tables[table_id]
    message = await latest_dm(driver, user, table, turn)
    custom_id, value = choose(driver, message)
    answered = await driver.select(user, message["id"], custom_id, [value])
    assert answered["status"] == "answered" and held.answering == set()

    # Refused by the core.
    async def refused(*args: Any, **kwargs: Any) -> None:
        raise TableError("stale_view")

    with monkeypatch.context() as patched:
        patched.setattr(bot.tables, "submit", refused)
        await driver.select(user, message["id"], custom_id, [value])
    assert held.answering == set()

    # Failed on our side: the member is told, the view's writes go again, and its redraw
    # (queued as they go) brings it back.
    async def failing(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("drawing failed")

    monkeypatch.setattr(bot.presenter, "answer_selection", failing)
    redraws: list[int] = []
    queue = bot.presenter._queue_private

    def queued(state: Any, seat: int) -> None:
        redraws.append(seat)
        queue(state, seat)

    monkeypatch.setattr(bot.presenter, "_queue_private", queued)
    await driver.select(user, message["id"], custom_id, [value])
    assert held.answering == set() and redraws == [turn]
    await bot.presenter.pacer.idle()
