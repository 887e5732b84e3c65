"""Hints for practice: the move a strategy would make from a player's view, and why.

The reason is data (a code and its parameters), never words: the shell says it in the
player's language. It explains the chosen action against the view alone, so it works
whatever strategy chose it, and the hint can depend on nothing the view hides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from engine.actions import Action, Flip, PickUp, Play, PlayStock
from engine.pile import PowerTable, four_of_a_kind_on_top
from engine.seats import next_active
from engine.strategies import Strategy, get_strategy
from engine.views import PlayerView

Reason = Literal[
    "nothing_fits",
    "pick_up",
    "stock",
    "stock_saves",
    "blind",
    "burns",
    "four_burns",
    "run",
    "only_special",
    "lowest_set",
    "keeps_special",
    "lowest",
    "starve",
    "search",
]
# The next player is "nearly out" with this many cards or fewer (and the stock empty).
NEARLY_OUT = 3
DEFAULT_STRATEGY = "expert"


@dataclass(frozen=True, slots=True)
class Hint:
    """A move and why: `rank` and `count` are the reason's parameters (0 when unused)."""

    action: Action
    reason: Reason
    rank: int = 0
    count: int = 0


def hint(
    view: PlayerView,
    seed: int,
    strategy: str = DEFAULT_STRATEGY,
    factory: Callable[[str, int], Strategy] = get_strategy,
) -> Hint:
    """Ask a strategy for the move it would make in `view`, and explain it."""
    return explain(view, factory(strategy, seed).choose(view))


def explain(view: PlayerView, action: Action) -> Hint:
    """Say why `action` is a good move in `view`, from what the view shows only."""
    legal = view.legal
    if isinstance(action, PickUp):
        playable = any(isinstance(other, Play | PlayStock) for other in legal)
        return Hint(action, "pick_up" if playable else "nothing_fits")
    if isinstance(action, PlayStock):
        playable = any(isinstance(other, Play) for other in legal)
        return Hint(action, "stock_saves" if playable else "stock")
    if isinstance(action, Flip):
        return Hint(action, "blind")
    if not isinstance(action, Play):
        return Hint(action, "search")
    return _explain_play(view, action)


def _explain_play(view: PlayerView, action: Play) -> Hint:
    """Explain a play: a burn, a run, the only fit, the lowest cards, a power card kept."""
    table = view.table
    rules = table.rules
    powers = PowerTable(rules)
    cards = action.cards
    rank = cards[0].rank
    count = len(cards)
    if len({card.rank for card in cards}) > 1:
        return Hint(action, "run", count=count)
    if powers.burn[rank]:
        return Hint(action, "burns", rank=rank)
    on_top = four_of_a_kind_on_top(table.pile) if table.pile and table.pile[-1].rank == rank else 0
    if (rules.four_of_a_kind == "pile" and on_top + count >= 4) or (
        rules.four_of_a_kind == "play" and count >= 4
    ):
        return Hint(action, "four_burns", rank=rank)
    # Each rank the player could play alone now (runs are extra ways to shed, not ranks).
    ranks = {play.cards[0].rank for play in view.legal if isinstance(play, Play)}
    plain = sorted(other for other in ranks if not powers.powered[other])
    if powers.powered[rank]:
        return Hint(action, "search" if plain else "only_special", rank=rank)
    lowest = rank == plain[0]
    kept = [other for other in ranks if powers.powered[other]]
    if lowest and count >= 2:
        return Hint(action, "lowest_set", rank=rank, count=count)
    if kept:
        best = max(kept, key=lambda other: (powers.anywhere[other], powers.burn[other], other))
        return Hint(action, "keeps_special", rank=best)
    if lowest:
        return Hint(action, "lowest", rank=rank)
    if _next_nearly_out(view):
        return Hint(action, "starve", rank=rank)
    return Hint(action, "search", rank=rank)


def _next_nearly_out(view: PlayerView) -> bool:
    """Say whether the next player may go out soon: few cards left and no stock to draw."""
    table = view.table
    seats = table.seats
    following = next_active([seat.out for seat in seats], view.seat, table.direction)
    if following == view.seat or table.stock_count:
        return False
    seat = seats[following]
    held = seat.hand_count + sum(map(len, seat.face_up)) + seat.face_down_count
    return held <= NEARLY_OUT
