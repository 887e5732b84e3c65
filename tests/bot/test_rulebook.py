"""`/shithead rules` and `/houserules` say any combination of house rules, in every language."""

from __future__ import annotations

import typing
from typing import Any, Literal

import discord
import pytest

from bot.cogs.houserules import rules_embed as house_rules_embed
from bot.guild_settings import SETTING_NAMES, GuildSettings
from bot.i18n import LANGUAGES, t, tn
from bot.rulebook import (
    CHOICE_LIMIT,
    EFFECT_WORDS,
    PLAY_WORDS,
    SENTENCES,
    SETTING_WORDS,
    powers_lines,
    rules_embed,
    setting_choice,
    setting_words,
)
from bot.words import plain, rank_word
from engine.cards import JOKER, parse_rank
from engine.rules import EFFECTS, OPTION_NAMES, Power, RuleSet, make_rules, preset_names

EVERY_RANK = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK")
# A power on every rank with every effect a power can have at once: the longest text there is.
EVERYTHING = {
    "play": "fits",
    "effects": ["reset", "glass", "lower_equal", "burn", "reverse", "skip"],
    "blocks": ["10", "J", "Q", "K", "A"],
    "glass_empty": "own",
}
ODD_RULES: dict[str, dict[str, Any]] = {
    "every power everywhere": dict(
        decks=4, jokers=4, powers={rank: EVERYTHING for rank in EVERY_RANK}
    ),
    "every option turned": dict(
        deal="choose",
        swap=False,
        start_pile=True,
        first_player="lowest_by_suit",
        four_of_a_kind="off",
        burn_turn="next",
        voluntary_pickup=False,
        pickup_turn="previous",
        face_up_pickup="keep",
        play_from_stock=True,
        runs=True,
        stacking=True,
        mode="winner",
    ),
    "no powers, one of each": dict(
        table_cards=1, hand_size=1, powers={"2": None, "10": None, "JK": None}
    ),
    "no swap, four played at once": dict(swap=False, four_of_a_kind="play", pickup_turn="same"),
    "random start, jokers unused": dict(
        first_player="random", powers={"JK": {"play": "fits", "effects": ["skip"]}}
    ),
}
RULE_SETS = [(name, make_rules(name)) for name in preset_names()] + [
    (name, make_rules("classic", changes)) for name, changes in ODD_RULES.items()
]


def values_of(option: str) -> tuple[object, ...]:
    """Every value a yes/no or choice option of the rule set can take."""
    annotation = RuleSet.model_fields[option].annotation
    if annotation is bool:
        return (True, False)
    assert typing.get_origin(annotation) is Literal, option
    return typing.get_args(annotation)


def text_of(embed: discord.Embed) -> str:
    return "\n".join([embed.title or "", *(str(field.value) for field in embed.fields)])


def assert_fits_discord(embed: discord.Embed) -> None:
    assert len(embed) <= 6000 and len(embed.fields) <= 25
    assert len(embed.title or "") <= 256 and len(embed.description or "") <= 4096
    for field in embed.fields:
        assert 0 < len(str(field.name)) <= 256 and 0 < len(str(field.value)) <= 1024


def test_every_value_of_every_option_has_its_sentence() -> None:
    said_options = {option for option, _ in SENTENCES}
    unsaid = {
        (option, value)
        for option in said_options
        for value in values_of(option)
        if (option, value) not in SENTENCES
    }
    # An extra that is off goes unsaid; every other value is said.
    assert unsaid == {("start_pile", False), ("play_from_stock", False), ("stacking", False)}
    counted = {"decks", "jokers", "table_cards", "hand_size", "deal", "powers"}
    assert said_options | counted == set(OPTION_NAMES)
    # Every way to play a power and every effect has its words ("lower" ones name the rank).
    assert set(PLAY_WORDS) == set(typing.get_args(Power.model_fields["play"].annotation))
    assert set(EFFECT_WORDS) | {"lower", "lower_equal"} == set(EFFECTS)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("name", "rules"), RULE_SETS, ids=[name for name, _ in RULE_SETS])
