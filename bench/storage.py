"""What storing a table costs per move: serialising its state and writing it, on SQLite.

    python -m bench.storage [--games 20] [--seed 1] [--preset classic] [--synchronous FULL]

Plays seeded games of three members through the table core (`TableService.submit`, each
member taking their first offer) on the bot's own table store over a temporary SQLite
file, and times, in CPU time of the whole process (the database's thread too), each
move's `submit` and the parts of it that store the table: its JSON text (`state_text`)
and the store's `save` (the SQL write). Every table write of a game counts, setup and ending
included. To tell what a write's size costs from what any write costs, it then times the
last table's write of its own final state and of a state of a few bytes, as small as a
move stored as a row of its own would be (the least such a row could cost), turn about, so
the machine's load weighs on both alike. Then it times the games' final states written
all at once, round after round, as many tables' moves come at once under load (SQLite
commits the writes waiting together in one transaction). And it weighs the copy of each table's last
stored state that the core keeps in memory (to undo a change that could not be stored):
as its JSON text, and as the parsed JSON it kept before. The last line printed is one
JSON object. `--synchronous NORMAL` weighs what the bot's `PRAGMA synchronous = FULL` (an
fsync at every commit) costs: in WAL mode NORMAL keeps a commit through a killed process
but not through a power cut.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from bot.database import DatabaseUrl, open_database
from bot.storage import Storage
from bot.table_store import StorageTableStore
from engine.rules import make_rules
from tables import controls
from tables.intents import (
    ChooseFaceUp,
    FlipCard,
    GameIntent,
    Join,
    MarkReady,
    Member,
    PickUpPile,
    PlayCards,
    StackCards,
    Start,
    TurnStock,
)
from tables.model import Table, TableConfig
from tables.outcome import Outcome
from tables.ports import state_text
from tables.service import TableService
from tables.timers import Timing

MEMBERS = (Member(1, "Ana"), Member(2, "Ben"), Member(3, "Cid"))
# Timers that never fire while a game is played.
NEVER = 86_400.0
# A game that is not over after this many moves is a bug in the bench.
MOST_MOVES = 3000
# A move as a row of its own: about this much (a seat and an action).
SMALL_STATE = json.dumps({"seat": 1, "action": {"play": ["10h", "10s"]}})
SMALL_WRITES = 500
# Rounds of every game's table written at once.
TOGETHER_ROUNDS = 25


class TimedStore(StorageTableStore):
    """The bot's table store, timing the CPU each running table's write takes.

    The table's JSON text, which the core writes just before, is timed by writing it again.
    """

    def __init__(self, storage: Storage) -> None:
        super().__init__(storage)
        self.texts: list[float] = []
        self.saves: list[float] = []

    async def save(self, table: Table, text: str) -> None:
        """Write a running table, timed; time writing its JSON text too."""
        began = time.process_time()
        state_text(table)
        self.texts.append(time.process_time() - began)
        began = time.process_time()
        await super().save(table, text)
        self.saves.append(time.process_time() - began)


def first_offer(table: Table, seat: int) -> GameIntent:
    """Take the first thing a member's view offers: ready, a choice, a play, a flip, pick up."""
    offer = controls.controls(table.view(seat))
    if offer.ready is not None:
        return MarkReady()
    if offer.choose_count:
        return ChooseFaceUp(tuple(range(offer.choose_count)))
    if offer.stacks:
        return StackCards(0)
    if offer.plays:
        return PlayCards(0)
    if offer.flips:
        return FlipCard(0)
    if offer.stock is not None:
        return TurnStock()
    return PickUpPile(0)


async def moves(
    service: TableService, preset: str, channel: int
) -> AsyncIterator[tuple[float, Outcome]]:
    """Play one game to its end; give each move's CPU seconds in `submit` and its outcome."""
    config = TableConfig(make_rules(preset), preset, NEVER, 3, NEVER)
    host, *others = MEMBERS
    created = await service.create(1, channel, host, config)
    table = service.find(created.snapshot.id)
    assert table is not None
    for member in others:
        await service.submit(table.id, member, Join())
    await service.submit(table.id, host, Start())
    played = 0
    while table.phase != "over":
        game = table.game
        assert game is not None and played < MOST_MOVES, "the game did not end"
        seat = next(iter(game.to_act()))
        intent = first_offer(table, seat)
        began = time.process_time()
        outcome = await service.submit(table.id, MEMBERS[seat], intent, table.seats[seat].version)
        played += 1
        yield time.process_time() - began, outcome


async def play(service: TableService, preset: str, channel: int) -> tuple[list[float], Table]:
    """Play one game to its end; return each move's CPU seconds in `submit`, and the table."""
    played: list[float] = []
    table_id = None
    async for seconds, outcome in moves(service, preset, channel):
        played.append(seconds)
        table_id = outcome.snapshot.id
    assert table_id is not None
    table = service.find(table_id)
    assert table is not None
    return played, table


