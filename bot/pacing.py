"""Pace writes to Discord so its rate limits are never hit: latest state wins.

Writes are grouped in buckets (a channel, a DM channel) that allow `limit` writes per
`window` seconds. Within a bucket each slot (the table message, a player's view, a
reminder) holds only its latest job: a job replaced before it ran never runs. Urgent jobs
(a live table) go before others (the last word of a closed one). A job that Discord
refused for a while (`Retry`) runs again later, unless a newer job took its slot.
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
# How often a refused job is tried again, and how long it waits at most between tries.
MAX_RETRIES = 8
MAX_BACKOFF = 60.0


class Retry(Exception):
    """Discord refused a write for now (429, 5xx, no connection): try it again later."""

    def __init__(self, after: float = 1.0) -> None:
        super().__init__(after)
        self.after = after


@dataclass
class _Pending:
    job: Job
    urgent: bool
    number: int
    tries: int = 0


@dataclass
class _Bucket:
    pending: dict[Hashable, _Pending] = field(default_factory=dict)
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
        self._retries: set[asyncio.Task[None]] = set()
        # When each idle bucket with recent writes is dropped.
        self._forgets: dict[Hashable, asyncio.TimerHandle] = {}
        # The newest job submitted for each (bucket, slot) whose work is not done yet.
        self._newest: dict[tuple[Hashable, Hashable], int] = {}
        self._numbers = 0

    def submit(self, bucket: Hashable, slot: Hashable, job: Job, *, urgent: bool = True) -> None:
        """Queue `job` for `slot`, replacing a job of that slot that has not run yet."""
        self._numbers += 1
        self._newest[(bucket, slot)] = self._numbers
        self._queue(bucket, slot, _Pending(job, urgent, self._numbers))

    def _queue(self, bucket: Hashable, slot: Hashable, pending: _Pending) -> None:
        state = self._buckets.setdefault(bucket, _Bucket())
        state.pending[slot] = pending
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
            # The oldest urgent job first; the others when no urgent one waits.
            slot = next((s for s, p in state.pending.items() if p.urgent), None)
            if slot is None:
                slot = next(iter(state.pending))
            pending = state.pending.pop(slot)
            try:
                wrote = await pending.job()
            except Retry as refused:
                wrote = True
                self._retry(bucket, slot, pending, refused.after)
            except Exception:
                log.exception("a paced write to %s failed", bucket)
                wrote = True
                self._done(bucket, slot, pending)
            else:
                self._done(bucket, slot, pending)
            if wrote:
                state.writes.append(self.clock())
        # A bucket keeps its writes until they leave the window: a burst right after this
        # one must still count them.
        if state.writes:
            left = self.window - (self.clock() - state.writes[-1])
            if left > 0:
                loop = asyncio.get_running_loop()
                old = self._forgets.pop(bucket, None)
                if old is not None:
                    old.cancel()
                self._forgets[bucket] = loop.call_later(left, self._forget, bucket, state)
                return
        if self._buckets.get(bucket) is state and not state.pending:
            del self._buckets[bucket]

    def _forget(self, bucket: Hashable, state: _Bucket) -> None:
        """Drop a bucket left idle since its writes went out of the window."""
        self._forgets.pop(bucket, None)
        idle = not state.pending and (state.worker is None or state.worker.done())
        if self._buckets.get(bucket) is state and idle:
            del self._buckets[bucket]

    def _done(self, bucket: Hashable, slot: Hashable, pending: _Pending) -> None:
        """Forget a slot whose newest job has run."""
        if self._newest.get((bucket, slot)) == pending.number:
            del self._newest[(bucket, slot)]

    def _retry(self, bucket: Hashable, slot: Hashable, pending: _Pending, after: float) -> None:
        """Run a refused job again after a while, unless its slot got a newer job meanwhile."""
        pending.tries += 1
        if pending.tries > MAX_RETRIES:
            log.error("a paced write to %s was refused %d times; given up", bucket, pending.tries)
            self._done(bucket, slot, pending)
            return
        delay = min(MAX_BACKOFF, max(after, 0.5 * 2**pending.tries))

        async def later() -> None:
            await self.sleep(delay)
            if self._newest.get((bucket, slot)) == pending.number:
                self._queue(bucket, slot, pending)

        task = asyncio.create_task(later())
        self._retries.add(task)
        task.add_done_callback(self._retries.discard)

    async def idle(self) -> None:
        """Wait until every queued job has run (retries waiting included)."""
        while True:
            workers = [s.worker for s in self._buckets.values() if s.worker and not s.worker.done()]
            waiting = [*workers, *self._retries]
            if not waiting:
                return
            await asyncio.gather(*waiting, return_exceptions=True)

    async def close(self) -> None:
        """Cancel every queued job (and any a cancelled job queued meanwhile)."""
        for task in list(self._retries):
            task.cancel()
        for handle in self._forgets.values():
            handle.cancel()
        self._forgets.clear()
        self._newest.clear()
        while self._buckets:
            buckets = list(self._buckets.values())
            self._buckets.clear()
            for state in buckets:
                state.pending.clear()
                if state.worker is not None:
                    state.worker.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await state.worker
