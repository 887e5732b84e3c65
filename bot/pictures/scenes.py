"""What a picture shows, as plain data: the cards a reader may see and the words, translated.

A scene is built from the public table view and, for a hand, the seat's own player view
only: a card that is not in them cannot be drawn. Its key fingerprints everything drawn, so
two equal scenes draw the same picture and an unchanged picture need not be sent again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import groupby
from typing import Literal

from bot.i18n import t, tn
from bot.pictures.fonts import printable
from bot.words import seat_name
from engine.cards import Card, rank_name
from engine.pile import Constraint, power_table
from engine.views import SeatView, TableView
from tables.outcome import Snapshot

# Bump when the drawing changes: every key changes, so every picture is drawn and sent anew.
DRAWING = "1"
# The pile's top cards shown fanned out; the rest is its count.
PILE_SHOWN = 5
# A name is kept to this many characters; the drawing cuts it further to its room.
NAME_CHARS = 48

# A hand of more cards than this is shown grouped by rank, with counts.
LOOSE = 24

MarkKind = Literal["place", "out", "loser", "left", "ready"]


@dataclass(frozen=True)
class Stack:
    """Cards shown as one stack: face-up cards stacked, or a hand's cards of one rank."""

    cards: tuple[Card, ...]
    # How many it holds ("×3"); empty for a single card.
    words: str


@dataclass(frozen=True)
class Mark:
    """A label on a seat: its place, out, the Shithead, left, ready."""

    kind: MarkKind
    words: str


@dataclass(frozen=True)
class SeatScene:
    """One seat on the table picture."""

    name: str
    hand: int
    hand_words: str
    face_up: tuple[Stack, ...]
    face_down: int
    to_act: bool
    marks: tuple[Mark, ...]


@dataclass(frozen=True)
class TableScene:
    """The table picture: a status line, the pile's top, what may follow, counts, seats."""

    status: str
    pile: tuple[Card, ...]
    glass: tuple[bool, ...]
    # Edges of cards below those shown (at most 3): a deeper pile looks deeper.
    edges: int
    pile_words: str
    rule: str
    blocked: str
    stock: int
    stock_words: str
    burned: int
    burned_words: str
    # Places for table cards in a seat's tile: the rules' number, or more if a seat has more.
    slots: int
    seats: tuple[SeatScene, ...]


@dataclass(frozen=True)
class HandScene:
    """The hand picture: a seat's own hand, face-up cards and face-down count."""

    title: str
    # The hand's cards one by one, or (more than `LOOSE`) grouped by rank.
    cards: tuple[Card, ...]
    groups: tuple[Stack, ...]
    face_up: tuple[Stack, ...]
    face_down: int
    face_up_words: str
    face_down_words: str
    empty_words: str


def fingerprint(kind: str, scene: TableScene | HandScene) -> str:
    """Fingerprint a scene: equal scenes, equal keys; any shown change, another key."""
    # A scene holds only strings, numbers, booleans, cards and tuples: its repr is stable.
    text = f"{DRAWING}|{kind}|{scene!r}"
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def rule_words(constraint: Constraint, locale: str) -> tuple[str, str]:
    """Say what may go on the pile in a badge ("≥ 7", "anything") and what is barred."""
    rank = rank_name(constraint.value) if constraint.value else ""
    if constraint.kind == "at_least":
        rule = t("≥ {rank}", locale, rank=rank)
    elif constraint.kind == "lower":
        rule = t("< {rank}", locale, rank=rank)
    elif constraint.kind == "lower_equal":
        rule = t("≤ {rank}", locale, rank=rank)
    else:
        rule = t("anything", locale)
    blocked = ""
    if constraint.blocked:
        ranks = ", ".join(rank_name(each) for each in sorted(constraint.blocked))
        blocked = t("no {ranks}", locale, ranks=ranks)
    return rule, blocked


def stack(cards: tuple[Card, ...], locale: str) -> Stack:
    """Show cards as a stack, with their count when there is more than one."""
    words = t("×{count}", locale, count=len(cards)) if len(cards) > 1 else ""
    return Stack(cards, words)


def _name(snapshot: Snapshot, seat: int, locale: str) -> str:
    """Name a seat as drawn: a member's own name unescaped, else the computer's words."""
    each = snapshot.seats[seat]
    raw = each.name if each.computer is None else seat_name(snapshot, seat, locale)
    name = printable(raw)[:NAME_CHARS]
    return name or t("Seat {number}", locale, number=seat + 1)


