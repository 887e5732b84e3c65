"""A slow click on a private view is held: its buttons go until the answer brings them back.

A plain deferral (DEFERRED_UPDATE_MESSAGE) would leave the old buttons up while the click is
carried out, for the member to click a view the turn has already left.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.answers import DEFER_AFTER
from bot.client import ShitheadBot
from bot.i18n import t
from bot.storage import StoredTable
from sandbox.driver import Driver
from sandbox.server import Sandbox
from sandbox.testing import connected_bot, running_sandbox
from tables.model import Table
from tests.bot.test_play_e2e import (
    JSON,
    ROOMY,
    assert_no_client_errors,
    deal_for_two,
    find,
    latest_dm,
    latest_ephemeral,
    make_bot,
    open_table,
    table_of,
)

# The table stays busy this long after a click: long enough that its answer is held first,
# short enough for the answer to come within Discord's deadline.
BUSY_SECONDS = DEFER_AFTER + 0.8
STILL_CARRIED_OUT = "Your last click is still being carried out; this one changed nothing."


Busy = Callable[[str], Awaitable[asyncio.Lock]]


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with running_sandbox(rate_limits=ROOMY) as started:
        yield started


@pytest.fixture
async def bot(sandbox: Sandbox, tmp_path: Path) -> AsyncIterator[ShitheadBot]:
    async with connected_bot(sandbox, make_bot(tmp_path)) as client:
        yield client


@pytest.fixture
def driver(sandbox: Sandbox) -> Driver:
    return sandbox.driver


@pytest.fixture
async def busy_table(bot: ShitheadBot) -> AsyncIterator[Busy]:
    """Hold a table's lock for BUSY_SECONDS from when asked (other work on the table)."""
    releases: list[asyncio.TimerHandle] = []

    async def hold(table_id: str) -> asyncio.Lock:
        lock = bot.tables.lock(table_id)
        await lock.acquire()
        releases.append(asyncio.get_running_loop().call_later(BUSY_SECONDS, lock.release))
        return lock

    yield hold
    for release in releases:
        release.cancel()


def held(answer: JSON, view: JSON) -> None:
    """Assert a click was acknowledged by taking its view's buttons off, the view kept."""
    assert answer["status"] == "answered", answer
    shown = answer["response"]
    assert shown is not None, "deferred, the old buttons left up"
    assert shown["id"] == view["id"] and shown["ephemeral"] == view["ephemeral"]
    assert shown["components"] == []
    assert shown["embeds"] == view["embeds"] and shown["attachments"] == view["attachments"]


async def in_play(bot: ShitheadBot, driver: Driver) -> tuple[Table, str, int, str]:
    """Deal a classic table to Ana and Ben, both ready; give it, its lobby, who acts."""
    await driver.create_user("ana")
    await driver.create_user("ben")
    table_id, lobby = await open_table(driver, "ana", "general", "ben")
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    table = table_of(bot, table_id)
    users = {0: "ana", 1: "ben"}
    for seat, user in users.items():
        message = await latest_dm(driver, user, table, seat)
        ready = find(message, "ready")
        assert ready is not None
        await driver.click(user, message["id"], ready["custom_id"])
    game = table.game
    assert game is not None and game.phase == "play" and game.turn is not None
    return table, lobby["id"], game.turn, users[game.turn]


async def play_offered(driver: Driver, message_id: str, user: str) -> JSON:
    """Wait until a private view offers an enabled Play button again; give the view."""

    def offered() -> JSON | None:
        now = driver.message(message_id, as_user=user)
        play = find(now, "play")
        return now if play is not None and not play.get("disabled") else None

    view: JSON = await driver.wait_until(offered, timeout=10)
    return view


