"""One policy for every move the bot makes for a seat: computer players, timeouts, setup.

A strategy from `engine.strategies` chooses; if it raises or names an action that is not
legal, the basic strategy chooses instead, and if that fails too the simplest legal move is
forced. A seat the bot plays for therefore always moves and its table never stalls.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from engine.actions import Action, Choose, PickUp, Play, Ready
from engine.game import Game
from engine.strategies import Strategy, get_strategy
from engine.views import PlayerView

log = logging.getLogger(__name__)

# Who plays a member's turn when their time runs out.
TIMEOUT_STRATEGY = "basic"

StrategyFactory = Callable[[str, int], Strategy]


def choose(
    view: PlayerView,
    strategy: str,
    seed: int,
    *,
    table_id: str = "?",
    factory: StrategyFactory = get_strategy,
) -> Action:
    """Pick a legal move for the seat of `view`: the strategy's, else basic's, else forced."""
    tried = [strategy] if strategy == TIMEOUT_STRATEGY else [strategy, TIMEOUT_STRATEGY]
    for name in tried:
        try:
            action = factory(name, seed).choose(view)
        except Exception:
            log.exception("table %s: the %s strategy failed for seat %d", table_id, name, view.seat)
            continue
        if action in view.legal:
            return action
        log.error("table %s: the %s strategy chose %r, not a legal move", table_id, name, action)
    return forced(view)


def forced(view: PlayerView) -> Action:
    """Pick the simplest legal move: a single lowest card, else pick up, else the first."""
    plays = [a for a in view.legal if isinstance(a, Play) and len(a.cards) == 1]
    if plays:
        return plays[0]
    return next((a for a in view.legal if isinstance(a, PickUp)), view.legal[0])


def setup_step(game: Game, seat: int) -> Action | None:
    """Say the next step that gets a seat ready as it is: ready, else the first choice offered."""
    legal = game.legal_actions(seat)
    ready = next((a for a in legal if isinstance(a, Ready)), None)
    return ready or next((a for a in legal if isinstance(a, Choose)), None)
