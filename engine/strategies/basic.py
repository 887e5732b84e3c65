"""The `basic` strategy: a sensible player that keeps power cards and plays low."""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from engine.actions import Action, Choose, Flip, PickUp, Play, PlayStock, Ready, Stack, Swap
from engine.cards import ALL_RANKS, Card, sort_key
from engine.game import Game
from engine.pile import PowerTable, four_of_a_kind_on_top
from engine.rules import RuleSet
from engine.seats import next_active
from engine.strategies.base import SeededStrategy
from engine.views import PlayerView

# A card that plays anywhere costs more to give up than any normal card.
ANYWHERE_BASE = 20.0
# How much worse the next player's position must be before we play high to starve them.
DANGER_CARDS = 3
# Once the stock is empty, a little noise in the costs breaks the endgame loops that two
# deterministic players would otherwise repeat until the stalemate cap.
ENDGAME_NOISE = 2.0
# Chance that an endgame decision ignores the "starve the next player" rule, and chance that
# it plays any legal play: both only break loops (measured: stalemates fall below 1%).
DANGER_SKIP = 0.5
ENDGAME_EPSILON = 0.05
# Leading after a pick-up is where the loops restart (Dutch sevens): more noise there.
ENDGAME_LEAD_EPSILON = 0.3
# The next player's card count when no one else is still in: too many to be in danger.
NO_NEXT_PLAYER = 99


class CardValues:
    """Per-rank worth for one rule set: what a card is worth keeping, what playing it costs."""

    __slots__ = ("keep", "rules", "table")

    def __init__(self, rules: RuleSet) -> None:
        """Compile the rule set's powers into per-rank costs."""
        self.rules = rules
        self.table = PowerTable(rules)
        table = self.table
        size = max(ALL_RANKS) + 1
        self.keep = [0.0] * size
        for rank in ALL_RANKS:
            extra = 0.0
            if table.burn[rank]:
                extra += 3.0
            if table.reset[rank]:
                extra += 1.0
            if table.glass[rank]:
                extra += 1.5
            if table.lower[rank] or table.lower_equal[rank]:
                extra += 1.0
            if table.skip[rank] or table.reverse[rank]:
                extra += 0.5
            if table.anywhere[rank]:
                self.keep[rank] = ANYWHERE_BASE + extra
            elif table.powered[rank]:
                self.keep[rank] = rank + 2.0 * extra
            else:
                self.keep[rank] = float(rank)

    def card_key(self, card: Card) -> tuple[float, tuple[int, int]]:
        """Order cards by worth, weakest first (then by rank and suit, for stability)."""
        return self.keep[card.rank], sort_key(card)


_CACHE_LOCK = threading.Lock()
_CACHE: dict[int, CardValues] = {}


def values_for(rules: RuleSet) -> CardValues:
    """Return the (cached) card values of `rules`."""
    found = _CACHE.get(id(rules))
    if found is not None and found.rules is rules:
        return found
    values = CardValues(rules)
    with _CACHE_LOCK:
        if len(_CACHE) > 64:
            _CACHE.clear()
        _CACHE[id(rules)] = values
    return values


@dataclass(frozen=True, slots=True)
class Situation:
    """What the basic player looks at: its own cards, the pile and the next player's count."""

    values: CardValues
    legal: Sequence[Action]
    hand: Sequence[Card]
    face_up: Sequence[Sequence[Card]]
    pile: Sequence[Card]
    stock_count: int
    next_held: int
    chosen: bool = True


def situation_of_view(view: PlayerView) -> Situation:
    """Read a situation from a player view."""
    table = view.table
    seats = table.seats
    me = view.seat
    nxt = next_active([seat.out for seat in seats], me, table.direction)
    next_held = NO_NEXT_PLAYER
    if nxt != me:
        seat = seats[nxt]
        next_held = seat.hand_count + sum(map(len, seat.face_up)) + seat.face_down_count
    return Situation(
        values=values_for(table.rules),
        legal=view.legal,
        hand=view.hand,
        face_up=seats[me].face_up,
        pile=table.pile,
        stock_count=table.stock_count,
        next_held=next_held,
        chosen=view.chosen,
    )


def situation_of_game(game: Game, seat: int, legal: Sequence[Action]) -> Situation:
    """Read a situation straight from a game (for the expert's rollouts; sees only `seat`'s own)."""
    nxt = next_active(game.out, seat, game.direction)
    next_held = NO_NEXT_PLAYER if nxt == seat else game.cards_held(nxt)
    return Situation(
        values=values_for(game.rules),
        legal=legal,
        hand=game.hands[seat],
        face_up=game.face_up[seat],
        pile=game.pile,
        stock_count=len(game.stock),
        next_held=next_held,
    )


