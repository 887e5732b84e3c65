"""What a click's work costs in CPU after the processor was idle for a while.

    python -m bench.wake [--gaps 0,0.2,1,2,5,20] [--rounds 300] [--seed 1]

The same work is timed hot (one unit after another) and after sleeping each gap first:
parse a click's gateway frame (with the message it was on, as Discord sends it), draw the
clicker's private view and write the answer's JSON, the bot's own part of a click. A unit
is timed in this thread's CPU (`time.thread_time_ns`), so the sleep itself counts nothing:
what grows with the gap is the same instructions running slower, on caches and predictors
that other work (other processes, other guests of the host) had meanwhile.

Why it matters: at 50 tables of the load bench the bot waits for the network between most
of its events, and each wait is such a gap; at 200 and 500 tables events come closer
together. A bot CPU figure per move therefore depends on the load and on what else the
machine runs, not on the bot's code alone. Human-readable lines come first; the last line
printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

import orjson

from bench.drawing import LOCALE, WHERE, record, with_pictures
from bot.rendering import render_private
from tables.outcome import Snapshot

DEFAULT_GAPS = (0.0, 0.2, 1.0, 2.0, 5.0, 20.0)
# A click's interaction token is about this long (Discord's run 200-250 characters).
TOKEN_LENGTH = 226


@dataclass(frozen=True)
class Unit:
    """One click's work: its frame as it arrives, and the view its answer draws."""

    frame: bytes
    snapshot: Snapshot
    seat: int


def units(snapshots: list[Snapshot]) -> list[Unit]:
    """Make a click frame for every member's view at every move of a recorded game."""
    made: list[Unit] = []
    for number, snapshot in enumerate(snapshots):
        for seat in snapshot.humans():
            shown = render_private(snapshot, seat, LOCALE, WHERE)
            message = {
                "id": str(10**17 + number),
                "channel_id": str(2 * 10**17 + seat),
                "embeds": list(shown.embed_payloads),
                "components": shown.view.to_components(),
                "edited_timestamp": "2026-11-28T02:00:00.000000+00:00",
            }
            interaction = {
                "id": str(3 * 10**17 + number),
                "type": 3,
                "token": "t" * TOKEN_LENGTH,
                "version": 1,
                "application_id": str(4 * 10**17),
                "locale": "en-US",
                "user": {"id": str(5 * 10**17 + seat), "username": f"member{seat}"},
                "data": {"custom_id": f"sh:{snapshot.id}:1:play:0", "component_type": 2},
                "message": message,
            }
            frame = {"op": 0, "s": number, "t": "INTERACTION_CREATE", "d": interaction}
            made.append(Unit(orjson.dumps(frame), snapshot, seat))
    return made


def work(unit: Unit) -> None:
    """Do a click's own part: parse its frame, draw the clicker's view, write the answer."""
    orjson.loads(unit.frame)
    unit.snapshot.drawn.clear()  # drawn afresh, as for a new snapshot
    shown = render_private(unit.snapshot, unit.seat, LOCALE, WHERE)
    orjson.dumps(
        {"type": 7, "data": {"embeds": shown.embed_payloads, "components": shown.view}},
        default=lambda components: components.to_components(),
    )


def time_units(made: list[Unit], gap_ms: float, rounds: int) -> list[float]:
    """Time `rounds` units (cycling through them), each after sleeping `gap_ms`; in us."""
    taken: list[float] = []
    for index in range(rounds):
        unit = made[index % len(made)]
        if gap_ms:
            time.sleep(gap_ms / 1000)
        began = time.thread_time_ns()
        work(unit)
        taken.append((time.thread_time_ns() - began) / 1000)
    return taken


async def recorded_units(seed: int) -> list[Unit]:
    """Record a classic game and make its clicks, warmed up (imports, first-use caches)."""
    # Without pictures, as the load bench's figures are.
    [snapshots] = with_pictures(await record(1, seed, "classic"), False)
    made = units(snapshots)
    time_units(made, 0.0, len(made))
    return made


# The load bench's machine figure: a click's work hot and after this long idle (at 50
# tables the bot waits about a millisecond between its events).
REFERENCE_GAP_MS = 1.0
REFERENCE_ROUNDS = 100


async def reference() -> dict[str, float]:
    """Time a click's own work hot and after 1 ms idle, on this machine now (in us)."""
    made = await recorded_units(seed=1)
    hot = statistics.fmean(time_units(made, 0.0, REFERENCE_ROUNDS))
    cold = statistics.fmean(time_units(made, REFERENCE_GAP_MS, REFERENCE_ROUNDS))
    return {"hot_us": round(hot, 1), "after_1ms_us": round(cold, 1)}


def measure(gaps: tuple[float, ...], rounds: int, seed: int) -> dict[str, Any]:
    """Record a game, then time a click's work after each gap; return the figures."""
    made = asyncio.run(recorded_units(seed))
    by_gap: dict[str, dict[str, float]] = {}
    hot: float | None = None
    for gap in gaps:
        taken = time_units(made, gap, rounds)
        mean = statistics.fmean(taken)
        hot = mean if hot is None else hot
        by_gap[f"{gap:g}"] = {
            "mean_us": round(mean, 1),
            "median_us": round(statistics.median(taken), 1),
            "times_the_first": round(mean / hot, 2) if hot else 0.0,
        }
    return {"seed": seed, "rounds": rounds, "units": len(made), "by_gap_ms": by_gap}


def parse_gaps(text: str) -> tuple[float, ...]:
    """Read `--gaps` as milliseconds, e.g. `0,1,5`."""
    try:
        gaps = tuple(float(each) for each in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--gaps takes milliseconds separated by commas, like 0,1,5 (not {text!r})"
        ) from None
    if any(not 0 <= gap <= 1000 for gap in gaps):
        raise argparse.ArgumentTypeError("--gaps are milliseconds from 0 to 1000")
    return gaps


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print its figures."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.wake",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--gaps", type=parse_gaps, default=DEFAULT_GAPS, help="milliseconds")
    parser.add_argument("--rounds", type=int, default=300, help="units timed per gap")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    figures = measure(args.gaps, args.rounds, args.seed)
    print(f"a click's own work ({figures['units']} clicks of one classic game), CPU per click:")
    for gap, each in figures["by_gap_ms"].items():
        print(
            f"  after {gap} ms idle: {each['mean_us']} us mean, {each['median_us']} us median "
            f"({each['times_the_first']}x the first)"
        )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
