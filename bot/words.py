"""Put the core's data into words, in a given language: cards, notes, refusals, rules.

Nothing is translated at import: every function takes the reader's locale.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from functools import lru_cache
from typing import Any

import discord

from bot.i18n import t, tn
from bot.ratings import Change, Rating
from engine.actions import Flip, PickUp, Play, PlayStock
from engine.cards import JOKER, Card, parse_card, parse_rank, rank_name
from engine.errors import ErrorCode
from engine.hints import Hint
from engine.pile import Constraint
from engine.rules import RuleSet
from engine.views import TableView
from tables.errors import TableError
from tables.notes import Note
from tables.outcome import SeatSnapshot, Snapshot

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


# Every message of a table names its seats again, and the escaping regexes cost more than
# the rest of a name's line: the few names in play are kept escaped.
@lru_cache(maxsize=4096)
def plain(name: str) -> str:
    """Show a name someone chose as plain text: no markdown, links or mentions."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(name))


def fit(lines: list[str], limit: int, locale: str) -> str:
    """Join lines within `limit` characters, ending with "… and N more" when some don't fit."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text or "—"
    for kept in range(len(lines) - 1, -1, -1):
        more = tn("… and {count} more", "… and {count} more", len(lines) - kept, locale)
        text = "\n".join([*lines[:kept], more])
        if len(text) <= limit:
            return text
    return lines[0][: limit - 1] + "…"


def clip(text: str, limit: int) -> str:
    """Cut a label to Discord's length for it."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def rank_word(rank: int, locale: str) -> str:
    """Name a rank in words: "7", "queen", "joker"."""
    # Only the word asked for is translated (each literal stays for `make messages`).
    if rank == 11:
        return t("jack", locale)
    if rank == 12:
        return t("queen", locale)
    if rank == 13:
        return t("king", locale)
    if rank == 14:
        return t("ace", locale)
    if rank == JOKER:
        return t("joker", locale)
    return rank_name(rank)


class _CardTexts(dict[Card, str]):
    """Each card's text with its suit symbol, written on first use."""

    def __missing__(self, card: Card) -> str:
        if card.rank == JOKER:
            text = "🃏"
        else:
            text = f"{rank_name(card.rank)}{SUIT_SYMBOLS[card.suit or 'S']}"
        self[card] = text
        return text


# Each card's text, written once: a card is the same in every language, and every message
# drawn writes a hand, the face-up cards, the pile and the moves (a pure cache by card).
_CARD_TEXTS = _CardTexts()


def card_text(card: Card) -> str:
    """Write a card with its suit symbol: 10♥, Q♠, 🃏."""
    return _CARD_TEXTS[card]


# A note's cards as the rules write them ("10H"), in words: the last moves are written
# again on every message drawn. A string that is no card raises, and is never kept.
_WRITTEN_TEXTS: dict[str, str] = {}


def written_card_text(written: object) -> str:
    """Write a card a note keeps as the rules write it ("10H") with its suit symbol."""
    key = str(written)
    text = _WRITTEN_TEXTS.get(key)
    if text is None:
        text = _WRITTEN_TEXTS[key] = card_text(parse_card(key))
    return text


def cards_text(cards: Sequence[Card]) -> str:
    """Write cards separated by spaces, or a dash when there are none."""
    return " ".join(map(_CARD_TEXTS.__getitem__, cards)) or "—"


def some_cards_text(cards: Sequence[Card], limit: int, locale: str) -> str:
    """Write the `limit` highest of `cards` (sorted) and say how many more there are."""
    if len(cards) <= limit:
        return cards_text(cards)
    more = len(cards) - limit
    return tn(
        "{cards} and {count} more",
        "{cards} and {count} more",
        more,
        locale,
        cards=cards_text(cards[-limit:]),
    )