async def measure(games: int, seed: int, preset: str, synchronous: str = "FULL") -> dict[str, Any]:
    """Play the games on a fresh SQLite file; return the figures."""
    with tempfile.TemporaryDirectory(prefix="bench-storage-") as tmp:
        database = await open_database(DatabaseUrl.sqlite(Path(tmp) / "bench.sqlite3"))
        await database.fetch(f"PRAGMA synchronous = {synchronous}")
        try:
            store = TimedStore(Storage(database))
            service = TableService(
                store=store,
                timing=Timing(lobby_seconds=NEVER, setup_seconds=NEVER, turn_seconds=NEVER),
                seeds=iter(range(seed, seed + games)).__next__,
            )
            moves: list[float] = []
            tables: list[Table] = []
            for game in range(games):
                played, table = await play(service, preset, channel=100 + game)
                moves += played
                tables.append(table)
            texts = [state_text(each) for each in tables]
            row, small = await turn_about(store, table, texts[-1])
            began = time.process_time()
            for _ in range(TOGETHER_ROUNDS):
                await asyncio.gather(
                    *(
                        StorageTableStore.save(store, each, text)
                        for each, text in zip(tables, texts, strict=True)
                    )
                )
            together = (time.process_time() - began) / (TOGETHER_ROUNDS * games)
        finally:
            await database.close()
    total = sum(moves)
    stored = sum(store.texts) + sum(store.saves)
    return {
        "games": games,
        "preset": preset,
        "synchronous": synchronous,
        "moves": len(moves),
        "table_writes": len(store.saves),
        "submit_ms_per_move": round(total * 1000 / len(moves), 3),
        "state_text_ms_per_write": round(statistics.fmean(store.texts) * 1000, 3),
        "save_ms_per_write": round(statistics.fmean(store.saves) * 1000, 3),
        "stored_ms_per_move": round(stored * 1000 / len(moves), 3),
        "stored_share_of_submit": round(stored / total, 3),
        "table_row_save_ms": round(row * 1000, 3),
        "small_row_save_ms": round(small * 1000, 3),
        "save_ms_per_write_together": round(together * 1000, 3),
        "final_state_bytes_mean": round(statistics.fmean(len(text) for text in texts)),
        "kept_as_text_kb": round(sum(map(sys.getsizeof, texts)) / 1024 / games, 1),
        "kept_parsed_kb": round(parsed_bytes(texts) / 1024 / games, 1),
    }


async def turn_about(store: StorageTableStore, table: Table, text: str) -> tuple[float, float]:
    """Time a table's write of its text and of a few bytes, turn about; give each one's mean."""
    spent = [0.0, 0.0]
    for _ in range(SMALL_WRITES):
        for index, state in enumerate((text, SMALL_STATE)):
            began = time.process_time()
            await StorageTableStore.save(store, table, state)
            spent[index] += time.process_time() - began
    return spent[0] / SMALL_WRITES, spent[1] / SMALL_WRITES


def parsed_bytes(texts: list[str]) -> int:
    """Measure the memory the parsed JSON of some texts holds (Python objects, all of them)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        parsed = [json.loads(text) for text in texts]
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    del parsed
    return held


def main(argv: list[str] | None = None) -> int:
    """Run the storage bench and print its figures."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.storage", description="What storing a table costs per move."
    )
    parser.add_argument("--games", type=int, default=20, help="games played, one after another")
    parser.add_argument("--seed", type=int, default=1, help="the first game's deal")
    parser.add_argument("--preset", default="classic", help="house-rule preset")
    parser.add_argument(
        "--synchronous",
        default="FULL",
        choices=("FULL", "NORMAL"),
        help="SQLite's PRAGMA synchronous (the bot's: FULL)",
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    figures = asyncio.run(measure(args.games, args.seed, args.preset, args.synchronous))
    print(
        f"{figures['games']} games ({figures['preset']}, synchronous {figures['synchronous']}), "
        f"{figures['moves']} moves, "
        f"{figures['table_writes']} table writes: submit {figures['submit_ms_per_move']} ms CPU "
        f"per move, of which storing the table {figures['stored_ms_per_move']} ms "
        f"({figures['stored_share_of_submit']:.0%}: JSON text "
        f"{figures['state_text_ms_per_write']} ms + save {figures['save_ms_per_write']} ms a "
        f"write); a finished table's JSON {figures['final_state_bytes_mean']} bytes; written "
        f"again turn about with a {len(SMALL_STATE)}-byte state: "
        f"{figures['table_row_save_ms']} against {figures['small_row_save_ms']} ms; the "
        f"{figures['games']} tables written at once: {figures['save_ms_per_write_together']} ms "
        "a write"
    )
    print(
        f"a finished table's last stored state kept in memory: {figures['kept_as_text_kb']} KB "
        f"as JSON text, {figures['kept_parsed_kb']} KB parsed"
    )
    print(json.dumps(figures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