def _marks(snapshot: Snapshot, table: TableView, view: SeatView, locale: str) -> tuple[Mark, ...]:
    """Label a seat: its place or out, the Shithead, left, ready in setup."""
    marks: list[Mark] = []
    if table.loser == view.seat:
        marks.append(Mark("loser", t("Shithead", locale)))
    elif view.place is not None:
        marks.append(Mark("place", t("place {place}", locale, place=view.place)))
    elif view.out:
        marks.append(Mark("out", t("out", locale)))
    if snapshot.seats[view.seat].removed:
        marks.append(Mark("left", t("left", locale)))
    if snapshot.phase == "setup" and view.ready:
        marks.append(Mark("ready", t("ready", locale)))
    return tuple(marks)


def _status(snapshot: Snapshot, table: TableView, locale: str) -> str:
    """Say in one line where the game is: whose turn, setup, over, closed."""
    if snapshot.phase == "closed":
        return t("This table is closed.", locale)
    if snapshot.phase == "setup":
        return t("Setup: the players arrange their cards", locale)
    if snapshot.phase == "over":
        text = t("The game is over.", locale)
        if table.loser is not None:
            loser = _name(snapshot, table.loser, locale)
            text += " " + t("Shithead: {name}", locale, name=loser)
        elif table.winner is not None:
            winner = _name(snapshot, table.winner, locale)
            text += " " + t("Winner: {name}", locale, name=winner)
        return text
    if table.turn is None:
        return ""
    direction = t("clockwise", locale) if table.direction == 1 else t("anticlockwise", locale)
    return t(
        "{name} to play · direction {direction}",
        locale,
        name=_name(snapshot, table.turn, locale),
        direction=direction,
    )


def table_scene(snapshot: Snapshot, locale: str) -> TableScene | None:
    """Build what the table picture shows: the public view only; None before a game."""
    table = snapshot.public
    if table is None:
        return None
    # Which cards are see-through is the engine's rule (its power table), not ours.
    glass = power_table(table.rules).glass
    shown = table.pile[-PILE_SHOWN:]
    rule, blocked = rule_words(table.constraint, locale)
    count = len(table.pile)
    pile_words = (
        tn("{count} card on the pile", "{count} cards on the pile", count, locale)
        if count
        else t("The pile is empty", locale)
    )
    seats = tuple(
        SeatScene(
            name=_name(snapshot, view.seat, locale),
            hand=view.hand_count,
            hand_words=tn("{count} card in hand", "{count} cards in hand", view.hand_count, locale),
            face_up=tuple(stack(cards, locale) for cards in view.face_up),
            face_down=view.face_down_count,
            to_act=snapshot.phase == "play" and table.turn == view.seat,
            marks=_marks(snapshot, table, view, locale),
        )
        for view in table.seats
    )
    return TableScene(
        status=_status(snapshot, table, locale),
        pile=shown,
        glass=tuple(glass[card.rank] for card in shown),
        edges=min(3, count - len(shown)),
        pile_words=pile_words,
        rule=rule,
        blocked=blocked,
        stock=table.stock_count,
        stock_words=t("stock", locale),
        burned=len(table.burned),
        burned_words=t("burned", locale),
        slots=max(
            [table.rules.table_cards]
            + [max(len(view.face_up), view.face_down_count) for view in table.seats]
        ),
        seats=seats,
    )


def hand_scene(snapshot: Snapshot, seat: int, locale: str) -> HandScene | None:
    """Build what a seat's hand picture shows: their own view; None without one."""
    player = snapshot.private.get(seat)
    if player is None:
        return None
    mine = player.table.seats[seat]
    hand = player.hand
    grouped = len(hand) > LOOSE
    groups = (
        tuple(stack(tuple(cards), locale) for _, cards in groupby(hand, key=lambda c: c.rank))
        if grouped
        else ()
    )
    return HandScene(
        title=tn("Your hand: {count} card", "Your hand: {count} cards", len(hand), locale),
        cards=() if grouped else hand,
        groups=groups,
        face_up=tuple(stack(cards, locale) for cards in mine.face_up),
        face_down=mine.face_down_count,
        face_up_words=t("Face-up", locale),
        face_down_words=t("Face-down", locale),
        empty_words=t("No cards in hand", locale),
    )
