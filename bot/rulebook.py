"""A table's rules in plain words, built from the rule set as data, in a given language.

Every option value and every power effect has its own sentence, so any combination of house
rules reads right; `/shithead rules` shows them, and `/houserules` says what each setting means.
"""

from __future__ import annotations

from collections.abc import Iterator

import discord

from bot.i18n import t, tn
from bot.words import clip, fit, rank_word
from engine.cards import JOKER, NORMAL_RANKS, parse_rank
from engine.rules import Power, RuleSet

# Discord's limits: an embed field's value, a message's embeds, an autocomplete choice's name.
FIELD_LIMIT = 1024
EMBED_LIMIT = 6000
CHOICE_LIMIT = 100

# What an option's value changes, one sentence each. An extra that is off (no start card, no
# playing from the stock, no stacking) goes unsaid; the counted options are said in `_setup`.
SENTENCES: dict[tuple[str, object], str] = {
    ("swap", True): "Before play you may swap hand cards with your face-up cards, "
    "to keep good cards for later.",
    ("swap", False): "Nobody swaps before play: the cards stay as they were dealt.",
    ("start_pile", True): "The top card of the stock is turned over to start the pile.",
    ("first_player", "lowest"): "The player with the lowest card that has no power starts: "
    "face-up cards before hand cards, then in the order of play.",
    ("first_player", "lowest_by_suit"): "The player with the lowest card that has no power "
    "starts, in hand or face up; between equal ranks the suits go ♣ ♠ ♥ ♦.",
    ("first_player", "random"): "The first player is drawn at random.",
    ("first_player", "loser"): "In a rematch the Shithead of the last game starts; "
    "in a table's first game the first player is drawn at random.",
    ("runs", True): "You may also play a run in one suit (5♥ 6♥ 7♥): its first card must "
    "go on the pile, and each next card on the one before.",
    ("runs", False): "Cards played together must have the same rank.",
    ("voluntary_pickup", True): "You may also pick up the pile instead of playing.",
    ("voluntary_pickup", False): "You may pick up the pile only when you can't play.",
    ("pickup_turn", "next"): "After a pick-up, the next player starts a new pile.",
    ("pickup_turn", "same"): "After a pick-up, you start the new pile yourself.",
    ("pickup_turn", "previous"): "After a pick-up, the player who played last before it "
    "starts the new pile.",
    ("play_from_stock", True): "Instead of playing, you may turn the top stock card over: "
    "it is played if it fits, otherwise you pick it up with the pile.",
    ("stacking", True): "Before play you may put hand cards on a face-up card of the same "
    "rank and draw back up; a stack is played as one and can't be swapped.",
    ("four_of_a_kind", "pile"): "Four or more equal cards on top of the pile burn it, "
    "however many turns they took.",
    ("four_of_a_kind", "play"): "Four or more equal cards played at once burn the pile.",
    ("four_of_a_kind", "off"): "Four of a kind doesn't burn the pile.",
    ("burn_turn", "same"): "After a burn, the player who burned plays again on the empty table.",
    ("burn_turn", "next"): "After a burn, the next player plays on the empty table.",
    ("face_up_pickup", "add_one"): "If you don't play from your face-up cards, you put one of "
    "them (your choice) on the pile and pick it all up.",
    ("face_up_pickup", "keep"): "If you don't play from your face-up cards, you pick up the "
    "pile and your face-up cards stay where they are.",
    ("mode", "loser"): "When your hand, face-up and face-down cards are gone, you are out and "
    "safe. The last player still holding cards is the Shithead; nobody wins.",
    ("mode", "winner"): "The first player whose hand, face-up and face-down cards are gone "
    "wins, and the game ends.",
}
# Which section says which options, in order.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Cards and deal", ("swap", "start_pile", "first_player")),
    ("Your turn", ("runs", "voluntary_pickup", "pickup_turn", "play_from_stock", "stacking")),
    ("Burning the pile", ("four_of_a_kind", "burn_turn")),
    ("Face-up and face-down cards", ("face_up_pickup",)),
    ("The end", ("mode",)),
)
# How a power's card is played, and what each of its effects does.
PLAY_WORDS = {
    "anywhere": "goes on anything",
    "fits": "must equal or beat the top card, like any card",
}
EFFECT_WORDS = {
    "reset": "anything may follow it",
    "glass": "is see-through: the next card must beat the card below it",
    "burn": "burns the pile, which leaves the game",
    "reverse": "reverses the direction of play",
    "skip": "a player misses a turn for each one played",
}
# What each house-rule option and table setting means, for `/houserules` (≤ 100 characters).
SETTING_WORDS = {
    "decks": "how many 52-card packs are shuffled together",
    "jokers": "jokers added to each pack",
    "table_cards": "face-down cards per player, each with a face-up card on it",
    "hand_size": "cards in hand; you draw back up to this while the stock lasts",
    "deal": "classic: face-up cards dealt; choose: players pick their face-up cards",
    "swap": "swap hand cards with face-up cards before play",
    "start_pile": "turn the top stock card over to start the pile",
    "first_player": "who starts: lowest card, lowest by suit, random, or the last Shithead",
    "powers": "what each special rank does, e.g. 10 anywhere+burn",
    "four_of_a_kind": "four equal cards burn: on the pile, played at once, or never",
    "burn_turn": "after a burn: the burner plays again (same) or the next player",
    "voluntary_pickup": "pick up the pile even when you could play",
    "pickup_turn": "after a pick-up, who starts: next, the same player, or the previous",
    "face_up_pickup": "on face-up cards without a play: add one to the pile, or keep them",
    "play_from_stock": "turn the top stock card over instead of playing",
    "runs": "play an ascending run in one suit",
    "stacking": "put equal hand cards on a face-up card before play (Karma)",
    "mode": "loser: play until one Shithead is left; winner: the first out wins",
    "language": "the table message's language; auto: the server's language",
    "pictures": "show pictures of the table and the hands",
    "turn_seconds": "seconds a player has for a turn before the bot plays for them",
    "remind_seconds": "seconds before the player to act is reminded in the channel",
    "idle_turns": "timed-out turns in a row before a player is out",
    "host_may_pick_preset": "a table's host may pick another preset",
}


