"""What drawing costs the bot per move: embeds, components, fingerprints and pictures.

    python -m bench.drawing [--games 10] [--seed 1] [--preset classic] [--pictures both]

Plays seeded games of three members through the table core (each member taking their
first offer, as `bench.storage` does) and keeps every move's snapshot. Then it replays the
snapshots through the presenter's renderers alone, no Discord: after each move the table
message is drawn, and the private view of every member whose view changed
(`private_key`, as the presenter decides); each drawn message is fingerprinted, and its
pictures are drawn and encoded when what they show changed (their keys), as an upload
needs. Times are CPU time of this thread (`time.thread_time`), summed over the replay and
divided by the moves; the best of `--repeat` replays counts. A second replay times the
parts one by one: the table embed, the private embeds, the components, the fingerprints,
the picture scenes and keys, drawing the pictures and their JPEG encoding. The presenter
draws a live table message at most once a second, so under load the table's share is
smaller than here. Human-readable lines come first; the last line printed is one JSON
object.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bench.storage import moves
from bot.pictures.draw import draw_hand, draw_table, encode
from bot.pictures.scenes import fingerprint, hand_scene, table_scene
from bot.presenter import private_key
from bot.rendering import (
    Rendered,
    private_components,
    private_embed,
    render_private,
    render_table,
    table_components,
    table_embed,
)
from tables.outcome import Snapshot
from tables.service import TableService

LOCALE = "en"
WHERE = "Table 1 in #games on Bench"
# A game that is not over after this many moves is a bug in the bench.
MOST_MOVES = 3000
PARTS = (
    "table_embed",
    "private_embeds",
    "components",
    "fingerprints",
    "picture_scenes",
    "picture_drawing",
    "encoding",
)


async def play(service: TableService, preset: str, channel: int) -> list[Snapshot]:
    """Play one game to its end; return the table's snapshot after every move."""
    return [outcome.snapshot async for _, outcome in moves(service, preset, channel)]


async def record(games: int, seed: int, preset: str) -> list[list[Snapshot]]:
    """Play the games in memory; return each game's snapshots, move by move."""
    service = TableService(seeds=iter(range(seed, seed + games)).__next__)
    return [await play(service, preset, channel=100 + game) for game in range(games)]


def _upload(rendered: Rendered, shown: tuple[str, ...] | None) -> tuple[str, ...]:
    """Draw the pictures an upload needs (what `Rendered.prepare` does, on this thread)."""
    if rendered.pictures and rendered.file_keys != shown:
        for picture in rendered.pictures:
            picture.data  # noqa: B018 - reading it draws and encodes the picture
    return rendered.file_keys


def forget_drawn(games: list[list[Snapshot]]) -> None:
    """Forget what earlier replays drew into the snapshots: the bot draws each one afresh."""
    for snapshots in games:
        for snapshot in snapshots:
            snapshot.drawn.clear()


def replay(games: list[list[Snapshot]]) -> float:
    """Draw every move's messages as the presenter would; return the CPU seconds."""
    forget_drawn(games)
    began = time.thread_time()
    for snapshots in games:
        table_files: tuple[str, ...] | None = None
        keys: dict[int, tuple[object, ...]] = {}
        files: dict[int, tuple[str, ...] | None] = {}
        for snapshot in snapshots:
            table = render_table(snapshot, LOCALE)
            table.fingerprint()
            table_files = _upload(table, table_files)
            for seat in snapshot.humans():
                key = private_key(snapshot, seat)
                if keys.get(seat) == key:
                    continue
                keys[seat] = key
                private = render_private(snapshot, seat, LOCALE, WHERE)
                private.fingerprint()
                files[seat] = _upload(private, files.get(seat))
    return time.thread_time() - began


