"""Hints for practice through the sandbox: the host's lobby switch, the Hint button, its answer."""

from __future__ import annotations

from typing import Any

from bot.client import ShitheadBot
from bot.i18n import t
from bot.words import hint_text, refusal
from engine.hints import hint
from sandbox.driver import Driver
from tables.errors import TableError
from tables.model import Table
from tables.outcome import snapshot
from tests.bot.test_play_e2e import (
    bot,
    driver,
    find,
    footer,
    open_table,
    sandbox,
    table_of,
)

__all__ = ["bot", "driver", "sandbox"]

JSON = dict[str, Any]
LANGUAGES = {"ana": "en", "ben": "de"}


async def private_view(driver: Driver, user: str, table: Table, seat: int) -> JSON:
    """Wait for the member's DM view of the table at the seat's current version."""
    mark = t(
        "table {id} · view {version}",
        LANGUAGES[user],
        id=table.id,
        version=table.seats[seat].version,
    )
    message: JSON = await driver.wait_until(
        lambda: next((m for m in reversed(driver.dms(user)) if footer(m) == mark), None),
        timeout=10,
    )
    return message


def changes(table: Table) -> tuple[Any, ...]:
    """What a move would change: the game, the table's and the seats' versions, the log."""
    stored = table.to_json()
    return stored["game"], stored["version"], stored["seats"], stored["log"]


async def forged_click(driver: Driver, user: str, message: JSON, custom_id: str) -> JSON:
    """Click a button the bot did not draw there: a forged one, or one of an older view."""
    shown = driver._message(message["id"])
    button = {"type": 2, "style": 2, "label": "Hint", "custom_id": custom_id}
    shown.components = [*shown.components, {"type": 1, "components": [button]}]
    answer: JSON = await driver.click(user, message["id"], custom_id)
    return answer


async def to_play(bot: ShitheadBot, driver: Driver, *, hints: bool) -> Table:
    """Open a table of ana (the host) and ben, set hints, deal and get both ready."""
    for user, language in LANGUAGES.items():
        await driver.create_user(user, locale=language)
    table_id, lobby = await open_table(driver, "ana", "general", "ben")
    if hints:
        switched = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:hints:1")
        assert switched["status"] == "answered"
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    table = table_of(bot, table_id)
    for seat, user in enumerate(LANGUAGES):
        view = await private_view(driver, user, table, seat)
        ready = find(view, "ready")
        assert ready is not None
        await driver.click(user, view["id"], ready["custom_id"])
    await driver.wait_until(lambda: table.phase == "play", timeout=10)
    return table


async def answer_text(driver: Driver, user: str, answer: dict[str, Any]) -> str:
    """Read an answer's words: at once, or once a slow answer (deferred, "thinking") is sent.

    A hint is searched in the move pool's worker, which a busy machine may keep past the
    moment the bot defers its answer.
    """
    response = answer["response"]
    if response["content"]:
        return str(response["content"])

    def sent() -> bool:
        return bool(driver.message(response["id"], as_user=user)["content"])

    await driver.wait_until(sent, timeout=60)
    return str(driver.message(response["id"], as_user=user)["content"])


async def test_only_the_host_turns_hints_on_in_the_lobby(bot: ShitheadBot, driver: Driver) -> None:
    for user, language in LANGUAGES.items():
        await driver.create_user(user, locale=language)
    table_id, lobby = await open_table(driver, "ana", "general", "ben")
    switch = find(lobby, "hints")
    assert switch is not None and switch["label"] == "Hints: off"
    refused = await driver.click("ben", lobby["id"], f"sh:{table_id}:0:hints:1")
    assert refused["response"]["ephemeral"]
    assert refused["response"]["content"] == t("Only the host can turn hints on or off.", "de")
    assert not table_of(bot, table_id).hints
    switched = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:hints:1")
    assert table_of(bot, table_id).hints
    shown = find(switched["response"], "hints")
    assert shown is not None and shown["label"] == "Hints: on"
    assert shown["custom_id"] == f"sh:{table_id}:0:hints:0"
    # A second click from an old copy of the lobby asks for the same setting: it stays on.
    await forged_click(driver, "ana", lobby, f"sh:{table_id}:0:hints:1")
    assert table_of(bot, table_id).hints
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:hints:0")
    assert not table_of(bot, table_id).hints


async def test_a_hint_is_the_experts_move_said_only_to_the_player_in_their_language(
    bot: ShitheadBot, driver: Driver
) -> None:
    table = await to_play(bot, driver, hints=True)
    game = table.game
    assert game is not None and game.turn is not None
    seat = game.turn
    user, other = list(LANGUAGES)[seat], list(LANGUAGES)[1 - seat]
    mine = await private_view(driver, user, table, seat)
    button = find(mine, "hint")
    assert button is not None and button["label"] == t("Hint", LANGUAGES[user])
    theirs = await private_view(driver, other, table, 1 - seat)
    assert find(theirs, "hint") is None  # only the player to act is offered one
    before = changes(table)
    expected = hint(table.view(seat), table.seed + table.version)
    answer = await driver.click(user, mine["id"], button["custom_id"])
    assert answer["status"] == "answered"
    assert answer["response"]["ephemeral"]
    assert await answer_text(driver, user, answer) == hint_text(expected, LANGUAGES[user])
    assert changes(table) == before  # a hint changes nothing
    assert not [m for m in driver.messages("general") if "💡" in m["content"]]
    # The same hint again once the turn has passed is refused plainly, and says nothing.
    play = find(mine, "sel") or find(mine, "pickup")
    assert play is not None
    if play["custom_id"].split(":")[3] == "sel":
        first = play["options"][0]["value"]
        chosen = await driver.select(user, mine["id"], play["custom_id"], [first])
        play = find(chosen["response"], "play")
        assert play is not None
    moved = await driver.click(user, mine["id"], play["custom_id"])
    assert moved["status"] == "answered"
    stale = await forged_click(driver, user, mine, button["custom_id"])
    assert stale["response"]["ephemeral"]
    content = stale["response"]["content"]
    assert "💡" not in content
    error = TableError("not_your_turn", seat=table.game.turn if table.game else None)
    plain = {
        refusal(error, LANGUAGES[user], snapshot(table)),
        refusal(TableError("stale_view"), LANGUAGES[user]),
    }
    assert content in plain


async def test_with_hints_off_there_is_no_hint_and_a_forged_one_is_refused(
    bot: ShitheadBot, driver: Driver
) -> None:
    table = await to_play(bot, driver, hints=False)
    game = table.game
    assert game is not None and game.turn is not None
    seat = game.turn
    user = list(LANGUAGES)[seat]
    mine = await private_view(driver, user, table, seat)
    assert find(mine, "hint") is None
    before = changes(table)
    version = table.seats[seat].version
    answer = await forged_click(driver, user, mine, f"sh:{table.id}:{version}:hint")
    assert answer["response"]["ephemeral"]
    words = "Hints are off at this table. The host can turn them on in the lobby."
    assert answer["response"]["content"] == t(words, LANGUAGES[user])
    assert changes(table) == before