def option_sentence(rules: RuleSet, option: str, locale: str) -> str | None:
    """Say what an option's value means at a table, or None when it goes unsaid."""
    said = (option, getattr(rules, option))
    if said not in SENTENCES or (option == "swap" and rules.deal == "choose"):
        # Under the choose deal nobody swaps: players pick their face-up cards instead.
        return None
    return t(SENTENCES[said], locale)


def _setup(rules: RuleSet, locale: str) -> Iterator[str]:
    """Say how many play, with which cards, and how they are dealt."""
    yield t("{low} to {high} players", locale, low=rules.min_players, high=rules.max_players)
    yield tn(
        "One pack of 52 cards.",
        "{count} packs of 52 cards shuffled together; identical cards count as equal.",
        rules.decks,
        locale,
    )
    if rules.jokers:
        yield tn(
            "{count} joker in each pack.", "{count} jokers in each pack.", rules.jokers, locale
        )
    else:
        yield t("No jokers.", locale)
    down = tn("{count} face-down card", "{count} face-down cards", rules.table_cards, locale)
    if rules.deal == "choose":
        cards = rules.hand_size + rules.table_cards
        yield t(
            "Each player gets {down} and {hand}, and chooses {up} from the hand to lie face "
            "up on the face-down cards. The rest is the stock.",
            locale,
            down=down,
            hand=tn("{count} card in hand", "{count} cards in hand", cards, locale),
            up=tn("{count} card", "{count} cards", rules.table_cards, locale),
        )
    else:
        yield t(
            "Each player gets {down}, a face-up card on each of them and {hand}. "
            "The rest is the stock.",
            locale,
            down=down,
            hand=tn("{count} card in hand", "{count} cards in hand", rules.hand_size, locale),
        )


def _turn(rules: RuleSet, locale: str) -> Iterator[str]:
    """Say what a player does on their turn."""
    yield t(
        "On your turn, play one card, or several of the same rank, that equal or beat the "
        "top card of the pile (aces are high). If you can't, you pick up the whole pile.",
        locale,
    )
    yield tn(
        "After you play, you draw from the stock back up to {count} card in hand while it lasts.",
        "After you play, you draw from the stock back up to {count} cards in hand while it lasts.",
        rules.hand_size,
        locale,
    )


def _endgame(locale: str) -> Iterator[str]:
    """Say how the face-up and face-down cards are played."""
    yield t(
        "While your hand holds cards you play from it. When it is empty and the stock is gone, "
        "play your face-up cards (equal ones together), then your face-down cards one a turn, "
        "unseen: one that can't go on the pile is picked up with it.",
        locale,
    )


