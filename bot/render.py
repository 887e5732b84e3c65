"""Engine views and events in words: cards, the pile's constraint, move lines, refusals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord

from bot.i18n import t
from engine.actions import Action, Flip, PickUp, Play, PlayStock
from engine.cards import JOKER, Card, parse_rank, rank_name
from engine.errors import ErrorCode, IllegalAction
from engine.events import (
    Burned,
    Event,
    GameOver,
    MarkedReady,
    PickedUp,
    Played,
    PlayStarted,
    Revealed,
    Reversed,
    Skipped,
    WentOut,
)
from engine.pile import Constraint
from engine.rules import RuleSet
from engine.views import PlayerView, SeatView, TableView, table_view

if TYPE_CHECKING:
    from bot.tables import Table

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
# Hand cards everyone saw picked up, shown per seat (the highest ones): six seats still fit
# in one embed field of 1024 characters.
KNOWN_SHOWN = 6


def rank_word(rank: int) -> str:
    """Name a rank in words: "7", "queen", "joker"."""
    words = {11: t("jack"), 12: t("queen"), 13: t("king"), 14: t("ace"), JOKER: t("joker")}
    return words.get(rank, rank_name(rank))


def card_text(card: Card) -> str:
    """Write a card with its suit symbol: 10♥, Q♠, 🃏."""
    if card.rank == JOKER:
        return "🃏"
    return f"{rank_name(card.rank)}{SUIT_SYMBOLS[card.suit or 'S']}"


def cards_text(cards: Sequence[Card]) -> str:
    """Write cards separated by spaces, or a dash when there are none."""
    return " ".join(card_text(card) for card in cards) or "—"


def some_cards_text(cards: Sequence[Card], limit: int) -> str:
    """Write the `limit` highest of `cards` (sorted) and say how many more there are."""
    if len(cards) <= limit:
        return cards_text(cards)
    more = len(cards) - limit
    return t("{cards} and {more} more", cards=cards_text(cards[-limit:]), more=more)


def play_label(cards: Sequence[Card]) -> str:
    """Describe a play for a menu: "two 7s (7♣ 7♥)", "run 5♥ 6♥ 7♥"."""
    if len({card.rank for card in cards}) > 1:
        return t("run {cards}", cards=cards_text(cards))
    if len(cards) == 1:
        return t("a {rank} ({cards})", rank=rank_word(cards[0].rank), cards=cards_text(cards))
    return t(
        "{count} × {rank} ({cards})",
        count=len(cards),
        rank=rank_word(cards[0].rank),
        cards=cards_text(cards),
    )


def constraint_text(constraint: Constraint) -> str:
    """Say what may go on the pile: "anything", "7 or higher", "lower than 7"."""
    rank = rank_word(constraint.value) if constraint.value else ""
    if constraint.kind == "at_least":
        text = t("{rank} or higher", rank=rank)
    elif constraint.kind == "lower":
        text = t("lower than {rank}", rank=rank)
    elif constraint.kind == "lower_equal":
        text = t("{rank} or lower", rank=rank)
    else:
        text = t("anything")
    if constraint.blocked:
        blocked = ", ".join(rank_word(r) for r in sorted(constraint.blocked))
        text = t("{text}, but no {blocked}", text=text, blocked=blocked)
    return text


def pile_text(table: TableView) -> str:
    """Describe the pile's top card and what may follow it."""
    top = table.pile_top
    if top is None:
        return t("empty — play anything")
    return t(
        "{top} ({count} cards) — play {allowed}",
        top=card_text(top),
        count=len(table.pile),
        allowed=constraint_text(table.constraint),
    )