def test_the_rules_say_each_option_and_power_within_discords_limits(
    name: str, rules: RuleSet, language: str
) -> None:
    embed = rules_embed(rules, name, language)
    assert_fits_discord(embed)
    text = text_of(embed)
    assert embed.title == t("Rules: {preset}", language, preset=name)
    for (option, value), sentence in SENTENCES.items():
        wanted = getattr(rules, option) == value
        if option == "swap" and rules.deal == "choose":
            wanted = False  # nobody swaps under the choose deal
        assert (t(sentence, language) in text) == wanted, (option, value)
    decks = tn(
        "One pack of 52 cards.",
        "{count} packs of 52 cards shuffled together; identical cards count as equal.",
        rules.decks,
        language,
    )
    refill = tn(
        "After you play, you draw from the stock back up to {count} card in hand while it lasts.",
        "After you play, you draw from the stock back up to {count} cards in hand while it lasts.",
        rules.hand_size,
        language,
    )
    down = tn("{count} face-down card", "{count} face-down cards", rules.table_cards, language)
    assert decks in text and refill in text and down in text
    if rules.jokers:
        jokers = tn(
            "{count} joker in each pack.", "{count} jokers in each pack.", rules.jokers, language
        )
        assert jokers in text
    else:
        assert t("No jokers.", language) in text
    heads = {}
    for line in text.splitlines():
        if line.startswith("**") and "**: " in line:
            head, _, what = line[2:].partition("**: ")
            heads.update({name: (head, what) for name in head.split(", ")})
    for rank_name, power in rules.powers.items():
        rank = parse_rank(rank_name)
        word = rank_word(rank, language)
        if rank == JOKER and not rules.jokers:
            assert word not in heads, "a joker's power means nothing without jokers"
            continue
        head, what = heads[word]
        assert what.startswith(t(PLAY_WORDS[power.play], language)), (rank_name, what)
        for effect in power.effects:
            if effect in EFFECT_WORDS:
                assert t(EFFECT_WORDS[effect], language) in what, (rank_name, effect)
        if "lower" in power.effects and head == word:
            lower = t("the next card must be lower than {rank}", language, rank=word)
            assert lower in what
        if "lower_equal" in power.effects and head != word:
            assert t("the next card must be as high as it or lower", language) in what
        if power.blocks:
            assert all(rank_word(parse_rank(b), language) in what for b in power.blocks)
    shown = {rank for rank in rules.powers if rank != "JK" or rules.jokers}
    no_powers = t("No card has a power: every card must equal or beat the pile.", language)
    assert (no_powers in text) == (not shown)
    others = bool(shown) and not set(EVERY_RANK[:-1]) <= shown
    assert (t("Other cards have no power.", language) in text) == others


def test_an_english_table_reads_as_the_rules_page_says() -> None:
    dutch = text_of(rules_embed(make_rules("dutch"), "dutch", "en"))
    assert "**7**: must equal or beat the top card, like any card; " in dutch
    assert "the next card must be lower than 7." in dutch
    assert "You may pick up the pile only when you can't play." in dutch
    assert "2 jokers in each pack." in dutch
    choose = text_of(rules_embed(make_rules("choose-deal"), "choose-deal", "en"))
    assert "Each player gets 3 face-down cards and 6 cards in hand, and chooses 3 cards" in choose
    assert "swap" not in choose
    lone = text_of(
        rules_embed(make_rules("classic", ODD_RULES["no powers, one of each"]), "x", "en")
    )
    assert "1 face-down card, a face-up card on each of them and 1 card in hand" in lone


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_setting_is_described_within_an_autocomplete_choice(language: str) -> None:
    assert set(SETTING_WORDS) == set(SETTING_NAMES)
    for name in SETTING_NAMES:
        words = setting_words(name, language)
        assert words and (language == "en" or words != SETTING_WORDS[name]), (language, name)
        choice = setting_choice(name, language)
        assert choice == f"{name}: {words}" and len(choice) <= CHOICE_LIMIT, choice


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_house_rules_listing_describes_every_setting_and_fits(language: str) -> None:
    powers = {rank: EVERYTHING for rank in EVERY_RANK}
    settings = GuildSettings(preset="schwechat", overrides={"powers": powers, "decks": 4})
    embed = house_rules_embed("Ü" * 100, settings, language)
    assert_fits_discord(embed)
    lines = (embed.description or "").splitlines()
    assert len(lines) == len(SETTING_NAMES)
    for name, line in zip(SETTING_NAMES, lines, strict=True):
        assert line.startswith((f"{name}: ", f"**{name}**: "))
        assert line.endswith(f"({setting_words(name, language)})")


def test_the_house_rules_title_shows_the_server_name_as_plain_text() -> None:
    # A server's name is its owner's choice: no masked link, formatting or mention in it works.
    name = "[nitro](https://evil.example) **x** @everyone"
    embed = house_rules_embed(name, GuildSettings(), "en")
    assert embed.title == f"House rules of {plain(name)}"
    assert "**x**" not in (embed.title or "")
    assert "@everyone" not in (embed.title or "")


@pytest.mark.parametrize("language", LANGUAGES)
def test_fourteen_different_long_powers_are_cut_to_fit_and_say_so(language: str) -> None:
    # Each rank blocks every other rank: fourteen different powers, each a long line.
    powers = {
        rank: {**EVERYTHING, "blocks": [other for other in EVERY_RANK if other != rank]}
        for rank in EVERY_RANK
    }
    rules = make_rules("classic", {"jokers": 1, "powers": powers})
    embed = rules_embed(rules, "classic", language)
    assert_fits_discord(embed)
    said = [str(f.value) for f in embed.fields if f.name == t("Powers", language)]
    shown = "\n".join(said).splitlines()
    every = powers_lines(rules, language)
    assert len(every) == 14 and 1 < len(shown) < 14  # fourteen powers, no "other cards"
    assert shown[:-1] == every[: len(shown) - 1]
    left = len(every) - len(shown) + 1
    assert shown[-1] == tn("… and {count} more", "… and {count} more", left, language)
    for sentence in (SENTENCES[("mode", "loser")], SENTENCES[("four_of_a_kind", "pile")]):
        assert t(sentence, language) in text_of(embed)