# A play is labelled again on every redraw of its player's menus: the few plays of a deck are
# kept in words, per language (a pure cache by cards and language).
@lru_cache(maxsize=4096)
def play_label(cards: tuple[Card, ...], locale: str) -> str:
    """Describe a play for a menu: "two 7s (7♣ 7♥)", "run 5♥ 6♥ 7♥"."""
    if len({card.rank for card in cards}) > 1:
        return t("run {cards}", locale, cards=cards_text(cards))
    rank = rank_word(cards[0].rank, locale)
    if len(cards) == 1:
        return t("{rank} ({cards})", locale, rank=rank, cards=cards_text(cards))
    return t(
        "{count} × {rank} ({cards})", locale, count=len(cards), rank=rank, cards=cards_text(cards)
    )


def constraint_text(constraint: Constraint, locale: str) -> str:
    """Say what may go on the pile: "anything", "7 or higher", "lower than 7"."""
    rank = rank_word(constraint.value, locale) if constraint.value else ""
    if constraint.kind == "at_least":
        text = t("{rank} or higher", locale, rank=rank)
    elif constraint.kind == "lower":
        text = t("lower than {rank}", locale, rank=rank)
    elif constraint.kind == "lower_equal":
        text = t("{rank} or lower", locale, rank=rank)
    else:
        text = t("anything", locale)
    if constraint.blocked:
        blocked = ", ".join(rank_word(r, locale) for r in sorted(constraint.blocked))
        text = t("{text}, but no {blocked}", locale, text=text, blocked=blocked)
    return text


def pile_text(table: TableView, locale: str) -> str:
    """Describe the pile's top card and what may follow it."""
    top = table.pile_top
    if top is None:
        return t("empty — play anything", locale)
    return tn(
        "{top} (1 card) — play {allowed}",
        "{top} ({count} cards) — play {allowed}",
        len(table.pile),
        locale,
        top=card_text(top),
        allowed=constraint_text(table.constraint, locale),
    )


def computer_number(seats: Sequence[SeatSnapshot], seat: int) -> int:
    """Count a computer seat among the computer seats: the first one is 1."""
    return sum(1 for other in seats[: seat + 1] if other.computer is not None)


def seat_name(snapshot: Snapshot, seat: int, locale: str) -> str:
    """Name a seat: a member's display name, or "Computer 2 (expert)"."""
    each = snapshot.seats[seat]
    if each.computer is None:
        return plain(each.name)
    return t(
        "Computer {number} ({level})",
        locale,
        number=computer_number(snapshot.seats, seat),
        level=level_word(each.computer, locale),
    )


def level_word(level: str, locale: str) -> str:
    """Name a computer level in words."""
    if level == "basic":
        return t("basic", locale)
    if level == "expert":
        return t("expert", locale)
    return level


def names(snapshot: Snapshot, locale: str) -> list[str]:
    """Name every seat, in seat order."""
    return [seat_name(snapshot, seat.seat, locale) for seat in snapshot.seats]


def _who(note: Note, snapshot: Snapshot, locale: str) -> str:
    seat = note.params.get("seat")
    if isinstance(seat, int) and 0 <= seat < len(snapshot.seats):
        return seat_name(snapshot, seat, locale)
    return plain(str(note.params.get("name", "?")))


