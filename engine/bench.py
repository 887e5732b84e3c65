"""Engine benchmark: `python -m engine.bench --preset P --players N --games G --seed S`.

Plays complete random-vs-random games, deal included, in one process, and prints
moves/s, games/s, average moves per game and stalemates; the last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence

from engine.game import Game
from engine.rules import RulesError, make_rules


def play_random_game(preset: str, players: int, seed: int) -> tuple[int, bool]:
    """Play one seeded game with uniformly random legal actions; return moves and stalemate."""
    game = Game.deal(make_rules(preset), players, seed=seed)
    rng = random.Random(seed)
    moves = 0
    while not game.over:
        seats = game.to_act()
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        game.apply(rng.choice(game.legal_actions(seat)))
        moves += 1
    return moves, game.end_reason == "stalemate"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m engine.bench", description=__doc__)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        make_rules(args.preset).check_players(args.players)
    except RulesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    moves = stalemates = 0
    start = time.perf_counter()
    for game in range(args.games):
        played, stalemate = play_random_game(args.preset, args.players, args.seed + game)
        moves += played
        stalemates += stalemate
    elapsed = time.perf_counter() - start
    figures = {
        "preset": args.preset,
        "players": args.players,
        "games": args.games,
        "seconds": round(elapsed, 3),
        "moves_per_s": round(moves / elapsed),
        "games_per_s": round(args.games / elapsed, 1),
        "avg_moves": round(moves / args.games, 1),
        "stalemates": stalemates,
    }
    print(
        f"{args.games} games, {moves} moves in {elapsed:.2f} s: "
        f"{figures['moves_per_s']} moves/s, {figures['games_per_s']} games/s, "
        f"{figures['avg_moves']} moves a game, {stalemates} stalemates"
    )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
