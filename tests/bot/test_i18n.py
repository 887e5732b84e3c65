"""The translation functions speak the seeds' languages, count right and fall back to English."""

from __future__ import annotations

import gettext
import io
import logging
from importlib import resources
from typing import Any

import discord
import pytest
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po
from discord import app_commands

from bot import i18n
from bot.cogs import stats
from bot.i18n import COMMAND_NAME, language_of, lookup, plural_form, t, tn
from bot.translator import CatalogTranslator, valid_name

PICKED_UP = ("{name} picked up the pile (1 card)", "{name} picked up the pile ({count} cards)")
Location = app_commands.TranslationContextLocation


def picked_up(count: int, locale: str) -> str:
    return tn(*PICKED_UP, count, locale, name="Ana")


def test_english_fills_values() -> None:
    assert t("{name} burned the pile with {card}", "en", name="Ana", card="10♥") == (
        "Ana burned the pile with 10♥"
    )
    assert picked_up(1, "en") == "Ana picked up the pile (1 card)"
    assert picked_up(0, "en") == "Ana picked up the pile (0 cards)"


@pytest.mark.parametrize(
    ("count", "polish"),
    [
        (1, "1 karta"),
        (2, "2 karty"),
        (5, "5 kart"),
        (22, "22 karty"),
        (12, "12 kart"),
        (0, "0 kart"),
    ],
)
def test_polish_counts_cards_in_three_forms(count: int, polish: str) -> None:
    assert picked_up(count, "pl") == f"Ana bierze stos ({polish})"


def test_the_seeds_languages_speak_in_their_own_words() -> None:
    assert picked_up(1, "de") == "Ana nimmt den Stapel auf (1 Karte)"
    assert picked_up(5, "de") == "Ana nimmt den Stapel auf (5 Karten)"
    assert picked_up(3, "da") == "Ana tager bunken op (3 kort)"
    assert picked_up(1, "nl") == "Ana pakt de aflegstapel op (1 kaart)"
    assert picked_up(2, "nl") == "Ana pakt de aflegstapel op (2 kaarten)"
    ranks = ("jack", "queen", "king", "ace", "joker")
    assert [t(rank, "de") for rank in ranks] == ["Bube", "Dame", "König", "Ass", "Joker"]
    assert [t(rank, "da") for rank in ranks] == ["knægt", "dame", "konge", "es", "joker"]
    assert [t(rank, "pl") for rank in ranks] == ["walet", "dama", "król", "as", "joker"]
    assert [t(rank, "nl") for rank in ranks] == ["boer", "vrouw", "heer", "aas", "joker"]
    assert t("{name} is the Shithead!", "de", name="Ana") == "Ana ist der Scheißkopf!"
    assert t("It isn't your turn.", "da") == "Det er ikke din tur."
    assert tn("1 deck", "{count} decks", 5, "pl") == "5 talii"
    assert tn("1 joker a deck", "{count} jokers a deck", 2, "nl") == "2 jokers per kaartspel"


def test_plural_forms_follow_babels_rules() -> None:
    assert [plural_form(n, "pl") for n in (1, 2, 4, 5, 11, 12, 21, 22, 25, 102)] == [
        0, 1, 1, 2, 2, 2, 2, 1, 2, 1,
    ]  # fmt: skip
    for language in ("en", "de", "da", "nl"):
        assert [plural_form(n, language) for n in (0, 1, 2, 21)] == [1, 0, 1, 1]
    assert plural_form(1, "xx") == 0 and plural_form(3, "xx") == 1


# A catalog with what Babel reads in its own way: the header's plural forms on two lines,
# a context, escapes, a fuzzy entry, a plural missing a form, an obsolete entry.
TRICKY_PO = r"""# comment
msgid ""
msgstr ""
"Language: pl\n"
"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || "
"n%100>=20) ? 1 : 2);\n"

#: a.py:1
#, python-brace-format
msgid "{name} said \"hi\""
msgstr "{name} rzekł \"cześć\"\n"
"\tdalej \\ \q"

msgctxt "command name"
msgid "play"
msgstr "graj"

#, fuzzy, python-format
msgid "Draft"
msgstr "Szkic"

msgid "Untranslated"
msgstr ""

msgid "1 card"
msgid_plural "{count} cards"
msgstr[0] "1 karta"
msgstr[1] "{count} karty"
msgstr[2] "{count} kart"

msgid "1 deck"
msgid_plural "{count} decks"
msgstr[0] "1 talia"
msgstr[1] "{count} talie"

#~ msgid "Gone"
#~ msgstr "Nie ma"
"""


