"""The catalogs hold every message of the code, translated whole, and fit Discord's limits."""

from __future__ import annotations

import logging
import random
import re
import string
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import discord
import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po
from discord import app_commands

from bot import i18n
from bot.cogs import houserules, stats, tables
from bot.cogs.houserules import rules_embed as house_rules_embed
from bot.guild_settings import (
    SETTING_NAMES,
    GuildSettings,
    SettingError,
    allowed_values,
    kind_of,
    with_preset,
    with_value,
)
from bot.locale.extract import NAME_CONTEXT, Found, Project
from bot.rendering import (
    play_option,
    private_title,
    private_words,
    render_private,
    render_table,
)
from bot.rulebook import rules_embed, setting_choice
from bot.translator import CatalogTranslator, valid_name
from bot.words import note_text, play_label, refusal, rules_summary
from engine.actions import Play
from engine.errors import ErrorCode
from engine.game import Game
from engine.legal import legal_actions
from engine.rules import make_rules, preset_names
from engine.views import player_view
from tables.errors import TableError
from tables.model import Seat, Table
from tables.notes import Note, notes_of
from tables.outcome import snapshot
from tests.bot.test_rulebook import ODD_RULES

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "bot" / "locale"
TRANSLATED = tuple(language for language in i18n.LANGUAGES if language != i18n.DEFAULT_LOCALE)
FORMS = {"de": 2, "da": 2, "pl": 3, "nl": 2}
KEYWORDS = frozenset({"t", "tn", "locale_str", "command_name"})
MessageId = tuple[str | None, str | tuple[str, ...]]


def read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as po:
        return read_po(po, locale=locale)


@cache
def template() -> Catalog:
    return read(LOCALE / "bot.pot")


@cache
def catalog(language: str) -> Catalog:
    return read(LOCALE / language / "LC_MESSAGES" / "bot.po", language)


def message_id(message: Message) -> MessageId:
    ident = message.id
    return message.context, tuple(ident) if isinstance(ident, tuple | list) else str(ident)


def found_id(found: Found) -> MessageId:
    if found.keyword == "command_name":
        return found.messages[0], found.messages[1]
    if len(found.messages) > 1:
        return None, found.messages
    return None, found.messages[0]


@cache
def code_messages() -> tuple[frozenset[MessageId], tuple[str, ...]]:
    found, problems = Project(ROOT).messages(KEYWORDS)
    return frozenset(found_id(each) for each in found), tuple(problems)


def template_ids() -> set[MessageId]:
    return {message_id(message) for message in template() if message.id}


# ---------------------------------------------------------------------- the template


def test_the_extractor_follows_every_message_to_its_text() -> None:
    _, problems = code_messages()
    assert problems == ()


def test_every_message_the_code_uses_is_in_the_template() -> None:
    used, _ = code_messages()
    missing = sorted(map(str, used - template_ids()))
    assert not missing, "run `make messages` and translate the new messages:\n" + "\n".join(missing)


def test_the_template_holds_only_messages_the_code_uses() -> None:
    used, _ = code_messages()
    stale = sorted(map(str, template_ids() - used))
    assert not stale, "run `make messages`: the code no longer uses\n" + "\n".join(stale)


def test_texts_handed_to_t_through_names_are_found() -> None:
    used, _ = code_messages()
    handed = {
        (None, "burns"),  # POWER_WORDS[word]
        (None, "the direction of play reversed"),  # simple[code]
        (None, "you can't pick up the pile now"),  # words[ErrorCode(code)]
        (None, "Only the host can start the game."),  # words[code]
        (None, "stacking"),  # for wanted, text in extras
        (None, "last 30 days"),  # PERIOD_NAMES[period], and locale_str in the choices
        (None, "loss rate"),  # ORDER_NAMES[order]
        (None, "You sit at table {id}."),  # DONE[verb] through Answers.done(text, ...)
        (None, "Open a table in a server channel."),  # Answers.done("...")
        (None, "These house rules don't work: {error}"),  # text = "..."; done(text, ...)
        (None, "expert"),  # locale_str(level) for level in COMPUTER_LEVELS
        (NAME_CONTEXT, "forget-me"),  # app_commands.command(name=...)
        (NAME_CONTEXT, "difficulty"),  # a command's parameter
    }
    assert handed <= used


