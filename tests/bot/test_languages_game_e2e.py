"""A German, a Danish and a Polish member play one game on a German server, nothing configured."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.client import ShitheadBot
from bot.i18n import CATALOGS, t
from engine.rules import make_rules
from sandbox.driver import Driver
from tables.model import Table
from tests.bot.test_play_e2e import (
    bot,
    driver,
    field,
    footer,
    open_table,
    play_out,
    sandbox,
)

__all__ = ["bot", "driver", "sandbox"]

LANGUAGES = {"ana": "de", "bo": "da", "cy": "pl"}
SHOWN_KEYS = ("title", "name", "label", "placeholder", "text", "description")


def shown_texts(payload: Any) -> Iterator[str]:
    """Give every title, name, label, placeholder and text a message shows."""
    if isinstance(payload, dict):
        for key, value in payload.items():
            if key in SHOWN_KEYS and isinstance(value, str):
                yield value
            else:
                yield from shown_texts(value)
    elif isinstance(payload, list):
        for each in payload:
            yield from shown_texts(each)


def english_left(message: dict[str, Any], language: str) -> list[str]:
    """Name a message's texts still in English that the language's catalog translates."""
    english = {
        source
        for source, text in CATALOGS[language].items()
        if text != source and "{" not in source and "\x04" not in source
    }
    shown = [message.get("embeds"), message.get("components")]
    return [text for text in shown_texts(shown) if text in english]


async def test_each_member_plays_in_their_language_and_the_table_speaks_the_servers(
    bot: ShitheadBot, driver: Driver
) -> None:
    driver.guild.locale = "de"
    for user, language in LANGUAGES.items():
        await driver.create_user(user, locale=language)
    table_id, lobby = await open_table(driver, "ana", "general", "bo", "cy")
    await bot.presenter.pacer.idle()
    seated = next(m for m in driver.messages("general") if m["id"] == lobby["id"])
    assert field(seated, t("Seats", "de")) == "1. ana\n2. bo\n3. cy"
    assert not english_left(seated, "de")
    rules = await driver.command("bo", "general", "shithead rules")
    assert rules["response"]["embeds"][0]["title"] == t("Rules: {preset}", "da", preset="classic")
    assert not english_left(rules["response"], "da")
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    seats = {0: "ana", 1: "bo", 2: "cy"}

    async def view(user: str, table: Table, seat: int) -> Any:
        mark = t(
            "table {id} · view {version}",
            LANGUAGES[user],
            id=table.id,
            version=table.seats[seat].version,
        )
        return await driver.wait_until(
            lambda: next((m for m in reversed(driver.dms(user)) if footer(m) == mark), None),
            timeout=10,
        )

    checked: list[str] = []

    def in_their_language() -> None:
        """Check every member's DMs, as they are after a move, speak the member's language."""
        for user, language in LANGUAGES.items():
            prefix = t("table {id} · view {version}", language, id=table_id, version=0)[:-1]
            for message in driver.dms(user):
                title = t("Your cards at table {id}", language, id=table_id)
                assert message["embeds"][0]["title"] == title, user
                assert footer(message).startswith(prefix), (user, footer(message))
                assert not english_left(message, language), (user, english_left(message, language))
                checked.append(footer(message))

    played = await play_out(bot, driver, table_id, seats, view, after_move=in_their_language)
    assert played.game is not None and played.game.over
    assert played.game.rules == make_rules("classic") and played.language == "de"
    await bot.presenter.pacer.idle()
    in_their_language()
    assert len(set(checked)) > 20  # many views of each member were read
    shown = next(m for m in driver.messages("general") if m["id"] == lobby["id"])
    assert field(shown, t("Result", "de")) and not english_left(shown, "de")
