"""The move pool: computer moves are thought out in worker processes, and survive a dead one."""

from __future__ import annotations

import errno
import multiprocessing
import os
import random
import subprocess
import sys
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path

import pytest

from engine.game import Game
from engine.hints import hint
from engine.resample import Resampler
from engine.rules import make_rules
from engine.strategies import Strategy, get_strategy
from engine.views import PlayerView, player_view
from tables import autoplay
from tables.movers import PARENT_CHECK_SECONDS, MovePool, machine_workers


def in_a_worker(name: str, seed: int) -> Strategy:
    """Build the strategy only inside a worker process: in the bot's own process, refuse."""
    if multiprocessing.parent_process() is None:
        raise RuntimeError("asked to think in the bot's own process")
    return get_strategy(name, seed)


def die(name: str, seed: int) -> Strategy:
    """Kill the worker process that tries to build a strategy (not the test's own)."""
    if multiprocessing.parent_process() is not None:
        os._exit(1)
    return get_strategy(name, seed)


def _view() -> PlayerView:
    """A play-phase view where the expert and the basic player choose differently."""
    game = Game.deal(make_rules("classic"), 3, seed=8)
    basic = get_strategy("basic", 1)
    while game.phase != "play" or game.moves < 20:
        game.apply(basic.choose(player_view(game, game.to_act()[0])))
    return player_view(game, game.to_act()[0])


def test_the_pool_is_sized_to_the_machine() -> None:
    assert MovePool().workers == machine_workers() == max(1, (os.cpu_count() or 1) - 1)
    assert MovePool(0).workers == 0


async def test_moves_are_thought_out_in_a_worker_process() -> None:
    view = _view()
    expected = autoplay.choose(view, "expert", 77)
    assert expected != autoplay.choose(view, autoplay.TIMEOUT_STRATEGY, 77)
    pool = MovePool(1)
    pool.start()
    try:
        # The processes are made for the first move asked, not before.
        assert not pool.running
        # The factory refuses in this process: only a worker can have chosen the expert's move.
        chosen = await pool.choose(view, "expert", 77, factory=in_a_worker)
        assert chosen == expected
        assert pool.running
    finally:
        pool.shutdown()
    assert not pool.running


def test_warming_makes_the_workers_before_any_move_once_the_pool_is_started() -> None:
    pool = MovePool(1)
    pool.warm()
    assert not pool.running  # not started: the bot is not up yet
    pool.start()
    try:
        pool.warm()
        assert pool.running
    finally:
        pool.shutdown()
    idle = MovePool(0)
    idle.start()
    idle.warm()
    assert not idle.running


class NoProcesses(MovePool):
    """A move pool on a machine that can make no more processes."""

    def _new_executor(self) -> Executor:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")


async def test_workers_that_cannot_start_leave_the_move_to_a_thread() -> None:
    pool = NoProcesses(1)
    pool.start()
    pool.warm()  # a computer seat joins: nothing is refused
    assert not pool.running
    view = _view()
    chosen = await pool.choose(view, "basic", 77)
    assert chosen == autoplay.choose(view, "basic", 77)
    assert not pool.running


def test_a_pool_whose_processes_fail_to_start_is_shut_down_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stopped: list[bool] = []

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    def shutdown(self: object, wait: bool = True, *, cancel_futures: bool = False) -> None:
        stopped.append(cancel_futures)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", refuse)
    monkeypatch.setattr(ProcessPoolExecutor, "shutdown", shutdown)
    pool = MovePool(1)
    pool.start()
    pool.warm()
    assert not pool.running
    assert stopped == [True]


async def test_without_workers_the_move_is_chosen_here() -> None:
    view = _view()
    pool = MovePool(0)
    pool.start()
    assert not pool.running
    chosen = await pool.choose(view, "expert", 77, factory=in_a_worker)
    # In this process the factory refuses every strategy, so autoplay forces the simplest move.
    assert chosen == autoplay.forced(view)