def describe(events: Sequence[Event], names: Sequence[str]) -> list[str]:
    """Turn what `apply` returned into lines like "Ana burned the pile with a 10"."""
    lines: list[str] = []
    revealed: Card | None = None
    last_played: tuple[Card, ...] = ()
    for event in events:
        if isinstance(event, Revealed):
            revealed = event.card
            what = t("a face-down card") if event.zone == "face_down" else t("the stock card")
            lines.append(
                t(
                    "{name} turned {what}: {card}",
                    name=names[event.player],
                    what=what,
                    card=card_text(event.card),
                )
            )
        elif isinstance(event, Played):
            last_played = event.cards
            if revealed is None:
                where = t(" from the face-up cards") if event.zone == "face_up" else ""
                lines.append(
                    t(
                        "{name} played {cards}{where}",
                        name=names[event.player],
                        cards=cards_text(event.cards),
                        where=where,
                    )
                )
        elif isinstance(event, Burned):
            if event.reason == "power" and last_played:
                lines.append(
                    t(
                        "{name} burned the pile with a {rank}",
                        name=names[event.player],
                        rank=rank_word(last_played[-1].rank),
                    )
                )
            else:
                lines.append(
                    t("{name} burned the pile with four of a kind", name=names[event.player])
                )
        elif isinstance(event, PickedUp):
            lines.append(
                t(
                    "{name} picked up the pile ({count} cards)",
                    name=names[event.player],
                    count=event.count,
                )
            )
        elif isinstance(event, Skipped):
            lines.append(
                t("{names} skipped", names=", ".join(names[seat] for seat in event.players))
            )
        elif isinstance(event, Reversed):
            lines.append(t("the direction of play reversed"))
        elif isinstance(event, WentOut):
            lines.append(
                t("{name} is out (place {place})", name=names[event.player], place=event.place)
            )
        elif isinstance(event, GameOver) and event.loser is not None:
            lines.append(t("{name} is the Shithead!", name=names[event.loser]))
        elif isinstance(event, MarkedReady):
            lines.append(t("{name} is ready", name=names[event.player]))
        elif isinstance(event, PlayStarted):
            lines.append(t("{name} leads", name=names[event.first]))
    return lines


def refusal(error: IllegalAction, action: Action, table: TableView) -> str:
    """Put an engine refusal into friendly words: "a 5 can't go on a queen"."""
    top = table.pile_top
    if error.code == ErrorCode.CANNOT_BEAT and isinstance(action, Play) and top is not None:
        return t(
            "a {card} can't go on a {top}: play {allowed}",
            card=rank_word(action.cards[0].rank),
            top=rank_word(top.rank),
            allowed=constraint_text(table.constraint),
        )
    words = {
        ErrorCode.NOT_YOUR_TURN: t("it isn't your turn"),
        ErrorCode.WRONG_PHASE: t("that move isn't possible at this point of the game"),
        ErrorCode.NOT_HELD: t("you don't hold that card any more"),
        ErrorCode.MIXED_RANKS: t("cards played together must have the same rank"),
        ErrorCode.CANNOT_BEAT: t("that card can't go on the pile"),
        ErrorCode.PICKUP_NOT_ALLOWED: t("you can't pick up the pile now"),
    }
    if error.code in words:
        return words[error.code]
    if isinstance(action, PickUp | Flip | PlayStock):
        return t("that move isn't allowed now")
    return t("that move isn't allowed: {reason}", reason=error.message)


def rules_summary(rules: RuleSet, preset: str) -> str:
    """Sum up a rule set in a few lines for the lobby."""
    words = {
        "anywhere": t("plays on anything"),
        "fits": t("must fit"),
        "reset": t("resets"),
        "glass": t("is see-through"),
        "lower": t("next lower"),
        "lower_equal": t("next lower or equal"),
        "burn": t("burns"),
        "reverse": t("reverses"),
        "skip": t("skips"),
    }
    powers = ", ".join(
        f"{rank_word(parse_rank(name))}: "
        + "/".join(words[word] for word in (power.effects or (power.play,)))
        for name, power in rules.powers.items()
    )
    lines = [
        t("Preset: {preset}", preset=preset),
        t(
            "{decks} deck(s), {jokers} joker(s) a deck; {down} face-down, {up} face-up, "
            "{hand} in hand",
            decks=rules.decks,
            jokers=rules.jokers,
            down=rules.table_cards,
            up=rules.table_cards,
            hand=rules.hand_size,
        ),
        t("Powers: {powers}", powers=powers or t("none")),
        t("{low} to {high} players", low=rules.min_players, high=rules.max_players),
    ]
    extras = [
        (rules.deal == "choose", t("players choose their face-up cards")),
        (rules.stacking, t("stacking")),
        (rules.runs, t("runs")),
        (rules.play_from_stock, t("playing from the stock")),
        (not rules.voluntary_pickup, t("pick up only when you can't play")),
        (rules.mode == "winner", t("the first player out wins")),
    ]
    chosen = [text for wanted, text in extras if wanted]
    if chosen:
        lines.append(t("Also: {extras}", extras=", ".join(chosen)))
    return "\n".join(lines)


