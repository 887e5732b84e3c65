"""What a computer player is: a seeded object that picks an action from a player view."""

from __future__ import annotations

import random
import threading
from typing import Protocol, runtime_checkable

from engine.actions import Action
from engine.views import PlayerView


class StrategyError(ValueError):
    """A strategy was asked for something it cannot do (unknown name, no legal action)."""


@runtime_checkable
class Strategy(Protocol):
    """Pick one of `view.legal`; `rng` overrides the instance's own seeded stream."""

    name: str

    def choose(self, view: PlayerView, rng: random.Random | None = None) -> Action:
        """Return one action from `view.legal`."""
        ...


class SeededStrategy:
    """Hold a seed and a private random stream; each decision gets its own child stream."""

    name = "seeded"

    def __init__(self, seed: int = 0) -> None:
        """Seed the instance's stream (cheap: no search structures are built here)."""
        self.seed = seed
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def decision_rng(self, rng: random.Random | None = None) -> random.Random:
        """Draw a child stream for one decision, so a decision never shares mutable state."""
        source = rng
        if source is None:
            with self._lock:
                child_seed = self._rng.getrandbits(64)
        else:
            child_seed = source.getrandbits(64)
        return random.Random(child_seed)

    def choose(self, view: PlayerView, rng: random.Random | None = None) -> Action:
        """Return one action from `view.legal`."""
        legal = view.legal
        if not legal:
            raise StrategyError(f"seat {view.seat} has no legal action now")
        if len(legal) == 1:
            return legal[0]
        return self.decide(view, self.decision_rng(rng))

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        """Pick among two or more legal actions (subclasses override this)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"