class Parts:
    """CPU seconds spent in each part of drawing."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(PARTS, 0.0)

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        """Time the block as a part."""
        began = time.thread_time()
        yield
        self.seconds[name] += time.thread_time() - began


def replay_parts(games: list[list[Snapshot]]) -> dict[str, float]:
    """Draw every move's messages part by part; return each part's CPU seconds."""
    parts = Parts()
    forget_drawn(games)
    for snapshots in games:
        table_key = ""
        hand_keys: dict[int, str] = {}
        keys: dict[int, tuple[object, ...]] = {}
        for snapshot in snapshots:
            with parts.part("table_embed"):
                table_embed(snapshot, LOCALE)
            with parts.part("components"):
                table_components(snapshot, LOCALE)
            _fingerprint(parts, render_table(snapshot, LOCALE))
            if snapshot.pictures:
                table_key = _picture(parts, snapshot, None, table_key)
            for seat in snapshot.humans():
                key = private_key(snapshot, seat)
                if keys.get(seat) == key:
                    continue
                keys[seat] = key
                player = snapshot.private.get(seat)
                with parts.part("private_embeds"):
                    private_embed(snapshot, seat, player, LOCALE, WHERE)
                if player is not None and snapshot.open:
                    with parts.part("components"):
                        private_components(snapshot, player, LOCALE, None)
                _fingerprint(parts, render_private(snapshot, seat, LOCALE, WHERE))
                if snapshot.pictures:
                    hand_keys[seat] = _picture(parts, snapshot, seat, hand_keys.get(seat, ""))
    return parts.seconds


def _fingerprint(parts: Parts, rendered: Rendered) -> None:
    """Time a drawn message's fingerprint (the message is drawn untimed)."""
    with parts.part("fingerprints"):
        rendered.fingerprint()


def _picture(parts: Parts, snapshot: Snapshot, seat: int | None, shown: str) -> str:
    """Time a picture's scene and key, and its drawing and encoding if its key changed."""
    with parts.part("picture_scenes"):
        if seat is None:
            table = table_scene(snapshot, LOCALE)
            scene: Any = table
            key = "" if table is None else fingerprint("table", table)
        else:
            hand = hand_scene(snapshot, seat, LOCALE)
            scene = hand
            key = "" if hand is None else fingerprint("hand", hand)
    if scene is None or key == shown:
        return key
    with parts.part("picture_drawing"):
        image = draw_table(scene) if seat is None else draw_hand(scene)
    with parts.part("encoding"):
        encode(image)
    return key


def with_pictures(games: list[list[Snapshot]], pictures: bool) -> list[list[Snapshot]]:
    """Say the same games with the pictures on or off."""
    return [[dataclasses.replace(each, pictures=pictures) for each in game] for game in games]


def measure(games: int, seed: int, preset: str, pictures: str, repeat: int) -> dict[str, Any]:
    """Record the games, then time drawing them; return the figures."""
    recorded = asyncio.run(record(games, seed, preset))
    moves = sum(len(game) for game in recorded)
    figures: dict[str, Any] = {"games": games, "seed": seed, "preset": preset, "moves": moves}
    modes = {"off": (False,), "on": (True,), "both": (False, True)}[pictures]
    for on in modes:
        name = "pictures_on" if on else "pictures_off"
        replayed = with_pictures(recorded, on)
        # The least of the replays counts, the least disturbed by other work; a first replay
        # warms the caches a running bot has warm (card sprites, fonts).
        replay(replayed)
        total = min(replay(replayed) for _ in range(repeat))
        split = [replay_parts(replayed) for _ in range(repeat)]
        figures[name] = {
            "ms_per_move": round(total * 1000 / moves, 3),
            "parts_ms_per_move": {
                part: round(min(each[part] for each in split) * 1000 / moves, 3) for part in PARTS
            },
        }
    return figures


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m bench.drawing", description=__doc__)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--pictures", choices=("off", "on", "both"), default="both")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    figures = measure(args.games, args.seed, args.preset, args.pictures, args.repeat)
    print(f"{figures['moves']} moves in {args.games} {args.preset} games of 3 members")
    for name in ("pictures_off", "pictures_on"):
        if name in figures:
            each = figures[name]
            parts = ", ".join(f"{part} {ms}" for part, ms in each["parts_ms_per_move"].items())
            print(f"{name}: {each['ms_per_move']} ms CPU per move ({parts})")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
