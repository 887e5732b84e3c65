"""Cards and decks: ranks 2..A valued 2..14, suits C D H S, and the joker."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Literal, NamedTuple

Suit = Literal["C", "D", "H", "S"]

SUITS: tuple[Suit, ...] = ("C", "D", "H", "S")
JOKER = 15
RANK_NAMES: dict[int, str] = {
    **{value: str(value) for value in range(2, 11)},
    11: "J",
    12: "Q",
    13: "K",
    14: "A",
    JOKER: "JK",
}
RANKS_BY_NAME: dict[str, int] = {name: value for value, name in RANK_NAMES.items()}
NORMAL_RANKS: tuple[int, ...] = tuple(range(2, 15))
ALL_RANKS: tuple[int, ...] = (*NORMAL_RANKS, JOKER)
_CARD = re.compile(r"(10|[2-9JQKA])([CDHS])")


class CardError(ValueError):
    """A card, or a rank, is written wrongly."""


class _CardFields(NamedTuple):
    rank: int
    suit: Suit | None


class Card(_CardFields):
    """One card; jokers have rank `JOKER` and no suit.

    Each card is one shared object: building a card (dealing, parsing, unpickling a game
    from a move worker) returns the instance made once, so piles hold references only.
    Cards compare as (rank, suit) tuples, the suits' letters in `SUITS` order: `sorted`
    without a key orders them as `sort_key` does (jokers alike), with no call per card.
    """

    __slots__ = ()

    def __new__(cls, rank: int, suit: Suit | None) -> Card:
        """Return the one shared card of this rank and suit."""
        shared = _SHARED.get((rank, suit))
        if shared is None:
            shared = super().__new__(cls, rank, suit)
            # Only real ranks and suits are kept, so odd input cannot grow the table.
            if rank in RANK_NAMES and (suit is None or suit in SUITS):
                _SHARED[(rank, suit)] = shared
        return shared

    def __str__(self) -> str:
        if self.rank == JOKER:
            return "JK"
        return f"{RANK_NAMES[self.rank]}{self.suit}"


# The shared cards by (rank, suit), made on first use.
_SHARED: dict[tuple[int, Suit | None], Card] = {}


def parse_card(text: str, *, strict: bool = False) -> Card:
    """Read a card written as rank+suit (`10H`, `QS`) or `JK`.

    Spaces around it and lower case are forgiven, unless `strict` (rule scenarios): then
    only the exact form, rank then suit, upper case, no spaces, is a card.
    """
    if not isinstance(text, str):
        raise CardError(f"a card is written as text like '10H' or 'JK', not {text!r}")
    cleaned = text if strict else text.strip().upper()
    if cleaned == "JK":
        return Card(JOKER, None)
    match = _CARD.fullmatch(cleaned)
    if match is None:
        form = "rank then suit, upper case, no spaces" if strict else "rank+suit"
        raise CardError(f"{text!r} is not a card (write {form} like '10H', 'QS', or 'JK')")
    suit: Suit = match.group(2)  # type: ignore[assignment]
    return Card(RANKS_BY_NAME[match.group(1)], suit)


def parse_cards(texts: Iterable[str], *, strict: bool = False) -> list[Card]:
    """Read several cards (`strict` as for `parse_card`)."""
    return [parse_card(text, strict=strict) for text in texts]


def parse_rank(text: str) -> int:
    """Read a rank name: 2..10, J, Q, K, A or JK."""
    rank = RANKS_BY_NAME.get(str(text).strip().upper())
    if rank is None:
        raise CardError(f"{text!r} is not a rank (use 2-10, J, Q, K, A or JK)")
    return rank


def rank_name(rank: int) -> str:
    """Name a rank as the rules write it."""
    return RANK_NAMES[rank]


class _Texts(dict[Card, str]):
    """Each real card's text, written on first use: a pure cache keyed by the card."""

    def __missing__(self, card: Card) -> str:
        text = str(card)
        # Only real ranks and suits are kept, as with the shared cards.
        if card.rank in RANK_NAMES and (card.suit is None or card.suit in SUITS):
            self[card] = text
        return text


# Every save writes each card of a game again (hands, stock, pile, burned ones).
_TEXTS = _Texts()


# One card as text, from the shared table: a save maps it over each list of a game.
card_text: Callable[[Card], str] = _TEXTS.__getitem__


def format_cards(cards: Iterable[Card]) -> list[str]:
    """Write cards as text."""
    return list(map(card_text, cards))


def make_deck(decks: int, jokers: int) -> list[Card]:
    """Build `decks` standard decks, each with `jokers` jokers, in a fixed order."""
    one = [Card(rank, suit) for suit in SUITS for rank in NORMAL_RANKS]
    one += [Card(JOKER, None)] * jokers
    return one * decks


_SUIT_ORDER = {suit: index for index, suit in enumerate(SUITS)}


def sort_key(card: Card) -> tuple[int, int]:
    """Order cards by rank, then suit."""
    return card.rank, (_SUIT_ORDER[card.suit] if card.suit else len(SUITS))
