"""A player's choices for one view, in lists, and turning an intent's indexes into an action.

The private view draws its components from these lists and a click names an index into
them, so the same lists (built from the same view version) resolve the click. Only the
player's own hand and face-up cards appear; face-down cards are named by position.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action, Choose, Flip, PickUp, Play, PlayStock, Ready, Stack, Swap
from engine.cards import Card
from engine.views import PlayerView
from tables.intents import (
    ChooseFaceUp,
    FlipCard,
    GameIntent,
    MarkReady,
    PickUpPile,
    PlayCards,
    StackCards,
    SwapCards,
    TurnStock,
)

# The most plays a player is offered at once (three menus of 25 in a Discord message); a
# picked-up pile of 40 cards can make more, and the middle counts and long runs go first.
MAX_PLAYS = 75


# A value: never change one after it is made. Not frozen: every new view of a seat groups
# its choices, and a frozen dataclass sets each field through `object.__setattr__`.
@dataclass(slots=True, unsafe_hash=True)
class Controls:
    """Everything a player may do now, grouped the way the private view shows it."""

    plays: tuple[Play, ...]
    pickups: tuple[PickUp, ...]
    flips: tuple[Flip, ...]
    stock: PlayStock | None
    swap_hand: tuple[Card, ...]
    swap_face_up: tuple[Card, ...]
    choose_pool: tuple[Card, ...]
    choose_count: int
    stacks: tuple[Stack, ...]
    ready: Ready | None


# A view with nothing to do (every seat but the one to play): one shared value, as most
# views are such, instead of an empty grouping made at each of their redraws.
NO_CONTROLS = Controls(
    plays=(),
    pickups=(),
    flips=(),
    stock=None,
    swap_hand=(),
    swap_face_up=(),
    choose_pool=(),
    choose_count=0,
    stacks=(),
    ready=None,
)


def controls(view: PlayerView) -> Controls:
    """Group the view's legal actions into the lists the private view offers."""
    if not view.legal:
        return NO_CONTROLS
    # One pass over the legal actions, plays first: every redraw and every click groups them.
    plays: list[Play] = []
    pickups: list[PickUp] = []
    flips: list[Flip] = []
    swaps: list[Swap] = []
    chooses: list[Choose] = []
    stacks: list[Stack] = []
    stock: PlayStock | None = None
    ready: Ready | None = None
    for action in view.legal:
        if isinstance(action, Play):
            plays.append(action)
        elif isinstance(action, PickUp):
            pickups.append(action)
        elif isinstance(action, Flip):
            flips.append(action)
        elif isinstance(action, Swap):
            swaps.append(action)
        elif isinstance(action, Choose):
            chooses.append(action)
        elif isinstance(action, Stack):
            stacks.append(action)
        elif isinstance(action, PlayStock):
            stock = action if stock is None else stock
        elif isinstance(action, Ready):
            ready = action if ready is None else ready
    # Cards sort as they compare, by rank then suit (`Card`); setup's lists only in setup.
    pool: tuple[Card, ...] = ()
    if chooses:
        # The choose deal picks face-up cards from the hand and the current face-up cards.
        seat = view.table.seats[view.seat]
        own = list(view.hand) + [card for stack in seat.face_up for card in stack]
        pool = tuple(sorted(own))
    swap_hand: tuple[Card, ...] = ()
    swap_face_up: tuple[Card, ...] = ()
    if swaps:
        swap_hand = tuple(sorted({a.hand_card for a in swaps}))
        swap_face_up = tuple(sorted({a.face_up_card for a in swaps}))
    return Controls(
        plays=_fit(tuple(plays)),
        pickups=_one_per_rank(tuple(pickups)),
        flips=tuple(flips),
        stock=stock,
        swap_hand=swap_hand,
        swap_face_up=swap_face_up,
        choose_pool=pool,
        choose_count=len(chooses[0].cards) if chooses else 0,
        stacks=tuple(stacks),
        ready=ready,
    )


def _one_per_rank(pickups: tuple[PickUp, ...]) -> tuple[PickUp, ...]:
    """Offer one way to pick up per rank of the face-up card put on the pile first.

    With Karma stacks every card of a stack may be the one added; which suit goes changes
    nothing for the player, and a button per card would not fit in a message.
    """
    seen: set[int | None] = set()
    kept = []
    for pickup in pickups:
        rank = pickup.add.rank if pickup.add is not None else None
        if rank not in seen:
            seen.add(rank)
            kept.append(pickup)
    return tuple(kept)


def _fit(plays: tuple[Play, ...]) -> tuple[Play, ...]:
    """Keep at most `MAX_PLAYS` plays: drop middle counts of a rank, then long runs."""
    if len(plays) <= MAX_PLAYS:
        return plays
    singles = [p for p in plays if len({c.rank for c in p.cards}) == 1]
    runs = [p for p in plays if len({c.rank for c in p.cards}) > 1]
    most: dict[int, int] = {}
    for play in singles:
        rank = play.cards[0].rank
        most[rank] = max(most.get(rank, 0), len(play.cards))
    kept = [p for p in singles if len(p.cards) in (1, 2, most[p.cards[0].rank])]
    return tuple(kept + runs[: max(0, MAX_PLAYS - len(kept))])[:MAX_PLAYS]


def resolve(view: PlayerView, intent: GameIntent, grouped: Controls | None = None) -> Action | None:
    """Turn an intent's indexes into the action they stand for in `view`, or None.

    `grouped` is `controls(view)` when the caller has it already.
    """
    c = controls(view) if grouped is None else grouped
    try:
        if isinstance(intent, PlayCards):
            return c.plays[_index(intent.index)]
        if isinstance(intent, PickUpPile):
            return c.pickups[_index(intent.index)]
        if isinstance(intent, FlipCard):
            return c.flips[_index(intent.index)]
        if isinstance(intent, TurnStock):
            return c.stock
        if isinstance(intent, SwapCards):
            hand = c.swap_hand[_index(intent.hand)]
            face_up = c.swap_face_up[_index(intent.face_up)]
            return Swap(view.seat, hand, face_up)
        if isinstance(intent, ChooseFaceUp):
            picked = intent.indexes
            if len(picked) != c.choose_count or len(set(picked)) != len(picked):
                return None
            return Choose(view.seat, tuple(c.choose_pool[_index(i)] for i in sorted(picked)))
        if isinstance(intent, StackCards):
            return c.stacks[_index(intent.index)]
        if isinstance(intent, MarkReady):
            return c.ready
    except IndexError:
        return None
    return None


def _index(value: int) -> int:
    """Refuse negative indexes (Python would count them from the end)."""
    if value < 0:
        raise IndexError(value)
    return value