def write(root: Path, name: str, text: str) -> None:
    path = root / "bot" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_extractor_follows_names_and_refuses_what_it_cannot_follow(tmp_path: Path) -> None:
    write(tmp_path, "__init__.py", "")
    write(tmp_path, "levels.py", 'LEVELS = ("easy", "hard")\n')
    write(
        tmp_path,
        "words.py",
        "from bot.levels import LEVELS\n"
        'WORDS = {"a": "one", "b": "two"}\n'
        "def say(code, locale):\n"
        "    pairs = [(code == 1, 'first'), (code == 2, 'second')]\n"
        "    shown = [t(text, locale) for wanted, text in pairs if wanted]\n"
        "    names = [locale_str(level) for level in LEVELS]\n"
        "    return t(WORDS[code] if code else 'nothing', locale), shown, names\n"
        "def done(self, text, locale):\n"
        "    return t(text, locale)\n"
        "def use(x):\n"
        "    done(x, 'Handed over', 'en')\n"
        "    return tn('1 card', '{count} cards', 3, 'en')\n",
    )
    found, problems = Project(tmp_path, ("bot",)).messages(KEYWORDS)
    assert problems == []
    assert {found_id(each) for each in found} == {
        (None, "one"),
        (None, "two"),
        (None, "nothing"),
        (None, "first"),
        (None, "second"),
        (None, "easy"),
        (None, "hard"),
        (None, "Handed over"),
        (None, ("1 card", "{count} cards")),
    }
    write(
        tmp_path,
        "bad.py",
        "def f(x, locale):\n"
        "    t(f'{x} cards', locale)\n"
        "    t(x.text, locale)\n"
        "    tn(x, 'many', 2, locale)\n"
        "    t(unknown, locale)\n",
    )
    _, problems = Project(tmp_path, ("bot",)).messages(KEYWORDS)
    assert [problem.split(": ", 1)[0].rsplit("/", 1)[-1] for problem in problems] == [
        "bad.py:2",
        "bad.py:3",
        "bad.py:4",
        "bad.py:5",
    ]


# ---------------------------------------------------------------------- the catalogs


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_language_translates_every_message(language: str) -> None:
    translations = {message_id(m): m for m in catalog(language) if m.id}
    assert catalog(language).num_plurals == FORMS[language]
    untranslated = []
    for ident in sorted(template_ids(), key=str):
        message = translations.get(ident)
        forms = message.string if message is not None else None
        texts = list(forms) if isinstance(forms, tuple | list) else [forms]
        if message is None or message.fuzzy or not all(texts):
            untranslated.append(str(ident))
        elif isinstance(ident[1], tuple):
            assert len(texts) == FORMS[language], ident
    assert not untranslated, f"{language}: translate\n" + "\n".join(untranslated)


def fields(text: str) -> set[str]:
    """Name every `{placeholder}` of a text as written, with its conversion and format."""
    return {
        "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        for _, name, spec, conversion in string.Formatter().parse(text)
        if name is not None
    }


def markup(text: str) -> tuple[object, ...]:
    """Sum up what a translation must keep: bold, mentions, symbols, edges."""
    symbols = Counter(c for c in text if unicodedata.category(c) in ("So", "Sm"))
    return (
        text.count("**"),
        Counter(re.findall(r"<@\{\w+\}>", text)),
        symbols,
        text[:1].isspace(),
        text[-1:].isspace(),
    )


def code_spans(text: str) -> Counter[str]:
    """Count a text's `code` spans."""
    return Counter(re.findall(r"`[^`]*`", text))


