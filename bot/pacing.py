"""Pace writes to Discord so its rate limits are never hit: latest state wins.

Writes are grouped in buckets (a channel, a DM channel) that allow `limit` writes per
`window` seconds. Within a bucket each slot (the table message, a player's view, a ping)
holds only its latest job: a job replaced before it ran never runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

# A job returns whether it wrote to Discord (a job with nothing left to do costs nothing).
Job = Callable[[], Awaitable[bool]]


@dataclass
class _Bucket:
    pending: dict[Hashable, Job] = field(default_factory=dict)
    writes: deque[float] = field(default_factory=deque)
    worker: asyncio.Task[None] | None = None


class Pacer:
    """At most `limit` writes per `window` seconds per bucket, each slot's latest job only."""

    def __init__(
        self,
        limit: int = 4,
        window: float = 5.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.sleep = sleep
        self._buckets: dict[Hashable, _Bucket] = {}

    def submit(self, bucket: Hashable, slot: Hashable, job: Job) -> None:
        """Queue `job` for `slot`, replacing a job of that slot that has not run yet."""
        state = self._buckets.setdefault(bucket, _Bucket())
        state.pending[slot] = job
        if state.worker is None or state.worker.done():
            state.worker = asyncio.create_task(self._drain(bucket, state), name=f"pacer-{bucket}")

    async def _drain(self, bucket: Hashable, state: _Bucket) -> None:
        while state.pending:
            now = self.clock()
            while state.writes and now - state.writes[0] >= self.window:
                state.writes.popleft()
            if len(state.writes) >= self.limit:
                await self.sleep(self.window - (now - state.writes[0]))
                continue
            slot = next(iter(state.pending))
            job = state.pending.pop(slot)
            try:
                wrote = await job()
            except Exception:
                log.exception("a paced write to %s failed", bucket)
                wrote = True
            if wrote:
                state.writes.append(self.clock())
        if self._buckets.get(bucket) is state and not state.pending:
            del self._buckets[bucket]

    async def idle(self) -> None:
        """Wait until every queued job has run."""
        while True:
            workers = [s.worker for s in self._buckets.values() if s.worker and not s.worker.done()]
            if not workers:
                return
            await asyncio.gather(*workers, return_exceptions=True)

    async def close(self) -> None:
        """Cancel every queued job (and any a cancelled job queued meanwhile)."""
        while self._buckets:
            buckets = list(self._buckets.values())
            self._buckets.clear()
            for state in buckets:
                state.pending.clear()
                if state.worker is not None:
                    state.worker.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await state.worker
