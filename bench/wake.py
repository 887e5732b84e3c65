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
from sandbox import factory
from sandbox.api import COMPONENT
from sandbox.world import Message, World, utcnow_iso
from tables.outcome import Snapshot

DEFAULT_GAPS = (0.0, 0.2, 1.0, 2.0, 5.0, 20.0)
# The gateway's opcode for an event, and a button's component type.
DISPATCH, BUTTON = 0, 2


@dataclass(frozen=True)
class Unit:
    """One click's work: its frame as it arrives, and the view its answer draws."""

    frame: bytes
    snapshot: Snapshot
    seat: int


def units(snapshots: list[Snapshot]) -> list[Unit]:
    """Make a click frame, as the sandbox sends it, on every member's view at every move."""
    world = World()
    guild = world.add_guild("bench")
    member = world.add_user("ana", dms_open=True, guild=guild, moderator=False)
    dm = world.dm_channel(member)
    made: list[Unit] = []
    for number, snapshot in enumerate(snapshots):
        for seat in snapshot.humans():
            shown = render_private(snapshot, seat, LOCALE, WHERE)
            embeds, rows = list(shown.embed_payloads), shown.view.to_components()
            message = Message(world.new_id(), dm.id, world.bot.id, "", embeds, rows, 0, "")
            message.timestamp = message.edited_timestamp = utcnow_iso()
            world.messages[message.id] = message
            data = {"custom_id": f"sh:{snapshot.id}:1:play:0", "component_type": BUTTON}
            clicked = world.new_interaction(
                type=COMPONENT, user_id=member.id, channel=dm, data=data, message_id=message.id
            )
            payload = factory.interaction(world, clicked)
            frame = {"op": DISPATCH, "t": "INTERACTION_CREATE", "s": number, "d": payload}
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


def reference(made: list[Unit]) -> dict[str, float]:
    """Time a click's own work hot and after 1 ms idle, on this machine now (in us)."""
    hot = statistics.fmean(time_units(made, 0.0, REFERENCE_ROUNDS))
    cold = statistics.fmean(time_units(made, REFERENCE_GAP_MS, REFERENCE_ROUNDS))
    return {"hot_us": round(hot, 1), "after_1ms_us": round(cold, 1)}


def measure(gaps: tuple[float, ...], rounds: int, seed: int) -> dict[str, Any]:
    """Record a game, then time a click's work after each gap; return the figures."""
    made = asyncio.run(recorded_units(seed))
    taken = {gap: time_units(made, gap, rounds) for gap in gaps}
    first = statistics.fmean(taken[gaps[0]])
    by_gap = {
        f"{gap:g}": {
            "mean_us": round(statistics.fmean(each), 1),
            "median_us": round(statistics.median(each), 1),
            "times_the_first": round(statistics.fmean(each) / first, 2),
        }
        for gap, each in taken.items()
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
