"""Computer players: strategies that choose an action from a player's view only."""

from __future__ import annotations

from collections.abc import Callable

from engine.strategies.base import SeededStrategy, Strategy, StrategyError
from engine.strategies.basic import BasicStrategy
from engine.strategies.ismcts import IsmctsStrategy
from engine.strategies.pimc import PimcStrategy
from engine.strategies.random_ import RandomStrategy

_REGISTRY: dict[str, Callable[[int], SeededStrategy]] = {
    "random": RandomStrategy,
    "basic": BasicStrategy,
    "expert": IsmctsStrategy,
    "pimc": PimcStrategy,
}


def strategy_names() -> list[str]:
    """Name every strategy the registry knows."""
    return list(_REGISTRY)


def get_strategy(name: str, seed: int = 0) -> Strategy:
    """Build the strategy called `name`, seeded with `seed` (cheap; one per computer player)."""
    factory = _REGISTRY.get(name.strip().lower())
    if factory is None:
        raise StrategyError(f"unknown strategy {name!r}; choose one of {', '.join(_REGISTRY)}")
    return factory(seed)


__all__ = ["Strategy", "StrategyError", "get_strategy", "strategy_names"]
