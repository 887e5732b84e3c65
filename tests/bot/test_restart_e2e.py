"""Games survive a crash: the bot is killed with SIGKILL mid-game and a new process finishes it.

The bot runs as a real process (`tests.bot.restart_bot`) against a sandbox in this process,
on a SQLite file. The test plays through the sandbox like people do, reading whose turn it
is from the stored table (the same file the bot writes), never from the bot's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from sandbox.driver import Driver
from sandbox.server import Sandbox
from sandbox.testing import running_sandbox
from tables.model import Table
from tests.bot.test_play_e2e import ROOMY, act, find, footer, open_table

JSON = dict[str, Any]
ROOT = Path(__file__).resolve().parents[2]
NAMES = {0: "ana", 1: "ben", 2: "cid"}
# The first process waits this long before redrawing the other players' views, so the kill
# surely comes while those redraws are still to be written; the second one is quick.
SLOW_SETTLE = 0.3
QUICK_SETTLE = 0.01
MOVES_BEFORE_KILL = 5


# ---------------------------------------------------------------------- the bot's process


def tail(log: Path) -> str:
    """The end of the bot processes' log, to explain a failure."""
    return log.read_text(errors="replace")[-6000:]


@contextlib.asynccontextmanager
async def bot_process(
    sandbox: Sandbox, database: Path | str, settle: float, log: Path
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Run the bot in a process of its own until the block ends (or the test kills it)."""
    with log.open("ab") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.bot.restart_bot",
            sandbox.api_base,
            sandbox.gateway_url,
            sandbox.token,
            str(database),
            str(settle),
            cwd=ROOT,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        try:
            await sandbox.driver.wait_ready(timeout=20)
        except TimeoutError:
            raise AssertionError(f"the bot did not connect:\n{tail(log)}") from None
        yield process
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()


# ---------------------------------------------------------------------- what is stored


def stored(database: Path, table_id: str) -> Table | None:
    """Read a running table from the bot's database, as the bot last wrote it."""
    with contextlib.closing(sqlite3.connect(database, timeout=5)) as db:
        row = db.execute(
            "SELECT state FROM running_tables WHERE table_id = ? AND ended_at IS NULL",
            (table_id,),
        ).fetchone()
    return Table.from_json(json.loads(row[0])) if row else None


def recorded_games(database: Path) -> list[JSON]:
    """Read every finished game with its players."""
    with contextlib.closing(sqlite3.connect(database, timeout=5)) as db:
        games = db.execute("SELECT id, moves, end_reason FROM games ORDER BY id").fetchall()
        return [
            {
                "moves": moves,
                "end_reason": reason,
                "players": db.execute(
                    "SELECT name, place, loser FROM game_players WHERE game_id = ? ORDER BY seat",
                    (game_id,),
                ).fetchall(),
            }
            for game_id, moves, reason in games
        ]


# ---------------------------------------------------------------------- what players see


def field(message: JSON, name: str) -> str:
    """Return a field of a private view's embed."""
    for each in message["embeds"][0]["fields"]:
        if each["name"] == name:
            value: str = each["value"]
            return value
    raise AssertionError(f"no {name} field in {message['embeds']}")


def cards(message: JSON) -> tuple[str, str, str]:
    """A private view's hand, face-up cards and face-down count, as shown."""
    return field(message, "Hand"), field(message, "Face-up"), field(message, "Face-down")


def mark(table: Table, seat: int) -> str:
    return f"table {table.id} · view {table.seats[seat].version}"


async def current_dm(driver: Driver, database: Path, table_id: str, seat: int) -> JSON:
    """Wait until the seat's DM shows the stored table at the seat's current version."""

    def shown() -> JSON | None:
        table = stored(database, table_id)
        if table is None:
            return None
        dms = driver.dms(NAMES[seat])
        return next((m for m in reversed(dms) if footer(m) == mark(table, seat)), None)

    message: JSON = await driver.wait_until(shown, timeout=10)
    return message


async def move(driver: Driver, database: Path, table_id: str) -> JSON | None:
    """Make the next move from the DM of a player who is to act; None once the game is over."""
    table = stored(database, table_id)
    if table is None:
        return None
    assert table.game is not None
    seat = table.game.to_act()[0]
    message = await current_dm(driver, database, table_id, seat)
    answer = await act(driver, NAMES[seat], message)
    assert answer["status"] == "answered", answer
    assert not answer["response"]["ephemeral"], answer
    return answer


# ---------------------------------------------------------------------- the test


async def test_a_killed_bot_is_replaced_and_the_game_goes_on(tmp_path: Path) -> None:
    database, log = tmp_path / "bot.sqlite3", tmp_path / "bot.log"

    async with running_sandbox(rate_limits=ROOMY) as sandbox:
        driver = sandbox.driver
        for name in NAMES.values():
            await driver.create_user(name)
        async with bot_process(sandbox, database, SLOW_SETTLE, log) as first:
            table_id, lobby = await open_table(driver, "ana", "general", "ben", "cid")
            started = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
            assert started["status"] == "answered", tail(log)
            # Everyone gets ready, then a few moves; the last one's answer is the last word.
            last: JSON | None = None
            for _ in range(len(NAMES) + MOVES_BEFORE_KILL):
                last = await move(driver, database, table_id)
            assert last is not None
            os.kill(first.pid, signal.SIGKILL)
            await first.wait()
        assert first.returncode == -signal.SIGKILL
        before = stored(database, table_id)
        assert before is not None and before.game is not None and before.phase == "play"
        moved = last["response"]["id"]
        mover = next(s for s, name in NAMES.items() if driver.dms(name)[-1]["id"] == moved)
        shown = {seat: cards(driver.dms(name)[-1]) for seat, name in NAMES.items()}
        assert shown[mover] == cards(last["response"])
        dm_ids = {seat: [m["id"] for m in driver.dms(name)] for seat, name in NAMES.items()}
        assert all(len(ids) == 1 for ids in dm_ids.values()), dm_ids
        # The kill came before the others' views were redrawn: the new process must do it.
        behind = [s for s, name in NAMES.items() if footer(driver.dms(name)[-1]) != mark(before, s)]
        assert behind and mover not in behind
        await driver.wait_until(lambda: not driver.state()["bot"]["connected"])

        async with bot_process(sandbox, database, QUICK_SETTLE, log):
            # The stored table is what the players saw, and the new process takes it up.
            after = stored(database, table_id)
            assert after is not None and after.to_json() == before.to_json()
            for seat, name in NAMES.items():
                # The old table message's My hand button answers with the same cards...
                hand = await driver.click(name, lobby["id"], f"sh:{table_id}:0:hand")
                assert hand["status"] == "answered", tail(log)
                assert hand["response"]["ephemeral"]
                assert footer(hand["response"]) == mark(before, seat)
                assert cards(hand["response"]) == shown[seat]
                # ...and each DM, the first process's message, is brought up to date.
                dm = await current_dm(driver, database, table_id, seat)
                assert [m["id"] for m in driver.dms(name)] == dm_ids[seat]
                assert cards(dm) == shown[seat]
            # The old DMs' buttons and menus play the game to its end.
            moves = 0
            while await move(driver, database, table_id) is not None:
                moves += 1
                assert moves < 800, "the game did not end"

            def table_message() -> JSON:
                channel = driver.messages("general", limit=10_000)
                return next(m for m in channel if m["id"] == lobby["id"])

            try:
                result = await driver.wait_until(
                    lambda: "Result" in json.dumps(table_message()["embeds"]), timeout=10
                )
            except TimeoutError:
                raise AssertionError(f"no result: {table_message()}\n{tail(log)}") from None
            result = table_message()
            for seat, name in NAMES.items():

                def over(name: str = name) -> bool:
                    return "The game is over" in json.dumps(driver.dms(name)[-1])

                await driver.wait_until(over)
                assert [m["id"] for m in driver.dms(name)] == dm_ids[seat]
                assert find(driver.dms(name)[-1], "play") is None
        assert not any(e["status"] >= 400 for e in driver.log()), driver.log()

    games = recorded_games(database)
    assert len(games) == 1, tail(log)
    record = games[0]
    assert record["end_reason"] == "out"
    assert record["moves"] > before.game.moves
    assert [name for name, _, _ in record["players"]] == list(NAMES.values())
    losers = [name for name, _, loser in record["players"] if loser]
    assert len(losers) == 1
    assert f"Shithead: {losers[0]}" in json.dumps(result["embeds"], ensure_ascii=False)
    assert stored(database, table_id) is None
