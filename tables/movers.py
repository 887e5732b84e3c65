"""Where computer moves and hints are thought out: worker processes, so a long search never
holds the interpreter lock the bot's event loop needs to answer clicks.

The bot owns one `MovePool`: it starts it before the first table moves and shuts it down when
it stops; the worker processes are made when a computer seat is added or restored (or the
first hint is asked), so a bot whose tables have no computer seats never loads
`multiprocessing`. With no workers, or a strategy factory that cannot be sent to one (a
test's instrumented closure), moves and hints are thought out in a thread.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import pickle
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor
from typing import TypeVar

from engine.actions import Action
from engine.hints import DEFAULT_STRATEGY, Hint, hint
from engine.strategies import get_strategy, strategy_names
from engine.views import PlayerView
from tables import autoplay

log = logging.getLogger(__name__)
R = TypeVar("R")

# How often a worker checks that the bot's process is still there (a worker of a bot that was
# killed would otherwise wait for moves forever: it holds its queue's pipe open itself).
PARENT_CHECK_SECONDS = 1.0


def machine_workers() -> int:
    """Size the pool to the machine: every core but one, which stays the event loop's."""
    return max(1, (os.cpu_count() or 1) - 1)


class MovePool:
    """Choose computer moves in a small process pool; fall back in-process if a worker fails."""

    def __init__(self, workers: int | None = None) -> None:
        """Plan `workers` processes (None: sized to the machine; 0: no pool, a thread)."""
        self.workers = machine_workers() if workers is None else max(0, workers)
        self._started = False
        self._executor: Executor | None = None

    @property
    def running(self) -> bool:
        """Say whether worker processes are up."""
        return self._executor is not None

    def start(self) -> None:
        """Let workers think; their processes start with the first computer seat, move or hint."""
        self._started = self.workers > 0

    def warm(self) -> None:
        """Make the worker processes now, so a table's first computer move does not wait."""
        if not self._started or self._executor is not None:
            return
        try:
            self._executor = self._new_executor()
        except OSError:
            # No process could be made (too many, no memory): moves are thought out in a
            # thread meanwhile, and the next move or computer seat tries again.
            log.exception("the computer players' worker processes could not be started")
            return
        log.info("computer players think in %d worker processes", self.workers)

    def shutdown(self) -> None:
        """Stop the workers; moves asked for later are chosen in a thread."""
        self._started = False
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    async def choose(
        self,
        view: PlayerView,
        strategy: str,
        seed: int,
        *,
        table_id: str = "?",
        factory: autoplay.StrategyFactory = get_strategy,
    ) -> Action:
        """Pick the seat's move as `autoplay.choose` does, in a worker when there are any."""
        call = functools.partial(
            autoplay.choose, view, strategy, seed, table_id=table_id, factory=factory
        )
        # A worker that died costs one move: the basic player moves instead, as autoplay does
        # when a strategy fails.
        basic = autoplay.TIMEOUT_STRATEGY
        fallback = functools.partial(
            autoplay.choose, view, basic, seed, table_id=table_id, factory=factory
        )
        return await self._run(call, fallback, factory, table_id, "choosing for", view.seat)

    async def hint(
        self,
        view: PlayerView,
        seed: int,
        *,
        table_id: str = "?",
        factory: autoplay.StrategyFactory = get_strategy,
    ) -> Hint:
        """Say the move the expert would make in `view`, and why, in a worker when there are any."""
        call = functools.partial(hint, view, seed, DEFAULT_STRATEGY, factory)
        # A failed search still answers: with the basic player's move, explained the same way.
        fallback = functools.partial(hint, view, seed, autoplay.TIMEOUT_STRATEGY, factory)
        return await self._run(call, fallback, factory, table_id, "hinting for", view.seat)

    async def _run(
        self,
        call: Callable[[], R],
        fallback: Callable[[], R],
        factory: autoplay.StrategyFactory,
        table_id: str,
        doing: str,
        seat: int,
    ) -> R:
        """Run `call` in a worker (a thread without one); on a worker's failure, `fallback` here."""
        if not self._started or not _sendable(factory):
            return await asyncio.to_thread(call)
        self.warm()
        executor = self._executor
        if executor is None:
            return await asyncio.to_thread(call)
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, call)
        except Exception as error:
            log.exception("table %s: the worker %s seat %d failed", table_id, doing, seat)
            # Imported with the pool, which is why it is not imported above.
            from concurrent.futures.process import BrokenProcessPool

            if isinstance(error, BrokenProcessPool) and self._executor is executor:
                executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None  # its other futures fail too; start afresh
                self.warm()
            return fallback()

    def _new_executor(self) -> Executor:
        """Make the pool's processes: spawned, not forked from a process with threads running.

        Each loads the engine at once, before the move that made the pool reaches one.
        """
        # multiprocessing and the process pool are about 1 MB of a bot that never needs them.
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("spawn")
        executor = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context,
            initializer=_leave_with_parent,
            initargs=(os.getpid(),),
        )
        try:
            for _ in range(self.workers):
                executor.submit(strategy_names)
        except OSError:
            executor.shutdown(wait=False, cancel_futures=True)  # the processes it did make
            raise
        return executor


def _sendable(factory: autoplay.StrategyFactory) -> bool:
    """Say whether a worker can be handed `factory` (a module's function, not a closure)."""
    try:
        pickle.dumps(factory)
    except (pickle.PicklingError, AttributeError, TypeError):
        return False
    return True


def _leave_with_parent(parent: int) -> None:
    """In a worker: exit as soon as `parent`, the process that started it, is gone."""

    # The parent is named, not read here: it may have died before this worker got so far.
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="leave-with-parent", daemon=True).start()
