"""The `random` strategy: uniform over the legal actions."""

from __future__ import annotations

import random

from engine.actions import Action
from engine.strategies.base import SeededStrategy
from engine.views import PlayerView


class RandomStrategy(SeededStrategy):
    """Pick any legal action with equal chance."""

    name = "random"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        """Pick uniformly among the legal actions."""
        return rng.choice(view.legal)
