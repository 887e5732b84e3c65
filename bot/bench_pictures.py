"""Benchmark the pictures: CPU milliseconds and bytes per picture for four seeded tables.

    python -m bot.bench_pictures [--repeat 20] [--save DIR]

It times a 3-player classic table in mid-game, an 8-seat two-deck Schwechat table, a
40-card hand and a 200-card hand (four decks). Each is drawn `--repeat` times after one
warm-up (the card faces are drawn once per process and kept); the median counts. Times are
the drawing thread's CPU time (`time.thread_time`), what a picture costs the bot: a busy
machine inflates it less than wall time. The key alone (no drawing) is timed too.
Human-readable lines come first; the last line printed is one JSON object. `--save DIR`
writes the JPEGs there to look at.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bot.pictures import Picture, hand_picture, picture_key, table_picture
from engine.game import Game
from engine.position import build_game
from engine.rules import make_rules
from engine.strategies import get_strategy
from engine.views import player_view
from tables.model import Seat, Table
from tables.outcome import Snapshot, snapshot

NAMES = (
    "Ana",
    "Jürgen Großmann-Übermeister",
    "Łukasz",
    "Søren",
    "Zoë 🦊",
    "Ben",
    "María José",
    "Chris",
)


def _table(preset: str, game: Game, names: tuple[str, ...], computers: int = 0) -> Table:
    """Seat members (the last `computers` seats computer players) at a table with a game."""
    seats = [Seat(100 + index, name) for index, name in enumerate(names)]
    for seat in seats[len(seats) - computers :]:
        seat.computer = "basic"
    table = Table("abc", 1, 2, 100, preset, game.rules, 7, 90, 3, seats)
    table.game = game
    return table


def play(game: Game, moves: int, until_out: int = 0) -> None:
    """Play `moves` moves with the basic strategy (more until `until_out` seats are out)."""
    strategy = get_strategy("basic", seed=game.seed)
    made = 0
    while game.phase in ("setup", "play") and (made < moves or len(game.finished) < until_out):
        seat = game.to_act()[0]
        game.apply(strategy.choose(player_view(game, seat)))
        made += 1


def classic_three() -> Snapshot:
    """Build a 3-player classic table in mid-game (one computer player)."""
    game = Game.deal(make_rules("classic"), 3, seed=11)
    play(game, 23)
    return snapshot(_table("classic", game, ("Ana", "Ben", "Computer"), computers=1))


def schwechat_eight() -> Snapshot:
    """Build an 8-seat Schwechat table (two decks): one seat out, one left, long names."""
    game = Game.deal(make_rules("schwechat"), 8, seed=3)
    play(game, 60, until_out=1)
    table = _table("schwechat", game, NAMES, computers=1)
    table.seats[5].removed = True
    return snapshot(table)


def big_hand(cards: int, decks: int) -> Snapshot:
    """Build a 2-player table whose first seat holds `cards` cards (`decks` decks, jokers)."""
    rules = make_rules("classic", {"decks": decks, "jokers": 4 if decks == 4 else 0})
    dealt = Game.deal(rules, 2, seed=5)
    extra = cards - len(dealt.hands[0])
    # The same deal in the play phase, the first seat having picked up `extra` more cards.
    game = build_game(
        rules,
        hands=[dealt.hands[0] + dealt.stock[:extra], dealt.hands[1]],
        face_up=dealt.face_up,
        face_down=dealt.face_down,
        stock=dealt.stock[extra:],
        turn=0,
    )
    return snapshot(_table("classic", game, ("Ana", "Ben")))


def cases() -> dict[str, Callable[[], Picture]]:
    """Name each benchmarked picture and how to make it."""
    three, eight = classic_three(), schwechat_eight()
    forty, two_hundred = big_hand(40, 2), big_hand(200, 4)
    return {
        "table_3_classic": lambda: _some(table_picture(three, "en")),
        "table_8_schwechat": lambda: _some(table_picture(eight, "en")),
        "hand_40": lambda: _some(hand_picture(forty, 0, "en")),
        "hand_200": lambda: _some(hand_picture(two_hundred, 0, "en")),
    }


def _some(picture: Picture | None) -> Picture:
    """Insist on a picture (every benchmarked table has a game)."""
    assert picture is not None
    return picture


def keys() -> dict[str, Callable[[], str]]:
    """Name each benchmarked key and how to compute it."""
    three, eight, two_hundred = classic_three(), schwechat_eight(), big_hand(200, 4)
    return {
        "key_table_3": lambda: picture_key(three, None, "en"),
        "key_table_8": lambda: picture_key(eight, None, "en"),
        "key_hand_200": lambda: picture_key(two_hundred, 0, "en"),
    }


def _drawn(make: Callable[[], Picture]) -> bytes:
    """Make a picture anew and draw it."""
    return make().data


def _timed_ms(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Time `run` `repeat` times after one warm-up; return p50 and p95 CPU milliseconds."""
    run()
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        run()
        times.append((time.thread_time() - start) * 1000)
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    return statistics.median(times), p95


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Time every case; print a line each and the JSON last."""
    parser = argparse.ArgumentParser(prog="python -m bot.bench_pictures")
    parser.add_argument("--repeat", type=int, default=20, help="draws per picture (median)")
    parser.add_argument("--save", type=Path, help="write the JPEGs into this folder")
    args = parser.parse_args(argv)
    figures: dict[str, dict[str, float]] = {}
    for name, make in cases().items():
        data = make().data
        ms, p95 = _timed_ms(partial(_drawn, make), args.repeat)
        figures[name] = {"ms": round(ms, 2), "p95_ms": round(p95, 2), "bytes": len(data)}
        print(f"{name:<20} p50 {ms:7.2f} ms  p95 {p95:7.2f} ms  {len(data):>7} bytes")
        if args.save is not None:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"{name}.jpg").write_bytes(data)
    for name, key in keys().items():
        ms, p95 = _timed_ms(key, args.repeat)
        figures[name] = {"ms": round(ms, 3), "p95_ms": round(p95, 3)}
        print(f"{name:<20} p50 {ms:7.3f} ms  p95 {p95:7.3f} ms")
    print(json.dumps(figures, sort_keys=True))
    return figures


if __name__ == "__main__":
    main()