def note_text(note: Note, snapshot: Snapshot, locale: str) -> str:
    """Put one log note into a line: "Ana burned the pile with a 10"."""
    p: Mapping[str, Any] = note.params
    who = _who(note, snapshot, locale)
    code = note.code
    if code == "revealed":
        what = (
            t("a face-down card", locale)
            if p.get("zone") == "face_down"
            else t("the stock card", locale)
        )
        card = written_card_text(p["card"])
        return t("{name} turned {what}: {card}", locale, name=who, what=what, card=card)
    if code == "played":
        where = t(" from the face-up cards", locale) if p.get("zone") == "face_up" else ""
        cards = " ".join(map(written_card_text, p.get("cards", []))) or "—"
        return t("{name} played {cards}{where}", locale, name=who, cards=cards, where=where)
    if code == "burned":
        if p.get("card"):
            card = written_card_text(p["card"])
            return t("{name} burned the pile with {card}", locale, name=who, card=card)
        return t("{name} burned the pile with four of a kind", locale, name=who)
    if code == "picked_up":
        return tn(
            "{name} picked up the pile (1 card)",
            "{name} picked up the pile ({count} cards)",
            int(p["count"]),
            locale,
            name=who,
        )
    if code == "idle_out":
        return tn(
            "{name} missed a turn and is out",
            "{name} missed {count} turns in a row and is out",
            int(p["count"]),
            locale,
            name=who,
        )
    if code == "skipped":
        skipped = ", ".join(seat_name(snapshot, int(s), locale) for s in p.get("seats", []))
        return t("{names} skipped", locale, names=skipped)
    simple = {
        "reversed": "the direction of play reversed",
        "went_out": "{name} is out (place {place})",
        "shithead": "{name} is the Shithead!",
        "ready": "{name} is ready",
        "leads": "{name} leads",
        "dealt": "The cards are dealt. Get ready!",
        "left": "{name} left the game",
        "kicked": "{name} was removed from the game",
        "kicked_lobby": "{name} was removed from the table",
        "ended": "{name} ended the table",
        "lobby_closed": "The lobby closed: nobody started a game.",
        "timed_out": "{name} ran out of time; the bot played for them",
    }
    if code in simple:
        values = {key: value for key, value in p.items() if key not in ("seat", "name")}
        return t(simple[code], locale, name=who, **values)
    return code


def _refusal_words(error: TableError, locale: str) -> str:
    """Put an engine refusal into friendly words: "a 5 can't go on a queen"."""
    code = error.params.get("error")
    action = error.params.get("action")
    table = error.params.get("table")
    top = table.pile_top if isinstance(table, TableView) else None
    if code == ErrorCode.CANNOT_BEAT and isinstance(action, Play) and top is not None:
        assert isinstance(table, TableView)
        return t(
            "{card} can't go on {top}: play {allowed}",
            locale,
            card=cards_text(action.cards),
            top=card_text(top),
            allowed=constraint_text(table.constraint, locale),
        )
    words = {
        ErrorCode.NOT_YOUR_TURN: "it isn't your turn",
        ErrorCode.WRONG_PHASE: "that move isn't possible at this point of the game",
        ErrorCode.NOT_HELD: "you don't hold that card any more",
        ErrorCode.MIXED_RANKS: "cards played together must have the same rank",
        ErrorCode.CANNOT_BEAT: "that card can't go on the pile",
        ErrorCode.PICKUP_NOT_ALLOWED: "you can't pick up the pile now",
    }
    if code in words:
        return t(words[ErrorCode(code)], locale)
    if isinstance(action, PickUp | Flip | PlayStock):
        return t("that move isn't allowed now", locale)
    return t("that move isn't allowed", locale)