def power_text(ranks: list[int], power: Power, locale: str) -> str:
    """Say what special ranks sharing one power do: how they are played, then each effect."""
    # A "lower" demand names the rank when the line is about one rank.
    one = rank_word(ranks[0], locale) if len(ranks) == 1 else None
    said = [t(PLAY_WORDS[power.play], locale)]
    for effect in power.effects:
        if effect == "lower":
            said.append(
                t("the next card must be lower than {rank}", locale, rank=one)
                if one
                else t("the next card must be lower than it", locale)
            )
        elif effect == "lower_equal":
            said.append(
                t("the next card must be {rank} or lower", locale, rank=one)
                if one
                else t("the next card must be as high as it or lower", locale)
            )
        else:
            said.append(t(EFFECT_WORDS[effect], locale))
    if "glass" in power.effects and power.glass_empty == "own":
        said.append(t("on an empty pile it counts at its own value", locale))
    if power.blocks:
        blocked = ", ".join(rank_word(parse_rank(name), locale) for name in power.blocks)
        said.append(t("{ranks} may not go on it", locale, ranks=blocked))
    named = ", ".join(rank_word(rank, locale) for rank in ranks)
    return t("**{rank}**: {what}.", locale, rank=named, what="; ".join(said))


def powers_lines(rules: RuleSet, locale: str) -> list[str]:
    """Say every power of the table in rank order, one line for ranks with the same power.

    The joker's power is said only when there are jokers.
    """
    shared: dict[Power, list[int]] = {}
    for rank, power in sorted((parse_rank(name), power) for name, power in rules.powers.items()):
        if rules.jokers or rank != JOKER:
            shared.setdefault(power, []).append(rank)
    lines = [power_text(ranks, power, locale) for power, ranks in shared.items()]
    if not lines:
        return [t("No card has a power: every card must equal or beat the pile.", locale)]
    if set(NORMAL_RANKS) <= {rank for ranks in shared.values() for rank in ranks}:
        return lines  # every rank from 2 to the ace has a power
    return [*lines, t("Other cards have no power.", locale)]


def _chunks(lines: list[str], limit: int) -> Iterator[str]:
    """Group lines into texts of at most `limit` characters, never splitting a line."""
    group: list[str] = []
    for line in lines:
        if group and len("\n".join([*group, line])) > limit:
            yield "\n".join(group)
            group = []
        group.append(line)
    if group:
        yield "\n".join(group)


def rules_embed(rules: RuleSet, preset: str, locale: str) -> discord.Embed:
    """Put a table's rules into words, section by section, within Discord's limits."""
    embed = discord.Embed(
        title=t("Rules: {preset}", locale, preset=preset), colour=discord.Colour.dark_green()
    )
    opening = {
        "Cards and deal": list(_setup(rules, locale)),
        "Your turn": list(_turn(rules, locale)),
        "Face-up and face-down cards": list(_endgame(locale)),
    }
    sections: list[list[tuple[str, str]]] = []
    for section, options in SECTIONS:
        said = (option_sentence(rules, option, locale) for option in options)
        lines = [*opening.get(section, []), *(s for s in said if s)]
        sections.append([(t(section, locale), text) for text in _chunks(lines, FIELD_LIMIT)])
    powers_name = t("Powers", locale)
    # The powers get what the other sections leave of the embed's length (a field name each).
    room = EMBED_LIMIT - len(embed) - sum(len(n) + len(v) for each in sections for n, v in each)
    most = room - len(powers_name) * (2 * (room // FIELD_LIMIT) + 1)
    powers = fit(powers_lines(rules, locale), most, locale).split("\n")
    sections.insert(2, [(powers_name, text) for text in _chunks(powers, FIELD_LIMIT)])
    for name, text in (field for each in sections for field in each):
        embed.add_field(name=name, value=text, inline=False)
    return embed


def setting_words(name: str, locale: str) -> str:
    """Say what a house-rule option or table setting means."""
    return t(SETTING_WORDS[name], locale)


def setting_choice(name: str, locale: str) -> str:
    """Name a setting for the autocomplete list: its name and what it means."""
    return clip(f"{name}: {setting_words(name, locale)}", CHOICE_LIMIT)