async def test_a_slow_dm_click_is_held_then_answered_with_the_current_buttons(
    bot: ShitheadBot, driver: Driver, busy_table: Busy
) -> None:
    table, _, seat, user = await in_play(bot, driver)
    view = await latest_dm(driver, user, table, seat)
    menu = find(view, "sel")
    assert menu is not None
    await busy_table(table.id)
    answer = await driver.select(user, view["id"], menu["custom_id"], ["0"])
    held(answer, view)
    # Once the table is free the click is carried out and its answer restores the view.
    await play_offered(driver, view["id"], user)
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_a_slow_refused_dm_click_redraws_the_view(
    bot: ShitheadBot, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, table = await deal_for_two(bot, driver, "classic")
    view = await latest_dm(driver, "ana", table, 0)
    ready = find(view, "ready")
    assert ready is not None
    storage = bot.storage
    assert storage is not None

    async def failing(stored: StoredTable) -> None:
        await asyncio.sleep(BUSY_SECONDS)  # a busy disk, then a full one
        raise OSError("no space left on device")

    monkeypatch.setattr(storage, "save_table", failing)
    answer = await driver.click("ana", view["id"], ready["custom_id"])
    held(answer, view)
    refusal = t("That couldn't be saved just now, so nothing changed. Try again in a moment.", "en")
    await driver.wait_until(lambda: any(m["content"] == refusal for m in driver.dms("ana")))
    monkeypatch.undo()
    # Nothing changed, and the view offers its buttons again: Ready, as before.
    assert table.game is not None and not table.game.ready[0]
    again = await driver.wait_until(lambda: find(driver.message(view["id"]), "ready"), timeout=10)
    assert again["custom_id"] == ready["custom_id"]
    await bot.presenter.pacer.idle()
    assert driver.message(view["id"])["components"] == view["components"]


async def test_a_slow_click_on_my_hand_is_held_then_answered_with_the_current_buttons(
    bot: ShitheadBot, driver: Driver, busy_table: Busy
) -> None:
    table, lobby, seat, user = await in_play(bot, driver)
    shown = await driver.click(user, lobby, f"sh:{table.id}:0:hand")
    view = await latest_ephemeral(driver, user, "general", table, seat)
    assert view["id"] == shown["response"]["id"]
    menu = find(view, "sel")
    assert menu is not None
    await busy_table(table.id)
    answer = await driver.select(user, view["id"], menu["custom_id"], ["0"])
    held(answer, view)
    await play_offered(driver, view["id"], user)
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_a_second_click_while_the_first_is_carried_out_is_refused_at_once(
    bot: ShitheadBot, driver: Driver, busy_table: Busy
) -> None:
    table, _, seat, user = await in_play(bot, driver)
    view = await latest_dm(driver, user, table, seat)
    menu = find(view, "sel")
    assert menu is not None
    chosen = await driver.select(user, view["id"], menu["custom_id"], ["0"])
    play = find(chosen["response"], "play")
    assert play is not None and not play.get("disabled")
    game = table.game
    assert game is not None
    moves = game.moves
    lock = await busy_table(table.id)
    answered_while_busy: list[bool] = []

    async def click() -> JSON:
        answer = await driver.click(user, view["id"], play["custom_id"])
        answered_while_busy.append(lock.locked())
        return answer

    first, second = await asyncio.gather(click(), click())
    # The one that came second is refused at once, while the table is still busy.
    carried, refused = sorted(
        [first, second], key=lambda a: a["response"] is not None and a["response"]["ephemeral"]
    )
    assert refused["response"] is not None, "both waited for the table"
    assert refused["response"]["content"] == STILL_CARRIED_OUT
    assert answered_while_busy == [True, True]
    held(carried, chosen["response"])
    await driver.wait_until(lambda: game.moves == moves + 1)
    await bot.presenter.pacer.idle()
    assert game.moves == moves + 1 and game.turn != seat
    assert_no_client_errors(driver)


async def test_a_click_on_the_view_an_answer_drew_is_no_second_click(
    bot: ShitheadBot, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, _, seat, user = await in_play(bot, driver)
    view = await latest_dm(driver, user, table, seat)
    menu = find(view, "sel")
    assert menu is not None
    # A menu choice is answered by `answer_selection` (its components alone).
    answer_selection = bot.presenter.answer_selection
    finishing = asyncio.Event()

    async def slow_to_finish(*args: Any, **kwargs: Any) -> None:
        await answer_selection(*args, **kwargs)
        # The member sees the answer before the bot has heard back that it was sent.
        finishing.set()
        await asyncio.sleep(BUSY_SECONDS)

    monkeypatch.setattr(bot.presenter, "answer_selection", slow_to_finish)
    chosen = await driver.select(user, view["id"], menu["custom_id"], ["0"])
    play = find(chosen["response"], "play")
    assert play is not None and not play.get("disabled")
    await finishing.wait()
    game = table.game
    assert game is not None
    moves = game.moves
    played = await driver.click(user, view["id"], play["custom_id"])
    assert played["status"] == "answered", played
    assert played["response"] is None or not played["response"]["ephemeral"], played
    await driver.wait_until(lambda: game.moves == moves + 1, timeout=10)


async def test_a_slow_click_on_the_table_message_is_deferred_its_buttons_kept(
    bot: ShitheadBot, driver: Driver, busy_table: Busy
) -> None:
    await driver.create_user("ana")
    await driver.create_user("ben")
    table_id, lobby = await open_table(driver, "ana", "general")
    await busy_table(table_id)
    answer = await driver.click("ben", lobby["id"], f"sh:{table_id}:0:join")
    # Everyone's message: only the clicker's own views are held.
    assert answer["status"] == "answered" and answer["response"] is None, answer
    assert driver.message(lobby["id"])["components"] == lobby["components"]
    await driver.wait_until(lambda: table_of(bot, table_id).names == ["ana", "ben"], timeout=10)
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)