def read_as_babel(lines: list[str], language: str) -> tuple[Any, ...]:
    """Load a catalog through Babel's reader, as the bot read them before, and give it back."""
    catalog = read_po(io.BytesIO("\n".join(lines).encode()), locale=language, domain="bot")
    texts: dict[str, str] = {}
    plurals: dict[str, tuple[str, ...]] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple | list):
            forms = tuple(message.string or ())
            if forms and all(forms):
                plurals[message.id[0]] = forms
        elif isinstance(message.string, str) and message.string:
            texts[i18n.key(message.id, message.context)] = message.string
    rule = gettext.c2py(catalog.plural_expr)
    return texts, plurals, [rule(n) for n in range(200)]


@pytest.mark.parametrize("language", ["xx", *i18n.LANGUAGES[1:]])
def test_catalogs_are_read_as_babel_reads_them(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if language == "xx":
        lines = TRICKY_PO.splitlines()
    else:
        path = resources.files("bot.locale") / language / "LC_MESSAGES" / "bot.po"
        lines = path.read_text(encoding="utf-8").splitlines()
    for kept in (i18n.CATALOGS, i18n.PLURALS, i18n.PLURAL_RULES):
        monkeypatch.setitem(kept, language, kept.get(language))
    i18n.load(language, i18n.read_po(iter(lines)))
    rule = i18n.PLURAL_RULES[language]
    ours = (i18n.CATALOGS[language], i18n.PLURALS[language], [rule(n) for n in range(200)])
    assert ours == read_as_babel(lines, language)
    if language == "xx":
        assert ours[0] == {
            '{name} said "hi"': '{name} rzekł "cześć"\n\tdalej \\ \\q',
            "command name\x04play": "graj",
        }
        assert ours[1] == {"1 card": ("1 karta", "{count} karty", "{count} kart")}


def test_english_plurals_are_babels() -> None:
    rule = gettext.c2py(get_plural("en").plural_expr)
    assert [plural_form(n, "en") for n in range(200)] == [rule(n) for n in range(200)]


def test_an_unknown_language_or_message_falls_back_to_english() -> None:
    assert t("It isn't your turn.", "xx") == "It isn't your turn."
    assert t("A message nobody translated, {name}", "de", name="Ana") == (
        "A message nobody translated, Ana"
    )
    assert picked_up(2, "xx") == "Ana picked up the pile (2 cards)"
    assert tn("{count} new thing", "{count} new things", 3, "pl") == "3 new things"
    assert lookup("A message nobody translated", "de") is None


def test_a_missing_or_fuzzy_translation_is_said_in_english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(i18n.CATALOGS, "de", {})
    monkeypatch.setitem(i18n.PLURALS, "de", {})
    assert t("It isn't your turn.", "de") == "It isn't your turn."
    assert picked_up(3, "de") == "Ana picked up the pile (3 cards)"


def test_a_translation_that_loses_a_value_falls_back_to_english(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(i18n.CATALOGS, "de", {"{name} is ready": "{nom} ist bereit"})
    monkeypatch.setitem(i18n.PLURALS, "de", {PICKED_UP[0]: ("{x}", "{x}")})
    with caplog.at_level(logging.ERROR, logger="bot.i18n"):
        assert t("{name} is ready", "de", name="Ana") == "Ana is ready"
        assert picked_up(2, "de") == "Ana picked up the pile (2 cards)"
    assert len(caplog.records) == 2


@pytest.mark.parametrize("translation", ["{0} ist bereit", "{name!x} ist bereit", "{} ist bereit"])
def test_a_translation_with_a_field_it_cannot_fill_falls_back_to_english(
    monkeypatch: pytest.MonkeyPatch, translation: str
) -> None:
    monkeypatch.setitem(i18n.CATALOGS, "de", {"{name} is ready": translation})
    assert t("{name} is ready", "de", name="Ana") == "Ana is ready"


@pytest.mark.parametrize(
    ("discord_locale", "language"),
    [
        ("de", "de"),
        ("da", "da"),
        ("pl", "pl"),
        ("nl", "nl"),
        ("en-US", "en"),
        ("en-GB", "en"),
        ("es-ES", "en"),
        ("es-419", "en"),
        ("pt-BR", "en"),
        ("sv-SE", "en"),
        ("zh-TW", "en"),
        ("no", "en"),
        ("", "en"),
        ("DE", "de"),
        ("nl_BE", "nl"),
    ],
)
def test_discord_locales_map_to_our_five_languages(discord_locale: str, language: str) -> None:
    assert language_of(discord_locale) == language
    assert i18n.LANGUAGES == ("en", "de", "da", "pl", "nl")


def test_every_discord_locale_maps_to_one_of_our_languages() -> None:
    mapped = {locale: language_of(locale.value) for locale in discord.Locale}
    assert set(mapped.values()) == set(i18n.LANGUAGES)
    assert mapped[discord.Locale.german] == "de" and mapped[discord.Locale.dutch] == "nl"
    assert mapped[discord.Locale.danish] == "da" and mapped[discord.Locale.polish] == "pl"


def context(
    location: app_commands.TranslationContextLocation,
) -> app_commands.TranslationContextTypes:
    return app_commands.TranslationContext(location, None)  # type: ignore[call-overload,no-any-return]


async def test_the_translator_gives_names_and_texts_and_none_for_english() -> None:
    translator = CatalogTranslator()
    create = app_commands.locale_str("create")
    name = context(Location.command_name)
    assert await translator.translate(create, discord.Locale.german, name) == "erstellen"
    assert await translator.translate(create, discord.Locale.polish, name) == "utwórz"
    # The same word as a choice or description is a message, not a name.
    start = app_commands.locale_str("Start")
    assert await translator.translate(start, discord.Locale.dutch, context(Location.other)) == (
        "Starten"
    )
    text = app_commands.locale_str("Open a table in this channel")
    description = context(Location.command_description)
    assert await translator.translate(text, discord.Locale.danish, description) == (
        "Opret et bord i denne kanal"
    )
    for english in (discord.Locale.american_english, discord.Locale.british_english):
        assert await translator.translate(text, english, description) is None
    assert await translator.translate(text, discord.Locale.spain_spanish, description) is None
    # The root command is named by the COMMAND_NAME setting and never translated.
    root = app_commands.locale_str("shithead")
    for locale in (discord.Locale.german, discord.Locale.polish):
        assert await translator.translate(root, locale, context(Location.group_name)) is None


async def test_the_translator_refuses_what_discord_would_refuse(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(
        i18n.CATALOGS,
        "de",
        {
            i18n.key("create", COMMAND_NAME): "Tisch Erstellen",
            "Open a table in this channel": "x" * 101,
        },
    )
    translator = CatalogTranslator()
    with caplog.at_level(logging.ERROR, logger="bot.translator"):
        name = context(Location.command_name)
        assert (
            await translator.translate(
                app_commands.locale_str("create"), discord.Locale.german, name
            )
            is None
        )
        description = context(Location.command_description)
        text = app_commands.locale_str("Open a table in this channel")
        assert await translator.translate(text, discord.Locale.german, description) is None
    assert len(caplog.records) == 2


def test_names_follow_discords_rules() -> None:
    assert valid_name("forget-me") and valid_name("zasady-domowe") and valid_name("wartość")
    assert valid_name("bot-hinzufügen") and valid_name("x" * 32)
    assert not valid_name("x" * 33) and not valid_name("") and not valid_name("two words")
    assert not valid_name("Erstellen") and not valid_name("a.b")


async def test_commands_are_synced_with_the_catalogs_translations() -> None:
    client = discord.Client(intents=discord.Intents.none())
    tree = app_commands.CommandTree(client)
    records = stats.Records(storage=None)  # type: ignore[arg-type]
    for each in records.__cog_app_commands__:
        tree.add_command(each)
    command = tree.get_command("leaderboard")
    assert command is not None
    payload = await command.get_translated_payload(tree, CatalogTranslator())
    assert payload["description"] == "Show this server's hall of shame"
    assert payload["description_localizations"] == {
        "de": "Schandtafel dieses Servers anzeigen",
        "da": "Vis skammens hal for denne server",
        "pl": "Pokaż galerię wstydu tego serwera",
        "nl": "Toon de schandpaal van deze server",
    }
    order = next(option for option in payload["options"] if option["name"] == "order")
    rate = next(choice for choice in order["choices"] if choice["value"] == "loss_rate")
    assert rate["name"] == "loss rate"
    assert rate["name_localizations"]["de"] == "Verlustquote"
    assert rate["name_localizations"]["pl"] == "odsetek porażek"