def command_spans(text: str, language: str) -> Counter[str]:
    """Count a text's `code` spans, naming the commands in them as Discord shows them."""

    def localized(span: re.Match[str]) -> str:
        return i18n.command_word(span.group(), language)

    return Counter(
        re.sub(r"(?<=^`/\{command\} )[-\w]+(?=`$)|(?<=^`)[-\w]+(?=`$)", localized, span)
        for span in code_spans(text).elements()
    )


def keeps_code(english: str, text: str, language: str) -> bool:
    """Say whether a translation keeps every `code` span (commands may be in its language)."""
    return code_spans(text) in (code_spans(english), command_spans(english, language))


def only_for_one(language: str, form: int) -> bool:
    """Say whether a plural form of a language is used for the count 1 alone."""
    return {n for n in range(1000) if i18n.plural_form(n, language) == form} == {1}


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_keep_placeholders_markdown_and_mentions(language: str) -> None:
    for message in catalog(language):
        if not message.id or not message.string:
            continue
        if isinstance(message.id, tuple | list):
            singular, plural = message.id
            for form, text in enumerate(message.string):
                want = [fields(plural)]
                if only_for_one(language, form):
                    want.append(fields(singular))
                assert fields(text) in want, (language, message.id, form, text)
                assert markup(text) == markup(plural), (language, message.id, text)
                assert keeps_code(plural, text, language), (language, message.id, text)
        else:
            text = str(message.string)
            assert fields(text) == fields(message.id), (language, message.id, text)
            assert markup(text) == markup(message.id), (language, message.id, text)
            assert keeps_code(message.id, text, language), (language, message.id, text)


@pytest.mark.parametrize("language", TRANSLATED)
def test_command_names_follow_discords_rules(language: str) -> None:
    names = [m for m in catalog(language) if m.context == NAME_CONTEXT]
    assert names
    for message in names:
        assert valid_name(str(message.string)), (language, message.id, message.string)


# ---------------------------------------------------------------------- the commands


def command_tree() -> app_commands.CommandTree[discord.Client]:
    """Make every slash command of the bot, as the cogs do."""
    client = discord.Client(intents=discord.Intents.none())
    tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(client)
    cogs = [
        tables.Play(None, None, None, "shithead"),  # type: ignore[arg-type]
        houserules.HouseRules(None),  # type: ignore[arg-type]
        stats.Records(None),  # type: ignore[arg-type]
    ]
    for cog in cogs:
        for command in cog.__cog_app_commands__:
            if command.parent is None:
                tree.add_command(command)
        group = cog.__cog_app_commands_group__
        if group is not None:
            tree.add_command(group)
    return tree


def walk(payload: dict[str, Any], siblings: list[dict[str, Any]]) -> Iterator[Any]:
    """Walk a command's payload: each command or option with its siblings, and each choice."""
    yield payload, siblings
    for choice in payload.get("choices", ()):
        yield choice, None
    options = list(payload.get("options", ()))
    for option in options:
        yield from walk(option, options)


async def test_every_command_is_translated_within_discords_limits() -> None:
    tree = command_tree()
    translator = CatalogTranslator()
    commands = tree.get_commands()
    assert {command.name for command in commands} >= {"shithead", "houserules", "stats"}
    payloads = [await command.get_translated_payload(tree, translator) for command in commands]
    names = 0
    for node, siblings in (each for payload in payloads for each in walk(payload, payloads)):
        if node["name"] == "shithead" and siblings is payloads:
            assert not node.get("name_localizations")  # the COMMAND_NAME setting
        elif siblings is not None:  # a command, a group or an option: a name
            localized = node.get("name_localizations") or {}
            assert set(localized) == set(TRANSLATED), (node["name"], localized)
            for language, name in localized.items():
                assert valid_name(name), (language, node["name"], name)
                same = [s["name"] for s in siblings if localized_name(s, language) == name]
                assert same == [node["name"]], (language, name, same)
            names += 1
        elif node["name"] not in preset_names():  # a choice; a preset's name is its own
            localized = node.get("name_localizations") or {}
            assert set(localized) == set(TRANSLATED), (node["name"], localized)
            assert all(0 < len(text) <= 100 for text in localized.values()), localized
        if "description" in node and node["description"] != "…":  # "…": no description
            localized = node.get("description_localizations") or {}
            assert set(localized) == set(TRANSLATED), (node["description"], localized)
            assert all(0 < len(text) <= 100 for text in localized.values()), localized
    assert names > 25


