"""Fakes for the core: a clock the test moves, a store in memory, a sink that records."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
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


class FakeClock:
    """A clock the test moves; the service's sleeps end when it passes their moment."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future = asyncio.get_running_loop().create_future()
        self.sleepers.append((self.now + seconds, future))
        await future

    async def advance(self, seconds: float, step: float = 0.5) -> None:
        end = self.now + seconds
        while self.now < end:
            self.now = min(end, self.now + step)
            for when, future in list(self.sleepers):
                if when <= self.now:
                    self.sleepers.remove((when, future))
                    if not future.done():
                        future.set_result(None)
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
        store=store, sink=recorder, timing=TIMING, clock=clock, sleep=clock.sleep, seeds=lambda: 7
    )
    yield svc
    await svc.shutdown()