async def test_a_dead_worker_costs_one_move_and_the_pool_recovers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    view = _view()
    pool = MovePool(1)
    pool.start()
    try:
        chosen = await pool.choose(view, "expert", 77, table_id="t1", factory=die)
        assert chosen == autoplay.choose(view, autoplay.TIMEOUT_STRATEGY, 77)
        assert "table t1: the worker choosing for seat" in caplog.text
        # A fresh worker thinks the next move.
        again = await pool.choose(view, "expert", 77, factory=in_a_worker)
        assert again == autoplay.choose(view, "expert", 77)
    finally:
        pool.shutdown()


async def test_a_factory_a_worker_cannot_receive_thinks_here() -> None:
    view = _view()
    asked: list[str] = []

    def recorded(name: str, seed: int) -> Strategy:
        asked.append(name)
        return get_strategy(name, seed)

    pool = MovePool(1)
    pool.start()
    try:
        assert await pool.choose(view, "expert", 77, factory=recorded) == autoplay.choose(
            view, "expert", 77
        )
    finally:
        pool.shutdown()
    assert asked == ["expert"]


async def test_hints_are_thought_out_in_a_worker_process() -> None:
    view = _view()
    expected = hint(view, 77)
    assert expected != hint(view, 77, autoplay.TIMEOUT_STRATEGY)
    pool = MovePool(1)
    pool.start()
    try:
        # The factory refuses in this process: only a worker can have searched for this hint.
        assert await pool.hint(view, 77, factory=in_a_worker) == expected
    finally:
        pool.shutdown()


async def test_a_worker_s_hint_never_depends_on_hidden_cards() -> None:
    view = _view()
    worlds = Resampler(view)
    pool = MovePool(1)
    pool.start()
    try:
        expected = await pool.hint(view, 5)
        for draw in range(2):
            same = player_view(worlds.sample(random.Random(draw)), view.seat)
            assert same == view
            assert await pool.hint(same, 5) == expected
    finally:
        pool.shutdown()


async def test_a_dead_worker_costs_one_hint_the_basic_player_s(
    caplog: pytest.LogCaptureFixture,
) -> None:
    view = _view()
    pool = MovePool(1)
    pool.start()
    try:
        found = await pool.hint(view, 77, table_id="t2", factory=die)
        assert found == hint(view, 77, autoplay.TIMEOUT_STRATEGY)
        assert "table t2: the worker hinting for seat" in caplog.text
        assert await pool.hint(view, 77, factory=in_a_worker) == hint(view, 77)
    finally:
        pool.shutdown()


async def test_without_workers_a_hint_is_searched_in_a_thread() -> None:
    view = _view()
    threads: list[threading.Thread] = []

    def recorded(name: str, seed: int) -> Strategy:
        threads.append(threading.current_thread())
        return get_strategy(name, seed)

    pool = MovePool(0)
    assert await pool.hint(view, 77, factory=recorded) == hint(view, 77)
    assert threads and threads[0] is not threading.main_thread()


ORPHAN_SCRIPT = """
import asyncio, os, sys
from tables.movers import MovePool

async def main():
    executor = MovePool(1)._new_executor()  # the processes a first computer move makes
    if sys.argv[1] == "up":
        loop = asyncio.get_running_loop()
        print(await loop.run_in_executor(executor, os.getpid), flush=True)
    else:
        print(*executor._processes, flush=True)  # spawned, maybe still importing
    os._exit(0)  # killed: no shutdown, as when the bot's process is killed

asyncio.run(main())
"""


@pytest.mark.parametrize("when", ["up", "starting"])
def test_workers_leave_when_the_bot_process_is_killed(when: str) -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", ORPHAN_SCRIPT, when],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    worker = int(done.stdout.split()[0])
    # A worker still starting first loads the engine (seconds on a busy machine).
    deadline = time.monotonic() + 60 * PARENT_CHECK_SECONDS
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker)


def _alive(pid: int) -> bool:
    """Say whether a process still runs (a zombie has finished)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"