def localized_name(node: dict[str, Any], language: str) -> str:
    """Give a command's or option's name as a language's members see it."""
    return str((node.get("name_localizations") or {}).get(language, node["name"]))


# ---------------------------------------------------------------------- in use


@pytest.fixture
def said(monkeypatch: pytest.MonkeyPatch) -> list[MessageId]:
    """Record every message the bot's modules translate while the test runs."""
    heard: list[MessageId] = []
    translate, translate_counted = i18n.t, i18n.tn
    # Labels kept from earlier tests would not be said again here.
    play_label.cache_clear()
    play_option.cache_clear()
    private_title.cache_clear()
    private_words.cache_clear()

    def t(message: str, /, locale: str, **values: object) -> str:
        heard.append((None, message))
        return translate(message, locale, **values)

    def tn(singular: str, plural: str, count: int, /, locale: str, **values: object) -> str:
        heard.append((None, (singular, plural)))
        return translate_counted(singular, plural, count, locale, **values)

    for name, module in list(sys.modules.items()):
        if not name.startswith("bot.") or name == "bot.i18n":
            continue
        if getattr(module, "t", None) is translate:
            monkeypatch.setattr(module, "t", t)
        if getattr(module, "tn", None) is translate_counted:
            monkeypatch.setattr(module, "tn", tn)
    return heard


def a_game(preset: str, seed: int) -> Iterator[tuple[Table, list[Note]]]:
    """Play a game with random legal moves; yield the table and the notes of each move."""
    rules = make_rules(preset)
    seats = [Seat(1, "Ana"), Seat(2, "Ben"), Seat(0, "", computer="expert")]
    table = Table("abc", 1, 2, 1, preset, rules, seed, 90, 3, seats)
    yield table, []
    table.game = game = Game.deal(rules, len(seats), seed=seed)
    chance = random.Random(seed)
    for _ in range(3000):
        if game.over:
            break
        seat = game.to_act()[0]
        events = game.apply(chance.choice(legal_actions(game, seat)))
        yield table, notes_of(events)


def refusals(table: Table) -> Iterator[TableError]:
    """Give every refusal of the core, with the parameters the core gives it."""
    game = table.game
    assert game is not None
    view = player_view(game, 0).table
    play = Play(0, tuple(game.hands[0][:1]))
    for code in ErrorCode:
        yield TableError("illegal", error=code, action=play, table=view)
    yield TableError("illegal", error="other", action=None, table=view)
    yield TableError("not_your_turn", seat=1)
    yield TableError("not_your_turn")
    yield TableError("no_such_level", level="genius")
    yield TableError("table_full", count=8)
    yield TableError("player_count", count=1, low=2, high=5)
    yield TableError("rematch_too_few", count=1, low=2)
    simple = [
        "no_table",
        "table_ended",
        "channel_busy",
        "rematch_too_old",
        "rematch_not_player",
        "already_seated",
        "add_computer_not_seated",
        "not_seated",
        "member_not_seated",
        "host_only",
        "host_or_moderator",
        "already_started",
        "not_playing",
        "not_started",
        "stale_view",
        "move_gone",
        "not_saved",
        "unknown",
    ]
    for each in simple:
        yield TableError(each)


MORE_NOTES = [
    Note("idle_out", {"seat": 0, "count": 1}),
    Note("idle_out", {"seat": 1, "count": 3}),
    Note("dealt"),
    Note("left", {"seat": 1}),
    Note("kicked", {"name": "Cid"}),
    Note("kicked_lobby", {"name": "Cid"}),
    Note("ended", {"seat": 0}),
    Note("lobby_closed"),
    Note("timed_out", {"seat": 1}),
    Note("skipped", {"seats": [1, 2]}),
]