def seat_line(table: Table, view: SeatView) -> str:
    """One seat as everyone sees it: face-up cards, counts, hand cards all have seen."""
    seat = view.seat
    name = table.seats[seat].name
    up = cards_text([card for stack in view.face_up for card in stack])
    text = t(
        "{name} — hand {hand} · face-up {up} · face-down {down}",
        name=name,
        hand=view.hand_count,
        up=up,
        down=view.face_down_count,
    )
    if view.known:
        text += t(" · seen in hand {cards}", cards=some_cards_text(view.known, KNOWN_SHOWN))
    if table.phase == "setup":
        text += " ✅" if view.ready else " ⏳"
    if view.place is not None:
        text += t(" · out, place {place}", place=view.place)
    if table.seats[seat].removed:
        text += t(" · left")
    return text


def table_embed(table: Table) -> discord.Embed:
    """Draw the table message: seats, pile, turn, counts, the last moves, the result."""
    game = table.game
    title = t("Shithead table {id}", id=table.id)
    embed = discord.Embed(title=title, colour=discord.Colour.dark_green())
    if table.phase == "lobby":
        seats = "\n".join(f"{i + 1}. {seat.name}" for i, seat in enumerate(table.seats))
        embed.description = t("Waiting for players. The host starts the game.")
        embed.add_field(name=t("Seats"), value=seats or "—", inline=False)
        embed.add_field(
            name=t("Rules"), value=rules_summary(table.rules, table.preset), inline=False
        )
        return embed
    if table.phase == "closed":
        embed.description = t("This table is closed.")
        if table.log:
            embed.add_field(name=t("Last moves"), value="\n".join(table.log[-3:]), inline=False)
        return embed
    assert game is not None
    view = table_view(game)
    lines = []
    for seat in view.seats:
        marker = "▶ " if view.turn == seat.seat else "• "
        lines.append(marker + seat_line(table, seat))
    embed.add_field(name=t("Seats"), value="\n".join(lines), inline=False)
    if table.phase == "setup":
        embed.description = t(
            "Setup: look at your private view, arrange your cards and press Ready."
        )
    elif table.phase == "play" and view.turn is not None:
        direction = t("clockwise") if view.direction == 1 else t("anticlockwise")
        embed.description = t(
            "{name} to play · direction {direction}",
            name=table.names[view.turn],
            direction=direction,
        )
    embed.add_field(name=t("Pile"), value=pile_text(view), inline=False)
    embed.add_field(
        name=t("Cards"),
        value=t("stock {stock} · burned {burned}", stock=view.stock_count, burned=len(view.burned)),
        inline=False,
    )
    if table.phase == "over":
        order = [table.names[seat] for seat in view.finished]
        result = "\n".join(f"{i + 1}. {name}" for i, name in enumerate(order))
        if view.loser is not None:
            result += "\n" + t("💩 Shithead: {name}", name=table.names[view.loser])
        embed.add_field(name=t("Result"), value=result or "—", inline=False)
    if table.log:
        embed.add_field(name=t("Last moves"), value="\n".join(table.log), inline=False)
    return embed


def private_embed(table: Table, view: PlayerView, where: str) -> discord.Embed:
    """Draw a player's private view: their own cards, the pile, whose turn; nothing hidden."""
    seat = view.seat
    mine = view.table.seats[seat]
    embed = discord.Embed(
        title=t("Your cards at table {id}", id=table.id),
        description=where,
        colour=discord.Colour.blurple(),
    )
    embed.add_field(name=t("Hand"), value=cards_text(view.hand), inline=False)
    face_up = " ".join(cards_text(stack) for stack in mine.face_up) or "—"
    embed.add_field(name=t("Face-up"), value=face_up, inline=True)
    embed.add_field(name=t("Face-down"), value=str(mine.face_down_count), inline=True)
    embed.add_field(name=t("Pile"), value=pile_text(view.table), inline=False)
    turn = view.table.turn
    if table.phase == "setup":
        status = (
            t("You are ready; waiting for the others.")
            if mine.ready
            else t("Setup: swap or choose your face-up cards, then press Ready.")
        )
    elif table.phase == "over":
        loser = view.table.loser
        status = t("The game is over.")
        if loser is not None:
            status += " " + t("💩 Shithead: {name}", name=table.names[loser])
    elif turn == seat:
        status = t("**Your turn.**")
    else:
        status = t("{name} is playing.", name=table.names[turn or 0])
    embed.add_field(name=t("Turn"), value=status, inline=False)
    embed.set_footer(
        text=t("table {id} · view {version}", id=table.id, version=table.seats[seat].version)
    )
    return embed
