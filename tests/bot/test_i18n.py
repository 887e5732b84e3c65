"""The translation function fills values and falls back to English."""

from __future__ import annotations

import discord
import pytest
from discord import app_commands

from bot import i18n
from bot.cogs import stats
from bot.i18n import t
from bot.translator import CatalogTranslator


def test_english_fills_values() -> None:
    assert t("{name} burned the pile", "en", name="Ana") == "Ana burned the pile"


def test_known_locale_translates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(i18n.CATALOGS, "de", {"{name} burned the pile": "{name} räumt ab"})
    assert t("{name} burned the pile", locale="de", name="Ana") == "Ana räumt ab"
    assert t("Pick up", locale="de") == "Pick up"


def test_unknown_locale_falls_back() -> None:
    assert t("Your turn", locale="xx") == "Your turn"


async def test_commands_are_synced_with_the_catalogs_translations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(
        i18n.CATALOGS,
        "de",
        {"Show this server's hall of shame": "Zeigt die Schandtafel", "loss rate": "Verlustquote"},
    )
    client = discord.Client(intents=discord.Intents.none())
    tree = app_commands.CommandTree(client)
    records = stats.Records(storage=None)  # type: ignore[arg-type]
    for each in records.__cog_app_commands__:
        tree.add_command(each)
    translator = CatalogTranslator()
    command = tree.get_command("leaderboard")
    assert command is not None
    payload = await command.get_translated_payload(tree, translator)
    assert payload["description"] == "Show this server's hall of shame"
    assert payload["description_localizations"] == {"de": "Zeigt die Schandtafel"}
    order = next(option for option in payload["options"] if option["name"] == "order")
    rate = next(choice for choice in order["choices"] if choice["value"] == "loss_rate")
    assert rate["name"] == "loss rate" and rate["name_localizations"] == {"de": "Verlustquote"}
    english = app_commands.locale_str("loss rate")
    context: app_commands.TranslationContextTypes = app_commands.TranslationContext(
        app_commands.TranslationContextLocation.other, None
    )
    assert await translator.translate(english, discord.Locale.american_english, context) is None