def say_everything(language: str) -> None:
    """Render games of several presets in a language, with their notes, refusals and rules."""
    for preset, seed in (("classic", 1), ("karma", 2), ("choose-deal", 3), ("egilsson", 4)):
        rendered = 0
        for step, (table, notes) in enumerate(a_game(preset, seed)):
            shown = snapshot(table)
            for note in notes:
                note_text(note, shown, language)
            if step % 40 == 0 or (table.game is not None and table.game.over):
                render_table(shown, language)
                for seat in shown.private:
                    render_private(shown, seat, language, "Table abc")
                rendered += 1
        assert table.game is not None and table.game.over and rendered > 2
        for note in MORE_NOTES:
            note_text(note, shown, language)
        for error in refusals(table):
            refusal(error, language, shown)
    for preset in preset_names():
        rules = make_rules(preset, {"jokers": 2, "runs": True})
        rules_summary(rules, preset, language)
        rules_embed(rules, preset, language)
        house_rules_embed("Server", GuildSettings(preset=preset), language)
    rules_embed(make_rules("classic", ODD_RULES["every option turned"]), "odd", language)
    rules_embed(make_rules("classic", ODD_RULES["every power everywhere"]), "all", language)
    rules_embed(make_rules("classic", ODD_RULES["no powers, one of each"]), "none", language)
    for name in SETTING_NAMES:
        setting_choice(name, language)
    for name in SETTING_NAMES:
        allowed_values(name, language)
    wrong: list[Callable[[], object]] = [
        lambda: kind_of("nope"),
        lambda: with_preset(GuildSettings(), "nope"),
        lambda: with_value(GuildSettings(), "decks", "many"),
    ]
    for attempt in wrong:
        with pytest.raises(SettingError) as caught:
            attempt()
        caught.value.words(language)


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_what_the_bot_says_is_in_the_template_and_fills_in_every_language(
    language: str, said: list[MessageId], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="bot.i18n"):
        say_everything(language)
    assert not caplog.records, [record.getMessage() for record in caplog.records]
    heard = set(said)
    assert len(heard) > 100
    assert heard <= template_ids(), sorted(map(str, heard - template_ids()))


def glossary_tables() -> list[list[list[str]]]:
    """Read GLOSSARY.md's tables: each a list of rows of cells, without header and rule."""
    tables: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*(LOCALE / "GLOSSARY.md").read_text(encoding="utf-8").splitlines(), ""]:
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            tables.append(rows[2:])
            rows = []
    return tables


def test_the_glossary_says_what_the_catalogs_say() -> None:
    terms = glossary_tables()[0]
    assert len(terms) >= 15
    for row in terms:
        message = re.search(r"`([^`]+)`", row[0])
        assert message is not None, row
        words = dict(zip(TRANSLATED, row[1:], strict=True))
        for language, word in words.items():
            assert i18n.t(message.group(1), language) == word, (row, language)


def translations(language: str) -> Iterator[tuple[object, str]]:
    """Give every translated text of a catalog, each plural form on its own."""
    for message in catalog(language):
        if message.id and message.string:
            forms = message.string if isinstance(message.string, tuple | list) else [message.string]
            yield from ((message.id, str(form)) for form in forms)


def uses(word: str, language: str) -> list[tuple[object, str]]:
    """Find the translations in which a word starts (case-insensitive)."""
    pattern = re.compile(rf"(?<!\w){re.escape(word)}", re.IGNORECASE)
    return [(ident, text) for ident, text in translations(language) if pattern.search(text)]


def test_each_term_has_its_one_word_and_no_avoided_synonym() -> None:
    rows = glossary_tables()[1]
    assert {row[0] for row in rows} == set(TRANSLATED) and len(rows) >= 16
    for language, term, use, avoid in rows:
        used = [hit for word in use.split(", ") for hit in uses(word, language)]
        assert len(used) >= 2, f"{language} hardly says {term} as {use}"
        for word in avoid.split(", "):
            assert not uses(word, language), f"{language} says {term} as {word}"
