"""Strategy tournaments on duplicate deals: `python -m engine.tournament --players expert,basic`.

Each deal is replayed once per rotation of the seats, so every strategy plays every hand.
Prints progress while it runs, a table per strategy, and last a single JSON line.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from engine.game import Game
from engine.rules import RuleSet, make_rules
from engine.seats import standings
from engine.strategies import get_strategy
from engine.views import player_view

# A game the engine has not ended after this many actions is stopped and scored by cards held
# (a guard against a strategy looping in setup, where the engine's stalemate cap does not count).
MAX_MOVES = 20_000
Z_95 = 1.959963984540054
# How decisions are timed: wall-clock time, or the CPU time of the deciding process (which
# other processes sharing the machine do not inflate).
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclass(frozen=True)
class GameRecord:
    """One finished game: who sat where, who lost, each seat's place and the move times."""

    deal: int
    rotation: int
    seats: tuple[str, ...]
    loser: int
    places: tuple[int, ...]
    moves: int
    end_reason: str
    move_times: tuple[tuple[float, ...], ...]


@dataclass
class StrategyFigures:
    """What one strategy did over the tournament (a seat-game counts once per seat taken)."""

    name: str
    seat_games: int = 0
    losses: int = 0
    place_total: int = 0
    moves_total: int = 0
    games_played: int = 0
    times: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Write the figures out, rounded for reading."""
        low, high = wilson_interval(self.losses, self.seat_games)
        return {
            "strategy": self.name,
            "seat_games": self.seat_games,
            "losses": self.losses,
            "loser_rate": round(self.losses / self.seat_games, 4) if self.seat_games else 0.0,
            "loser_rate_ci95": [round(low, 4), round(high, 4)],
            "avg_place": round(self.place_total / self.seat_games, 3) if self.seat_games else 0.0,
            "moves_per_game": (
                round(self.moves_total / self.games_played, 1) if self.games_played else 0.0
            ),
            "move_ms_p50": round(percentile(self.times, 50) * 1000, 3),
            "move_ms_p95": round(percentile(self.times, 95) * 1000, 3),
            "decisions": len(self.times),
        }


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """Return the Wilson score interval of a proportion (95% by default); (0, 1) for no trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Sequence[float], q: float) -> float:
    """Return the q-th percentile, interpolating linearly between ranks; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def derived_seed(*parts: object) -> int:
    """Derive a stable 63-bit seed from the tournament seed and a position in it."""
    return random.Random("/".join(str(part) for part in parts)).getrandbits(63)


def places_of(game: Game) -> tuple[int, tuple[int, ...]]:
    """Return the loser and every seat's place (1 first), ranked by the engine's `standings`."""
    order = standings(game)
    places = [0] * game.players
    for place, seat in enumerate(order, start=1):
        places[seat] = place
    return order[-1], tuple(places)


def play_game(
    rules: RuleSet,
    seats: Sequence[str],
    *,
    deal_seed: int,
    strategy_seeds: Sequence[int],
    deal: int = 0,
    rotation: int = 0,
    max_moves: int = MAX_MOVES,
    clock: str = "wall",
) -> GameRecord:
    """Play one game to the end with `seats[i]` in seat i; time every decision by `clock`."""
    game = Game.deal(rules, len(seats), seed=deal_seed)
    players = [get_strategy(name, seed) for name, seed in zip(seats, strategy_seeds, strict=True)]
    times: list[list[float]] = [[] for _ in seats]
    now = CLOCKS[clock]
    while not game.over and game.moves < max_moves:
        seat = game.to_act()[0]
        view = player_view(game, seat)
        started = now()
        action = players[seat].choose(view)
        times[seat].append(now() - started)
        game.apply(action)
    loser, places = places_of(game)
    reason = game.end_reason if game.over and game.end_reason else "capped"
    return GameRecord(
        deal=deal,
        rotation=rotation,
        seats=tuple(seats),
        loser=loser,
        places=places,
        moves=game.moves,
        end_reason=reason,
        move_times=tuple(tuple(seat_times) for seat_times in times),
    )


def rotations(names: Sequence[str]) -> list[tuple[str, ...]]:
    """Every rotation of the seating, so each strategy sits in each seat once."""
    count = len(names)
    return [tuple(names[(seat - shift) % count] for seat in range(count)) for shift in range(count)]


def play_deal(
    preset: str,
    overrides: dict[str, Any] | None,
    names: Sequence[str],
    seed: int,
    deal: int,
    clock: str = "wall",
) -> list[GameRecord]:
    """Play one deal in every rotation of the seats."""
    rules = make_rules(preset, overrides)
    deal_seed = derived_seed(seed, "deal", deal)
    records = []
    for rotation, seats in enumerate(rotations(names)):
        strategy_seeds = [derived_seed(seed, deal, rotation, seat) for seat in range(len(seats))]
        records.append(
            play_game(
                rules,
                seats,
                deal_seed=deal_seed,
                strategy_seeds=strategy_seeds,
                deal=deal,
                rotation=rotation,
                clock=clock,
            )
        )
    return records


def summarize(records: Sequence[GameRecord], names: Sequence[str]) -> dict[str, Any]:
    """Add up the records per strategy, and the stalemates and caps over all games."""
    figures = {name: StrategyFigures(name) for name in dict.fromkeys(names)}
    for record in records:
        for name in set(record.seats):
            figures[name].games_played += 1
            figures[name].moves_total += record.moves
        for seat, name in enumerate(record.seats):
            entry = figures[name]
            entry.seat_games += 1
            entry.losses += int(record.loser == seat)
            entry.place_total += record.places[seat]
            entry.times.extend(record.move_times[seat])
    games = len(records)
    stalemates = sum(1 for record in records if record.end_reason == "stalemate")
    capped = sum(1 for record in records if record.end_reason == "capped")
    low, high = wilson_interval(stalemates, games)
    return {
        "games": games,
        "deals": len({record.deal for record in records}),
        "stalemates": stalemates,
        "stalemate_rate": round(stalemates / games, 4) if games else 0.0,
        "stalemate_rate_ci95": [round(low, 4), round(high, 4)],
        "capped": capped,
        "moves_per_game": round(sum(r.moves for r in records) / games, 1) if games else 0.0,
        "strategies": [entry.as_dict() for entry in figures.values()],
    }


def run_tournament(
    preset: str,
    names: Sequence[str],
    games: int,
    seed: int,
    *,
    overrides: dict[str, Any] | None = None,
    jobs: int = 1,
    clock: str = "wall",
    progress: Callable[[int, int, list[GameRecord]], None] | None = None,
    max_seconds: float | None = None,
) -> dict[str, Any]:
    """Play at least `games` games (whole deals, one game per rotation) and summarize them.

    With `max_seconds`, no deal after the first is started after that many seconds: the deals
    finished by then, always the first ones, are summarized (the summary says how many
    games were planned).
    """
    make_rules(preset, overrides).check_players(len(names))
    deals = max(1, math.ceil(games / len(names)))
    total = deals * len(names)
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    records: list[GameRecord] = []

    def late() -> bool:
        """Say whether the time is up (the first deal is always played)."""
        return bool(records) and deadline is not None and time.monotonic() > deadline

    if jobs <= 1:
        for deal in range(deals):
            if late():
                break
            records.extend(play_deal(preset, overrides, names, seed, deal, clock))
            if progress is not None:
                progress(len(records), total, records)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [
                pool.submit(play_deal, preset, overrides, list(names), seed, deal, clock)
                for deal in range(deals)
            ]
            for future in futures:
                if late():
                    for waiting in futures:
                        waiting.cancel()  # the deals already started are finished
                if future.cancelled():
                    break
                records.extend(future.result())
                if progress is not None:
                    progress(len(records), total, records)
    summary = summarize(records, names)
    summary.update(
        {
            "preset": preset,
            "players": list(names),
            "seed": seed,
            "overrides": overrides or {},
            "clock": clock,
            "planned_games": total,
        }
    )
    return summary


def format_table(summary: dict[str, Any]) -> str:
    """Lay the summary out for people."""
    lines = [
        f"preset {summary['preset']}, players {','.join(summary['players'])}, "
        f"{summary['games']} games on {summary['deals']} duplicate deals, seed {summary['seed']}, "
        f"{summary['clock']} clock"
        + (
            f" (stopped at the time limit: {summary['games']} of {summary['planned_games']} games)"
            if summary["games"] < summary["planned_games"]
            else ""
        ),
        f"stalemates {summary['stalemates']} ({summary['stalemate_rate']:.1%}), "
        f"capped {summary['capped']}, {summary['moves_per_game']} moves per game",
        f"{'strategy':<10} {'seat-games':>10} {'loser rate':>10} {'95% CI':>15} "
        f"{'avg place':>9} {'moves/game':>10} {'p50 ms':>8} {'p95 ms':>8}",
    ]
    for row in summary["strategies"]:
        low, high = row["loser_rate_ci95"]
        lines.append(
            f"{row['strategy']:<10} {row['seat_games']:>10} {row['loser_rate']:>10.1%} "
            f"{f'{low:.1%}-{high:.1%}':>15} {row['avg_place']:>9.2f} "
            f"{row['moves_per_game']:>10.1f} {row['move_ms_p50']:>8.2f} {row['move_ms_p95']:>8.2f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run a tournament from the command line."""
    parser = argparse.ArgumentParser(prog="python -m engine.tournament", description=__doc__)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", default="basic,random,random", help="strategies, by seat")
    parser.add_argument("--games", type=int, default=300, help="at least this many games")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=JSON")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--clock", choices=list(CLOCKS), default="wall", help="time decisions by wall or CPU time"
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="start no deal after this many seconds; summarize the deals finished",
    )
    args = parser.parse_args(argv)
    names = [name.strip().lower() for name in args.players.split(",") if name.strip()]
    overrides: dict[str, Any] = {}
    for item in args.set:
        key, _, value = item.partition("=")
        try:
            overrides[key] = json.loads(value)
        except json.JSONDecodeError:
            overrides[key] = value
    for name in set(names):
        get_strategy(name)
    started = time.perf_counter()

    def progress(done: int, total: int, records: list[GameRecord]) -> None:
        losses: dict[str, int] = {}
        for record in records:
            losses[record.seats[record.loser]] = losses.get(record.seats[record.loser], 0) + 1
        elapsed = time.perf_counter() - started
        eta = elapsed / done * (total - done)
        shown = " ".join(f"{name}:{losses.get(name, 0)}" for name in dict.fromkeys(names))
        print(
            f"\r{done}/{total} games, losses {shown}, {elapsed:.0f}s elapsed, ~{eta:.0f}s left",
            end="",
            file=sys.stderr,
            flush=True,
        )

    summary = run_tournament(
        args.preset,
        names,
        args.games,
        args.seed,
        overrides=overrides or None,
        jobs=args.jobs,
        clock=args.clock,
        progress=progress,
        max_seconds=args.max_seconds,
    )
    summary["seconds"] = round(time.perf_counter() - started, 1)
    print(file=sys.stderr)
    print(format_table(summary))
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