def refusal(
    error: TableError, locale: str, snapshot: Snapshot | None = None, command: str = "shithead"
) -> str:
    """Put a refusal of the core into one friendly sentence for the asker."""
    p = error.params
    code = error.code
    if code == "illegal":
        return _refusal_words(error, locale)
    if code == "not_your_turn":
        seat = p.get("seat")
        if snapshot is not None and isinstance(seat, int) and 0 <= seat < len(snapshot.seats):
            name = seat_name(snapshot, seat, locale)
            return t("It isn't your turn: {name} is playing.", locale, name=name)
        return t("It isn't your turn.", locale)
    if code == "no_such_level":
        level = level_word(str(p.get("level")), locale)
        return t("There is no {level} computer player yet.", locale, level=level)
    if code == "no_table":
        text = "There is no table in this channel. Open one with `/{command} create`."
        return t(text, locale, command=command)
    if code == "table_full":
        count = int(p["count"])
        return tn(
            "The table is full (1 player).", "The table is full ({count} players).", count, locale
        )
    if code == "player_count":
        return tn(
            "These rules need {low} to {high} players; the table has 1.",
            "These rules need {low} to {high} players; the table has {count}.",
            int(p["count"]),
            locale,
            low=p["low"],
            high=p["high"],
        )
    if code == "rematch_too_few":
        return tn(
            "A rematch needs at least {low} players; 1 is left.",
            "A rematch needs at least {low} players; {count} are left.",
            int(p["count"]),
            locale,
            low=p["low"],
        )
    words = {
        "table_ended": "This table has ended.",
        "channel_busy": "This channel already has a table. Use another channel for another game.",
        "rematch_too_old": "That game is too old for a rematch. Open a new table.",
        "rematch_not_player": "Only the players of that game can ask for a rematch.",
        "already_seated": "You already sit at this table.",
        "add_computer_not_seated": "Only players at this table can add computer players.",
        "not_seated": "You don't sit at this table.",
        "member_not_seated": "That member doesn't sit at this table.",
        "host_only": "Only the host can start the game.",
        "host_or_moderator": "Only the host or a moderator can do that.",
        "already_started": "The game has already started.",
        "not_playing": "You're not playing at this table.",
        "not_started": "The game hasn't started yet.",
        "stale_view": "That was an old view. Use your latest one.",
        "move_gone": "That move isn't available any more.",
        "not_saved": "That couldn't be saved just now, so nothing changed. Try again in a moment.",
        "hints_off": "Hints are off at this table. The host can turn them on in the lobby.",
        "hint_not_now": "Hints are given when it's your turn to play.",
        "host_only_hints": "Only the host can turn hints on or off.",
    }
    if code in words:
        return t(words[code], locale, **p)
    return t("That can't be done now.", locale)


# ---------------------------------------------------------------------- hints

# What each reason of `engine.hints` says; {rank} and {count} are the reason's parameters.
HINT_REASONS = {
    "nothing_fits": "Nothing you hold can be played: pick up.",
    "pick_up": "Picking up now costs you less than any card you could play.",
    "stock": "Nothing in your hand fits, so try your luck with the stock card.",
    "stock_saves": "The stock card may fit, and your own cards stay in your hand.",
    "blind": "Only face-down cards are left: any one is as good as another.",
    "burns": "Your {rank} burns the pile.",
    "four_burns": "It completes four of a kind and burns the pile.",
    "run": "It gets rid of {count} cards at once.",
    "only_special": "Nothing else fits: only your {rank} can go on the pile.",
    "lowest_set": "It gets rid of your lowest cards, {count} × {rank}, in one go.",
    "keeps_special": "It keeps your {rank} for later.",
    "lowest": "Your {rank} is the lowest card you can play.",
    "starve": "The next player is nearly out: play high to hold them up.",
    "search": "The expert's search found this move does best.",
}


def move_text(hint: Hint, locale: str) -> str:
    """Name the hinted move as the private view's buttons do: "Play 2 × 7 (7♣ 7♥)"."""
    action = hint.action
    if isinstance(action, Play):
        return t("Play {play}", locale, play=play_label(action.cards, locale))
    if isinstance(action, PickUp) and action.add is not None:
        return t("Pick up (put {card} on the pile)", locale, card=card_text(action.add))
    if isinstance(action, PickUp):
        return t("Pick up the pile", locale)
    if isinstance(action, PlayStock):
        return t("Turn stock card", locale)
    assert isinstance(action, Flip)  # hints are given in play, where these are the moves
    return t("Turn face-down card {n}", locale, n=action.index + 1)


def hint_text(hint: Hint, locale: str) -> str:
    """Say a hint in one line: the move, then why."""
    rank = rank_word(hint.rank, locale) if hint.rank else ""
    reason = t(HINT_REASONS[hint.reason], locale, rank=rank, count=hint.count)
    return t("💡 **{move}.** {reason}", locale, move=move_text(hint, locale), reason=reason)


