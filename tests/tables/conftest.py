"""Fakes for the core: a clock the test moves, a store in memory, a sink that records."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from tables.model import Table
from tables.outcome import Outcome
from tables.ports import StoredState
from tables.service import TableService
from tables.timers import Timing


async def settle() -> None:
    """Let every ready task run."""
    for _ in range(50):
        await asyncio.sleep(0)


class FakeTimer:
    """A callback armed on the fake clock, as the event loop's `call_later` arms one."""

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock the test moves; the service's timers fire when it passes their moment."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.timers: list[FakeTimer] = []

    def __call__(self) -> float:
        return self.now

    def later(self, seconds: float, callback: Callable[[], None]) -> FakeTimer:
        timer = FakeTimer(self.now + seconds, callback)
        self.timers.append(timer)
        return timer

    @property
    def armed(self) -> int:
        """Count the timers waiting to fire."""
        return sum(not timer.cancelled for timer in self.timers)

    async def advance(self, seconds: float, step: float = 0.5) -> None:
        end = self.now + seconds
        while self.now < end:
            self.now = min(end, self.now + step)
            # As the event loop does: the due ones in the order of their moments.
            due = sorted((t for t in self.timers if t.when <= self.now), key=lambda t: t.when)
            self.timers = [timer for timer in self.timers if timer.when > self.now]
            for timer in due:
                if not timer.cancelled:
                    timer.callback()
            await settle()


class Recorder:
    """The sink: keeps every outcome published."""

    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []

    def published(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)

    @property
    def phases(self) -> list[str]:
        return [outcome.snapshot.phase for outcome in self.outcomes]

    @property
    def reminders(self) -> list[int]:
        return [
            int(note.params["seat"])
            for outcome in self.outcomes
            for note in outcome.notices
            if note.code == "remind"
        ]


class MemoryStore:
    """Tables kept as JSON text, as the database keeps them; writes can be made to fail."""

    def __init__(self) -> None:
        self.saved: dict[str, str] = {}
        self.ended: dict[str, str] = {}
        self.finished: list[str] = []
        self.unreadable: dict[str, str] = {}
        self.failing = False

    def _check(self) -> None:
        if self.failing:
            raise OSError(28, "No space left on device")

    async def save(self, table: Table, text: str) -> None:
        self._check()
        self.saved[table.id] = text

    async def end(self, table: Table, text: str) -> None:
        self._check()
        self.saved.pop(table.id, None)
        self.ended[table.id] = text
        if table.game is not None and table.game.over:
            self.finished.append(table.id)

    async def load(self) -> list[StoredState]:
        return [
            StoredState(table_id, text)
            for table_id, text in self.saved.items()
            if table_id not in self.unreadable
        ]

    async def load_ended(self) -> list[StoredState]:
        return [StoredState(table_id, text) for table_id, text in self.ended.items()]

    async def mark_unreadable(self, table_id: str, reason: str) -> None:
        self.unreadable[table_id] = reason

    def state(self, table_id: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.saved[table_id])
        return data


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


TIMING = Timing(lobby_seconds=600, setup_seconds=60, computer_delay=0.5)


@pytest.fixture
async def service(
    clock: FakeClock, store: MemoryStore, recorder: Recorder
) -> AsyncIterator[TableService]:
    svc = TableService(
        store=store, sink=recorder, timing=TIMING, clock=clock, later=clock.later, seeds=lambda: 7
    )
    yield svc
    await svc.shutdown()
