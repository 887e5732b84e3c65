"""A player's controls for one view, and turning a click back into an engine action.

The private view draws its components from these lists and a click names an index into
them, so the same lists (built from the same view version) resolve the click. Only the
player's own hand and face-up cards appear; face-down cards are named by position.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action, Choose, Flip, PickUp, Play, PlayStock, Ready, Stack, Swap
from engine.cards import Card, sort_key
from engine.views import PlayerView

# Discord's limits: 25 options a select, 5 rows a message.
MAX_OPTIONS = 25
MAX_PLAY_MENUS = 3


@dataclass(frozen=True, slots=True)
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


def controls(view: PlayerView) -> Controls:
    """Group the view's legal actions into the controls the private view offers."""
    legal = view.legal
    plays = tuple(a for a in legal if isinstance(a, Play))
    swaps = [a for a in legal if isinstance(a, Swap)]
    chooses = [a for a in legal if isinstance(a, Choose)]
    pool: tuple[Card, ...] = ()
    if chooses:
        seat = view.table.seats[view.seat]
        own = list(view.hand) + [card for stack in seat.face_up for card in stack]
        pool = tuple(sorted(own, key=sort_key))
    return Controls(
        plays=_fit(plays),
        pickups=tuple(a for a in legal if isinstance(a, PickUp)),
        flips=tuple(a for a in legal if isinstance(a, Flip)),
        stock=next((a for a in legal if isinstance(a, PlayStock)), None),
        swap_hand=tuple(sorted({a.hand_card for a in swaps}, key=sort_key)),
        swap_face_up=tuple(sorted({a.face_up_card for a in swaps}, key=sort_key)),
        choose_pool=pool,
        choose_count=len(chooses[0].cards) if chooses else 0,
        stacks=tuple(a for a in legal if isinstance(a, Stack)),
        ready=next((a for a in legal if isinstance(a, Ready)), None),
    )


def _fit(plays: tuple[Play, ...]) -> tuple[Play, ...]:
    """Keep the plays within the menus a message holds: drop middle counts, then long runs."""
    room = MAX_OPTIONS * MAX_PLAY_MENUS
    if len(plays) <= room:
        return plays
    singles = [p for p in plays if len({c.rank for c in p.cards}) == 1]
    runs = [p for p in plays if len({c.rank for c in p.cards}) > 1]
    most: dict[int, int] = {}
    for play in singles:
        rank = play.cards[0].rank
        most[rank] = max(most.get(rank, 0), len(play.cards))
    kept = [p for p in singles if len(p.cards) in (1, 2, most[p.cards[0].rank])]
    return tuple(kept + runs[: max(0, room - len(kept))])[:room]


def resolve(view: PlayerView, verb: str, numbers: tuple[int, ...]) -> Action | None:
    """Turn a click (verb and indexes) into the action it stands for, or None if it is none."""
    c = controls(view)
    try:
        if verb == "play" and len(numbers) == 1:
            return c.plays[numbers[0]]
        if verb == "pickup" and len(numbers) == 1:
            return c.pickups[numbers[0]]
        if verb == "flip" and len(numbers) == 1:
            return c.flips[numbers[0]]
        if verb == "stock" and not numbers:
            return c.stock
        if verb == "swap" and len(numbers) == 2:
            return Swap(view.seat, c.swap_hand[numbers[0]], c.swap_face_up[numbers[1]])
        if (
            verb == "choose"
            and len(numbers) == c.choose_count
            and len(set(numbers)) == len(numbers)
        ):
            return Choose(view.seat, tuple(c.choose_pool[i] for i in sorted(numbers)))
        if verb == "stack" and len(numbers) == 1:
            return c.stacks[numbers[0]]
        if verb == "ready" and not numbers:
            return c.ready
    except IndexError:
        return None
    return None