def play_cost(situation: Situation, cards: Sequence[Card], starve: bool = True) -> float:
    """Say how much a play costs us (lower is better); `starve` allows playing high."""
    values = situation.values
    table = values.table
    keep = values.keep
    rules = values.rules
    pile = situation.pile
    first = cards[0].rank
    count = len(cards)
    if any(card.rank != first for card in cards):
        # A run sheds several cards at once; it costs its most precious card.
        return max(keep[card.rank] for card in cards) - 1.5 * (count - 1)
    # Starve a player about to go out, but lead low: a high lead only bounces back and forth.
    danger = (
        starve and bool(pile) and situation.stock_count == 0 and situation.next_held <= DANGER_CARDS
    )
    if table.anywhere[first]:
        # Spend special cards one at a time, and a burn rather on a big pile.
        cost = keep[first] + 3.0 * (count - 1)
        if table.burn[first]:
            cost -= min(len(pile), 12) * 0.4
        if danger and (table.lower[first] or table.lower_equal[first]):
            cost -= 4.0
    elif table.powered[first]:
        cost = keep[first] - 0.5 * (count - 1)
        if danger and (table.lower[first] or table.lower_equal[first] or table.skip[first]):
            cost -= 6.0
    else:
        # Play low and shed every copy; with the next player nearly out, play high to starve them.
        cost = (16.0 - first if danger else float(first)) - 0.5 * (count - 1)
    if not table.burn[first]:
        on_top = four_of_a_kind_on_top(pile) if pile and pile[-1].rank == first else 0
        completes = (rules.four_of_a_kind == "pile" and on_top + count >= 4) or (
            rules.four_of_a_kind == "play" and count >= 4
        )
        if completes:
            cost -= 6.0 + min(len(pile), 12) * 0.2
    return cost


def _best_play(situation: Situation, plays: Sequence[Play], rng: random.Random) -> Play:
    """Pick the cheapest play (the first of equal cost), with a little noise in the endgame."""
    if situation.stock_count == 0 and len(plays) > 1:
        epsilon = ENDGAME_EPSILON if situation.pile else ENDGAME_LEAD_EPSILON
        if rng.random() < epsilon:
            return rng.choice(plays)
        starve = rng.random() >= DANGER_SKIP
        return min(
            plays,
            key=lambda play: (
                play_cost(situation, play.cards, starve) + rng.random() * ENDGAME_NOISE
            ),
        )
    return min(plays, key=lambda play: play_cost(situation, play.cards))


def _pickup(situation: Situation, pickups: Sequence[PickUp]) -> PickUp:
    """Pick up, adding our weakest face-up card when a card must be added."""
    values = situation.values
    return min(
        pickups,
        key=lambda action: values.card_key(action.add) if action.add is not None else (0.0, (0, 0)),
    )


def choose_play(situation: Situation, rng: random.Random) -> Action:
    """Pick a play-phase action: cheapest play, else the stock, else pick up."""
    plays: list[Play] = []
    pickups: list[PickUp] = []
    flips: list[Flip] = []
    stock: PlayStock | None = None
    for action in situation.legal:
        if isinstance(action, Play):
            plays.append(action)
        elif isinstance(action, PickUp):
            pickups.append(action)
        elif isinstance(action, Flip):
            flips.append(action)
        elif isinstance(action, PlayStock):
            stock = action
    if flips:
        return rng.choice(flips)
    if plays:
        # Picking up a pile when a play exists only fed loops in measurements: never do it.
        return _best_play(situation, plays, rng)
    if stock is not None:
        return stock
    if pickups:
        return _pickup(situation, pickups)
    return situation.legal[0]


def choose_setup(situation: Situation) -> Action:
    """Pick a setup action: strongest cards face up, stack equal cards, then ready."""
    values = situation.values
    legal = situation.legal
    chooses = [action for action in legal if isinstance(action, Choose)]
    if chooses:
        size = len(chooses[0].cards)
        pool = list(situation.hand) + [card for stack in situation.face_up for card in stack]
        best = sorted(pool, key=values.card_key, reverse=True)[:size]
        wanted = tuple(sorted(best, key=sort_key))
        current = tuple(sorted((c for stack in situation.face_up for c in stack), key=sort_key))
        if situation.chosen and current == wanted:
            chooses = []
        for action in chooses:
            if tuple(sorted(action.cards, key=sort_key)) == wanted:
                return action
        if chooses and not situation.chosen:
            return max(chooses, key=lambda action: sum(values.keep[c.rank] for c in action.cards))
    swaps = [action for action in legal if isinstance(action, Swap)]
    if swaps:
        best_swap = max(
            swaps,
            key=lambda s: (
                values.keep[s.hand_card.rank] - values.keep[s.face_up_card.rank],
                values.card_key(s.hand_card),
            ),
        )
        if values.keep[best_swap.hand_card.rank] > values.keep[best_swap.face_up_card.rank]:
            return best_swap
    stacks = [action for action in legal if isinstance(action, Stack)]
    if stacks:
        return max(stacks, key=lambda s: (len(s.cards), values.card_key(s.cards[0])))
    for candidate in legal:
        if isinstance(candidate, Ready):
            return candidate
    return legal[0]


def choose_basic(situation: Situation, rng: random.Random, setup: bool) -> Action:
    """Pick the basic player's action in `situation`."""
    if setup:
        return choose_setup(situation)
    return choose_play(situation, rng)


class BasicStrategy(SeededStrategy):
    """Keep power cards, play low, starve a player about to go out, pick up only when forced."""

    name = "basic"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        """Pick the sensible action."""
        return choose_basic(situation_of_view(view), rng, view.table.phase == "setup")