POWER_WORDS = {
    "anywhere": "plays on anything",
    "fits": "must fit",
    "reset": "resets",
    "glass": "is see-through",
    "lower": "next lower",
    "lower_equal": "next lower or equal",
    "burn": "burns",
    "reverse": "reverses",
    "skip": "skips",
}


def rules_summary(rules: RuleSet, preset: str, locale: str) -> str:
    """Sum up a rule set in a few lines for the lobby."""
    # A power of the joker means nothing when the decks have no jokers.
    powers = ", ".join(
        f"{rank_word(parse_rank(name), locale)}: "
        + "/".join(t(POWER_WORDS[word], locale) for word in (power.effects or (power.play,)))
        for name, power in rules.powers.items()
        if rules.jokers or parse_rank(name) != JOKER
    )
    decks = tn("1 deck", "{count} decks", rules.decks, locale)
    jokers = tn("1 joker a deck", "{count} jokers a deck", rules.jokers, locale)
    lines = [
        t("Preset: {preset}", locale, preset=preset),
        t(
            "{decks}, {jokers}; {down} face-down, {up} face-up, {hand} in hand",
            locale,
            decks=decks,
            jokers=jokers if rules.jokers else t("no jokers", locale),
            down=rules.table_cards,
            up=rules.table_cards,
            hand=rules.hand_size,
        ),
        t("Powers: {powers}", locale, powers=powers or t("none", locale)),
        t("{low} to {high} players", locale, low=rules.min_players, high=rules.max_players),
    ]
    extras = [
        (rules.deal == "choose", "players choose their face-up cards"),
        (rules.stacking, "stacking"),
        (rules.runs, "runs"),
        (rules.play_from_stock, "playing from the stock"),
        (not rules.voluntary_pickup, "pick up only when you can't play"),
        (rules.mode == "winner", "the first player out wins"),
    ]
    chosen = [t(text, locale) for wanted, text in extras if wanted]
    if chosen:
        lines.append(t("Also: {extras}", locale, extras=", ".join(chosen)))
    return "\n".join(lines)


# ---------------------------------------------------------------------- skill ratings


# CLDR's decimal sign of each catalog language, as Babel's `format_decimal` writes it (a
# test holds them to it); loading Babel's locale data would cost 5 MB of memory for English.
DECIMAL_SIGNS = {"en": ".", "de": ",", "da": ",", "pl": ",", "nl": ","}
_TENTH = Decimal("0.1")


def decimal_text(value: float, locale: str, *, signed: bool = False) -> str:
    """Write a number to one decimal, halves to even, the reader's way: "12.3", "12,3"."""
    text = str(Decimal(str(value)).quantize(_TENTH, rounding=ROUND_HALF_EVEN))
    if signed and not text.startswith("-"):
        text = "+" + text
    return text.replace(".", DECIMAL_SIGNS.get(locale, "."))


def rating_text(rating: Rating, locale: str) -> str:
    """Show the rating players see (the conservative mu - 3·sigma) to one decimal: "12.3"."""
    return decimal_text(rating.ordinal, locale)


def rating_change_text(delta: float, locale: str) -> str:
    """Show how far a rating moved, signed to one decimal: "+1.2", "-0.4", "±0.0"."""
    shown = round(delta, 1)
    if shown == 0:  # -0.0 too
        return "±" + decimal_text(0, locale)
    return decimal_text(shown, locale, signed=True)


def rating_line(name: str, change: Change, locale: str) -> str:
    """Show one player's rating change in a game: "Ana: 3.1 → 5.0 (+1.9)"."""
    before, after = rating_text(change.before, locale), rating_text(change.after, locale)
    return f"{name}: {before} → {after} ({rating_change_text(change.delta, locale)})"
