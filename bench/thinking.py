"""Benchmark how long the bot's event loop takes to answer a click while computers think.

    python -m bench.thinking --tables 20 --seconds 60 --seed 1

Runs the table core in this process's event loop, as the bot does: `--tables` tables, each
with one seated member and one computer player. Each member makes their moves as clicks (the
first play offered, else a blind card, else picking up) after a seeded think time. A click's
answer time runs from the moment it arrives (its think time is over) until the core has made
the move and the member's private view and the table message are drawn, so it counts the
time the loop took to get to the click, which a thinking thread lengthens. Three rounds
with the same seeds: `basic` computers (they think in microseconds: the idle value), `expert`
computers thinking in the move pool (`--move-workers`, default sized to the machine), and
`expert` computers thinking in a thread, as before the pool. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

from bot.rendering import render_private, render_table
from engine.rules import make_rules
from engine.tournament import percentile
from tables import controls
from tables.intents import (
    AddComputer,
    FlipCard,
    Intent,
    MarkReady,
    Member,
    PickUpPile,
    PlayCards,
    Rematch,
    Start,
)
from tables.model import Table, TableConfig
from tables.movers import MovePool
from tables.service import TableService
from tables.timers import Timing

# The rounds: the computers' level and the pool's workers (None: sized to the machine).
ROUNDS = (("idle", "basic", None), ("pool", "expert", None), ("thread", "expert", 0))
LOCALE = "en-US"
# Turn timers that never fire during a round (a member always moves in time).
NEVER = 86_400.0


async def member_plays(
    service: TableService,
    table_id: str,
    member: Member,
    rng: random.Random,
    think: tuple[float, float],
    answers: list[float],
    stop: float,
) -> None:
    """Make the member's moves as clicks until `stop`, recording each answer time."""
    while time.perf_counter() < stop:
        table = service.find(table_id)
        assert table is not None
        intent = _next_click(table)
        if intent is None:
            await asyncio.sleep(0.02)
            continue
        pause = rng.uniform(*think)
        arrived = time.perf_counter() + pause
        await asyncio.sleep(pause)
        table = service.find(table_id)
        assert table is not None
        intent = _next_click(table)
        if intent is None:
            continue
        if isinstance(intent, Rematch):
            table_id = (await service.submit(table.id, member, intent)).snapshot.id
            continue
        outcome = await service.submit(table.id, member, intent, table.seats[0].version)
        render_private(outcome.snapshot, 0, LOCALE, "")
        render_table(outcome.snapshot, LOCALE)
        answers.append(time.perf_counter() - arrived)


def _next_click(table: Table) -> Intent | None:
    """Say what the member at seat 0 clicks now, if anything."""
    if table.phase == "over":
        return Rematch()
    game = table.game
    if game is None or 0 not in game.to_act():
        return None
    if game.phase == "setup":
        return MarkReady()
    offered = controls.controls(table.view(0))
    return PlayCards(0) if offered.plays else FlipCard(0) if offered.flips else PickUpPile(0)


async def run_round(
    level: str, workers: int | None, *, tables: int, seconds: float, seed: int
) -> dict[str, Any]:
    """Play one round; return the click answer times' summary."""
    pool = MovePool(workers)
    pool.start()
    deals = random.Random(seed)
    service = TableService(
        timing=Timing(setup_seconds=NEVER, turn_seconds=NEVER, remind_seconds=NEVER),
        seeds=lambda: deals.randrange(2**31),
        movers=pool,
    )
    answers: list[float] = []
    try:
        rules = make_rules("classic")
        members = []
        for index in range(tables):
            member = Member(1000 + index, f"m{index}")
            config = TableConfig(rules, "classic", NEVER, 3, NEVER)
            created = await service.create(1, 100 + index, member, config)
            await service.submit(created.snapshot.id, member, AddComputer(level))
            await service.submit(created.snapshot.id, member, Start())
            members.append((created.snapshot.id, member))
        stop = time.perf_counter() + seconds
        await asyncio.gather(
            *(
                member_plays(
                    service,
                    table_id,
                    member,
                    random.Random(f"{seed}:{i}"),
                    (0.3, 1.2),
                    answers,
                    stop,
                )
                for i, (table_id, member) in enumerate(members)
            )
        )
    finally:
        await service.shutdown()
        pool.shutdown()
    return {
        "level": level,
        "move_workers": pool.workers,
        "clicks": len(answers),
        "answer_ms_p50": round(percentile(answers, 50) * 1000, 2),
        "answer_ms_p99": round(percentile(answers, 99) * 1000, 2),
        "answer_ms_max": round(max(answers, default=0.0) * 1000, 2),
    }


async def run(tables: int, seconds: float, seed: int, workers: int | None) -> dict[str, Any]:
    """Play every round with the same seeds; compare each p99 with the idle one."""
    rounds: dict[str, Any] = {}
    for name, level, round_workers in ROUNDS:
        chosen = workers if round_workers is None else round_workers
        rounds[name] = await run_round(level, chosen, tables=tables, seconds=seconds, seed=seed)
    idle = rounds["idle"]["answer_ms_p99"] or 1.0
    for figures in rounds.values():
        figures["p99_vs_idle"] = round(figures["answer_ms_p99"] / idle, 3)
    return {"tables": tables, "seconds": seconds, "seed": seed, "rounds": rounds}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark from the command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.thinking", description=__doc__)
    parser.add_argument("--tables", type=int, default=20, help="tables, one computer each")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--move-workers", type=int, default=None, help="the pool's processes (default: machine)"
    )
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0:
        parser.error("need --tables >= 1 and --seconds > 0")
    started = time.perf_counter()
    figures = asyncio.run(run(args.tables, args.seconds, args.seed, args.move_workers))
    figures["wall_seconds"] = round(time.perf_counter() - started, 1)
    for name, row in figures["rounds"].items():
        print(
            f"{name:<7} {row['level']:<7} workers {row['move_workers']}: {row['clicks']} clicks, "
            f"answer p50 {row['answer_ms_p50']} ms, p99 {row['answer_ms_p99']} ms "
            f"({row['p99_vs_idle']:.2f} x idle), max {row['answer_ms_max']} ms",
            file=sys.stdout,
        )
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
