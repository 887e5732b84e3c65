"""The `pimc` strategy: flat determinized Monte-Carlo search with the basic player in rollouts."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from engine.actions import Action, Flip, PickUp, Play, PlayStock
from engine.game import Game
from engine.resample import Resampler
from engine.strategies.base import SeededStrategy
from engine.strategies.basic import (
    Situation,
    choose_basic,
    choose_play,
    play_cost,
    situation_of_game,
    situation_of_view,
)
from engine.views import PlayerView

# Search budget per decision: determinizations (each one tried with every candidate action).
ITERATIONS = 24
# Work budget per decision: stop sampling once the rollouts have made this many moves. It
# bounds the slowest decisions (about 0.3 s here) without a clock, so play stays reproducible.
MAX_STEPS = 7000
# Candidate actions searched: the basic player's favourites, plus picking up and the stock.
MAX_CANDIDATES = 5
# Moves a rollout is played out before the position is judged by its card counts.
ROLLOUT_DEPTH = 60
# Softness (in cards) of the judgement of a position where nobody is out yet.
TEMPERATURE = 2.5


def _burden(game: Game, seat: int, anywhere: Sequence[bool]) -> float:
    """Estimate how far `seat` is from going out, in cards (special cards count less)."""
    specials = sum(1 for card in game.hands[seat] if anywhere[card.rank])
    specials += sum(1 for stack in game.face_up[seat] for card in stack if anywhere[card.rank])
    return game.cards_held(seat) - 0.6 * specials


def judge(game: Game, seat: int) -> float:
    """Score a position for `seat` in [0, 1]: 1 is safe (loser mode) or won (winner mode)."""
    winner_mode = game.rules.mode == "winner"
    if game.over:
        if winner_mode:
            return 1.0 if game.winner == seat else 0.0
        return 0.0 if game.loser == seat else 1.0
    if game.out[seat]:
        return 1.0
    anywhere = game.table.anywhere
    active = game.active_players()
    burdens = {other: _burden(game, other, anywhere) for other in active}
    sign = -1.0 if winner_mode else 1.0
    low = min(sign * value for value in burdens.values())
    weights = {
        other: math.exp((sign * value - low) / TEMPERATURE) for other, value in burdens.items()
    }
    share = weights[seat] / sum(weights.values())
    return share if winner_mode else 1.0 - share


def play_on(game: Game, rng: random.Random, depth: int) -> None:
    """Play on with the basic player in every seat for up to `depth` moves."""
    for _ in range(depth):
        if game.over:
            return
        turn = game.turn
        assert turn is not None
        legal = game.legal_actions(turn)
        if len(legal) == 1:
            game.apply(legal[0])
            continue
        game.apply(choose_play(situation_of_game(game, turn, legal), rng))


def rollout(game: Game, seat: int, rng: random.Random, depth: int) -> float:
    """Play on with the basic player in every seat for `depth` moves, then judge for `seat`."""
    play_on(game, rng, depth)
    return judge(game, seat)


def candidates(situation: Situation, limit: int) -> list[Action]:
    """Pick the actions worth searching: the cheapest plays first, one pick-up, the stock."""
    legal = situation.legal
    plays = [action for action in legal if isinstance(action, Play)]
    plays.sort(key=lambda play: play_cost(situation, play.cards))
    chosen: list[Action] = list(plays[:limit])
    pickups = [action for action in legal if isinstance(action, PickUp)]
    if pickups:
        keep = situation.values.keep
        chosen.append(min(pickups, key=lambda p: keep[p.add.rank] if p.add is not None else 0.0))
    chosen.extend(action for action in legal if isinstance(action, PlayStock))
    return chosen


class SearchStrategy(SeededStrategy):
    """Search the play phase among a few candidate actions; set up like the basic player."""

    max_candidates: int = MAX_CANDIDATES

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        """Search the play phase; set up like the basic player."""
        if view.table.phase != "play":
            return choose_basic(situation_of_view(view), rng, setup=True)
        if all(isinstance(action, Flip) for action in view.legal):
            return rng.choice(view.legal)  # every face-down card is alike to us
        options = candidates(situation_of_view(view), self.max_candidates)
        resampler = Resampler(view)
        if len(options) == 1 or not resampler.consistent:
            return options[0]
        return self.pick(view, options, resampler, rng)

    def pick(
        self, view: PlayerView, options: list[Action], resampler: Resampler, rng: random.Random
    ) -> Action:
        """Choose among two or more candidates by searching deals of the unseen cards."""
        raise NotImplementedError


class PimcStrategy(SearchStrategy):
    """Try each candidate action in sampled deals of the unseen cards; keep the best on average."""

    name = "pimc"

    def __init__(
        self,
        seed: int = 0,
        *,
        iterations: int = ITERATIONS,
        max_steps: int | None = MAX_STEPS,
        time_limit: float | None = None,
        max_candidates: int = MAX_CANDIDATES,
        depth: int = ROLLOUT_DEPTH,
    ) -> None:
        """Set the budget: `iterations` deals, `max_steps` rollout moves, `time_limit` seconds.

        A budget of None is no limit. The time limit makes play depend on the machine's speed,
        so it is off unless asked for.
        """
        super().__init__(seed)
        self.iterations = iterations
        self.max_steps = max_steps
        self.time_limit = time_limit
        self.max_candidates = max_candidates
        self.depth = depth

    def pick(
        self, view: PlayerView, options: list[Action], resampler: Resampler, rng: random.Random
    ) -> Action:
        """Play every candidate in the same sampled deals; keep the best on average."""
        totals = [0.0] * len(options)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        steps = 0
        for _ in range(self.iterations):
            world_seed = rng.getrandbits(64)
            play_seed = rng.getrandbits(64)
            for index, action in enumerate(options):
                # Common random numbers: every candidate meets the same deal and the same dice.
                game = resampler.sample(random.Random(world_seed))
                game.apply(action)
                totals[index] += rollout(game, view.seat, random.Random(play_seed), self.depth)
                steps += game.moves
            if self.max_steps is not None and steps >= self.max_steps:
                break
            if deadline is not None and time.perf_counter() > deadline:
                break
        best = max(range(len(options)), key=lambda index: (totals[index], -index))
        return options[best]
