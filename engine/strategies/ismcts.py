"""The `expert` strategy: single-observer information-set Monte Carlo tree search.

Cowling, Powley & Whitehouse (2012), "Information Set Monte Carlo Tree Search". One tree is
grown over the player's information set: each iteration deals the unseen cards again from the
player's view (a determinization), descends the tree choosing by UCB among the actions legal
in that deal (a child's exploration term counts the iterations it was available, not its
parent's visits), adds one node, plays on with the basic player and backs the result up, each
node scored for the player who made its move.

With `model_opponents` (the default) the opponents are modelled as the basic player: their
moves in the descent are the basic player's, not tree nodes, so the tree holds only the
player's own moves and every iteration deepens it. The table's computer opponents are basic
players, and the basic player is a fair model of people; without it the opponents' replies
are searched in the tree too, each for its own seat.
"""

from __future__ import annotations

import math
import random

from engine.actions import Action, Flip
from engine.game import Game
from engine.resample import Resampler
from engine.strategies.basic import choose_play, situation_of_game
from engine.strategies.pimc import SearchStrategy, candidates, judge, play_on
from engine.views import PlayerView

# Iteration budget per decision (each one a deal, a descent, a node and a rollout).
ITERATIONS = 400
# Work budget per decision: stop once the descents and rollouts have made this many moves. It
# bounds the slowest decisions without a clock, so play stays reproducible.
MAX_STEPS = 2000
# Actions a node may grow: the acting player's cheapest plays, one pick-up, the stock.
MAX_CANDIDATES = 4
# Moves a rollout is played on after the new node before the position is judged.
ROLLOUT_DEPTH = 16
# UCB exploration constant (results lie in [0, 1]).
EXPLORATION = 0.7


class Node:
    """A move in the tree: who made it, its results for them and how often it was available."""

    __slots__ = ("available", "children", "mover", "reward", "visits")

    def __init__(self, mover: int) -> None:
        """Start an unvisited node for a move made by `mover`."""
        self.mover = mover
        self.children: dict[Action, Node] = {}
        self.visits = 0
        self.available = 0
        self.reward = 0.0

    def score(self, exploration: float) -> float:
        """Return the UCB value: mean result plus the availability-count exploration bonus."""
        mean = self.reward / self.visits
        return mean + exploration * math.sqrt(math.log(self.available) / self.visits)


class IsmctsStrategy(SearchStrategy):
    """Grow one search tree over the deals the player cannot tell apart; play its best move."""

    name = "expert"

    def __init__(
        self,
        seed: int = 0,
        *,
        iterations: int = ITERATIONS,
        max_steps: int | None = MAX_STEPS,
        max_candidates: int = MAX_CANDIDATES,
        depth: int = ROLLOUT_DEPTH,
        exploration: float = EXPLORATION,
        model_opponents: bool = True,
    ) -> None:
        """Set the budget (`iterations`, `max_steps` moves or None) and how opponents are played."""
        super().__init__(seed)
        self.model_opponents = model_opponents
        self.iterations = iterations
        self.max_steps = max_steps
        self.max_candidates = max_candidates
        self.depth = depth
        self.exploration = exploration

    def pick(
        self, view: PlayerView, options: list[Action], resampler: Resampler, rng: random.Random
    ) -> Action:
        """Grow the tree over the resampler's deals; play the candidate visited most."""
        root = self.search(resampler, rng)
        # The most visited move is the most robust; ties go to the basic player's order.
        best = max(
            range(len(options)),
            key=lambda index: (_visits(root, options[index]), -index),
        )
        return options[best]

    def search(self, resampler: Resampler, rng: random.Random) -> Node:
        """Grow the tree of the resampler's view within the budget; return its root."""
        root = Node(resampler.view.seat)
        steps = 0
        for _ in range(self.iterations):
            game = resampler.sample(random.Random(rng.getrandbits(64)))
            steps += self.iterate(root, game, random.Random(rng.getrandbits(64)))
            if self.max_steps is not None and steps >= self.max_steps:
                break
        return root

    def iterate(self, root: Node, game: Game, rng: random.Random) -> int:
        """Run one iteration on the deal `game`; return how many moves it made."""
        start = game.moves
        path = [root]
        node = root
        while not game.over:
            if self.model_opponents and game.out[root.mover]:
                break  # the player is out: nothing of theirs is left to choose
            turn = game.turn
            assert turn is not None
            legal = game.legal_actions(turn)
            if all(isinstance(action, Flip) for action in legal):
                game.apply(rng.choice(legal))  # a blind card is chance, not a choice
                continue
            situation = situation_of_game(game, turn, legal)
            if self.model_opponents and turn != root.mover:
                game.apply(choose_play(situation, rng))  # the opponent plays as modelled
                continue
            options = candidates(situation, self.max_candidates)
            if len(options) == 1:
                game.apply(options[0])
                continue
            untried: Action | None = None
            for action in options:
                child = node.children.get(action)
                if child is None:
                    if untried is None:
                        untried = action
                else:
                    child.available += 1
            if untried is not None:
                child = Node(turn)
                child.available = 1
                node.children[untried] = child
                game.apply(untried)
                path.append(child)
                break
            action = max(options, key=lambda a: node.children[a].score(self.exploration))
            node = node.children[action]
            game.apply(action)
            path.append(node)
        play_on(game, rng, self.depth)
        results = {mover: judge(game, mover) for mover in {step.mover for step in path}}
        for step in path:
            step.visits += 1
            step.reward += results[step.mover]
        return game.moves - start


def _visits(root: Node, action: Action) -> int:
    """Say how often the search tried `action` at the root."""
    child = root.children.get(action)
    return 0 if child is None else child.visits
