"""Pace writes to Discord so its rate limits are never hit: latest state wins.

Writes are grouped in buckets (a channel, a DM channel) that allow `limit` writes per
`window` seconds. Within a bucket each slot (the table message, a player's view, a
reminder) holds only its latest job: a job replaced before it ran never runs. Urgent jobs
(a live table) go before others (the last word of a closed one). A job that Discord
refused for a while (its `refused` says how long) runs again later, unless a newer job took
its slot. A job whose slot gets a newer job while its write waits to go (for a connection:
`check_current`) drops that write, so a backlog of writes holds each slot's newest only.

A job may be held a while before it is queued (`after`: a redraw that waits for a burst of
changes to settle). A newer job for its slot replaces it and is held anew, so a job
overtaken while it waits is never run; held jobs share one timer and no task.

A gated job (opening a DM conversation: the channel and its first message) also waits for
one of `gate_limit` places shared by all buckets, so a burst of new players does not hold
every request, payload and response at once. A bucket waiting for a place, or with nothing
queued, keeps no task; once its writes have left the window it is forgotten.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import heapq
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

# A job returns whether it wrote to Discord (a job with nothing left to do costs nothing).
Job = Callable[[], Awaitable[bool]]
# Says how long to wait before trying again a job that failed with an error (None: it failed
# for good); given with the job, so no wrapper is made around each job to tell it.
Refused = Callable[[Exception], float | None]
# How often a refused job is tried again, and how long it waits at most between tries.
MAX_RETRIES = 8
MAX_BACKOFF = 60.0
# How many gated jobs (DM openings) run at once, across all buckets.
GATE_LIMIT = 4
# How often idle buckets are looked at, at most, per window (`Pacer._sweep`).
SWEEPS = 4
# Held jobs due this soon after a release go with it: a burst costs one wake-up.
HOLD_SLACK = 0.02


class Superseded(Exception):
    """A newer job took a running job's slot before its write went: the write is dropped."""


@dataclass(slots=True)
class _Pending:
    job: Job
    urgent: bool
    number: int
    # Its (bucket, slot), and its pacer's newest job number of each: what `check_current`
    # reads, so running a job makes no check of its own.
    key: tuple[Hashable, Hashable]
    newest: dict[tuple[Hashable, Hashable], int]
    gated: bool = False
    refused: Refused | None = None
    tries: int = 0


# The job running in this task, when a pacer runs one (`check_current`).
_running: contextvars.ContextVar[_Pending | None] = contextvars.ContextVar(
    "paced_job", default=None
)


def check_current() -> None:
    """Raise `Superseded` if the paced job running here has a newer job for its slot."""
    pending = _running.get()
    if pending is not None and pending.newest.get(pending.key) != pending.number:
        raise Superseded


@dataclass(slots=True)
class _Bucket:
    pending: dict[Hashable, _Pending] = field(default_factory=dict)
    # When the writes still inside the window went out, oldest first (at most `limit`).
    writes: list[float] = field(default_factory=list)
    # The task draining `pending`; None while nothing is queued or while `parked`.
    worker: asyncio.Task[None] | None = None
    # Its next job waits for a place at the gate (in the pacer's queue, with no task).
    parked: bool = False
    # It holds a place at the gate (taken, or handed over when a place came free).
    holding: bool = False


class Pacer:
    """At most `limit` writes per `window` seconds per bucket, each slot's latest job only."""

    def __init__(
        self,
        limit: int = 4,
        window: float = 5.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        gate_limit: int = GATE_LIMIT,
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.sleep = sleep
        self.gate_limit = gate_limit
        self._gate_used = 0
        # The parked buckets, first come first served.
        self._gate_queue: deque[tuple[Hashable, _Bucket]] = deque()
        self._buckets: dict[Hashable, _Bucket] = {}
        self._retries: set[asyncio.Task[None]] = set()
        # Idle buckets with writes in the window, with when they may be forgotten: one
        # timer for all of them (a bucket's own timer would cost as much as the bucket).
        self._lingering: deque[tuple[float, Hashable, _Bucket]] = deque()
        self._sweeper: asyncio.TimerHandle | None = None
        # The newest job submitted for each (bucket, slot) whose work is not done yet.
        self._newest: dict[tuple[Hashable, Hashable], int] = {}
        self._numbers = 0
        # The jobs held until their time (`submit(after=...)`), the newest per slot; when each
        # is due, by (due, number), with entries of replaced jobs left in until they come up.
        self._held: dict[tuple[Hashable, Hashable], _Pending] = {}
        self._due: list[tuple[float, int, tuple[Hashable, Hashable]]] = []
        self._hold_timer: asyncio.TimerHandle | None = None
        self._hold_until = float("inf")
        # What `idle` waits on while jobs are held: set once none is.
        self._unheld: asyncio.Future[None] | None = None

    def submit(
        self,
        bucket: Hashable,
        slot: Hashable,
        job: Job,
        *,
        urgent: bool = True,
        gated: bool = False,
        after: float = 0.0,
        refused: Refused | None = None,
    ) -> None:
        """Queue `job` for `slot`, replacing a job of that slot that has not run yet.

        A `gated` job runs only while fewer than `gate_limit` gated jobs run. A job given
        `after` is queued that many seconds later, unless a newer job replaced it. An error
        that `refused` gives a wait for is a refusal for now: the job runs again after it.
        """
        self._numbers += 1
        key = (bucket, slot)
        self._newest[key] = self._numbers
        pending = _Pending(job, urgent, self._numbers, key, self._newest, gated, refused)
        if after <= 0:
            self._held.pop(key, None)  # overtaken while held
            self._queue(bucket, slot, pending)
            return
        state = self._buckets.get(bucket)
        if state is not None:
            state.pending.pop(slot, None)  # overtaken: it would only be dropped when it ran
        self._held[key] = pending
        due = self.clock() + after
        heapq.heappush(self._due, (due, self._numbers, key))
        if due < self._hold_until:
            self._unhold_at(due)

    def _unhold_at(self, due: float) -> None:
        """Set the held jobs' one timer to go off at `due`."""
        if self._hold_timer is not None:
            self._hold_timer.cancel()
        self._hold_until = due
        delay = max(0.0, due - self.clock())
        self._hold_timer = asyncio.get_running_loop().call_later(delay, self._unhold)

    def _unhold(self) -> None:
        """Queue the held jobs that are due; set the timer for the next one."""
        self._hold_timer = None
        self._hold_until = float("inf")
        now = self.clock() + HOLD_SLACK
        due = self._due
        held = self._held
        while due:
            when, number, key = due[0]
            pending = held.get(key)
            # An entry of a job replaced while held goes, so the timer is set for a live one.
            current = pending is not None and pending.number == number
            if current and when > now:
                break
            heapq.heappop(due)
            if pending is not None and current:
                del held[key]
                self._queue(key[0], key[1], pending)
        if due:
            self._unhold_at(due[0][0])
        if not held and self._unheld is not None:
            self._unheld.set_result(None)
            self._unheld = None

    def _queue(self, bucket: Hashable, slot: Hashable, pending: _Pending) -> None:
        state = self._buckets.setdefault(bucket, _Bucket())
        state.pending[slot] = pending
        if state.worker is None and not state.parked:
            self._start(bucket, state)

    def _start(self, bucket: Hashable, state: _Bucket) -> None:
        # One name for all workers: a bucket's name written into each cost more than its task.
        state.worker = asyncio.create_task(self._drain(bucket, state), name="pacer")

    async def _drain(self, bucket: Hashable, state: _Bucket) -> None:
        """Run a bucket's queued jobs within its limit, then let the bucket go."""
        # One coroutine a worker (not one draining inside another): a frame less to make and
        # to pass through at every resume.
        try:
            while state.pending:
                now = self.clock()
                while state.writes and now - state.writes[0] >= self.window:
                    del state.writes[0]
                if len(state.writes) >= self.limit:
                    await self.sleep(self.window - (now - state.writes[0]))
                    continue
                # The oldest urgent job first; the others when no urgent one waits. A lone job
                # (a member's DM bucket holds one) is not looked through for that.
                slot = None
                if len(state.pending) > 1:
                    slot = next((s for s, p in state.pending.items() if p.urgent), None)
                if slot is None:
                    slot = next(iter(state.pending))
                if state.pending[slot].gated and not state.holding:
                    if self._gate_used >= self.gate_limit:
                        # Wait in the queue without a task; a place coming free starts one.
                        state.parked = True
                        self._gate_queue.append((bucket, state))
                        return
                    self._gate_used += 1
                    state.holding = True
                pending = state.pending.pop(slot)
                running = _running.set(pending)
                try:
                    try:
                        wrote = await pending.job()
                    finally:
                        _running.reset(running)
                        if pending.gated:
                            self._release(state)
                except Superseded:
                    wrote = False  # the newer job, queued, writes instead
                except Exception as error:
                    wrote = True
                    after = pending.refused(error) if pending.refused is not None else None
                    if after is not None:
                        self._retry(bucket, slot, pending, after)
                    else:
                        log.exception("a paced write to %s failed", bucket)
                        self._done(pending)
                else:
                    self._done(pending)
                if wrote:
                    state.writes.append(self.clock())
        finally:
            # Nothing is awaited between the last look at `pending` and here: a job queued
            # after it starts a new worker.
            state.worker = None
            if state.holding and not state.parked:
                self._release(state)  # a place handed over that no gated job used
        if not state.parked:
            self._linger(bucket, state)

    def _release(self, state: _Bucket) -> None:
        """Give back a bucket's place at the gate, to the first parked bucket if any."""
        state.holding = False
        self._gate_used -= 1
        while self._gate_queue and self._gate_used < self.gate_limit:
            bucket, parked = self._gate_queue.popleft()
            if parked.parked and self._buckets.get(bucket) is parked:
                parked.parked = False
                parked.holding = True
                self._gate_used += 1
                self._start(bucket, parked)

    def _linger(self, bucket: Hashable, state: _Bucket) -> None:
        """Keep a drained bucket while its writes are in the window, else drop it."""
        # A burst right after this one must still count the writes in the window.
        if state.writes and self.clock() - state.writes[-1] < self.window:
            self._lingering.append((state.writes[-1] + self.window, bucket, state))
            if self._sweeper is None:
                loop = asyncio.get_running_loop()
                self._sweeper = loop.call_later(self.window, self._sweep)
            return
        self._forget(bucket, state)

    def _sweep(self) -> None:
        """Forget the idle buckets whose writes have left the window; look again later."""
        self._sweeper = None
        now = self.clock()
        while self._lingering and self._lingering[0][0] <= now:
            _, bucket, state = self._lingering.popleft()
            if not state.writes or now - state.writes[-1] >= self.window:
                self._forget(bucket, state)
        if self._lingering:
            # Buckets linger until different moments: they are forgotten in batches, at most
            # SWEEPS times a window, not each at its own moment (a timer and a wake-up each).
            left = max(self.window / SWEEPS, self._lingering[0][0] - now)
            self._sweeper = asyncio.get_running_loop().call_later(left, self._sweep)

    def _forget(self, bucket: Hashable, state: _Bucket) -> None:
        """Drop a bucket that has nothing queued (a newer bucket under its name is kept)."""
        if self._buckets.get(bucket) is state and not state.pending and state.worker is None:
            del self._buckets[bucket]

    def _done(self, pending: _Pending) -> None:
        """Forget a slot whose newest job has run."""
        if self._newest.get(pending.key) == pending.number:
            del self._newest[pending.key]

    def _retry(self, bucket: Hashable, slot: Hashable, pending: _Pending, after: float) -> None:
        """Run a refused job again after a while, unless its slot got a newer job meanwhile."""
        pending.tries += 1
        if pending.tries > MAX_RETRIES:
            log.error("a paced write to %s was refused %d times; given up", bucket, pending.tries)
            self._done(pending)
            return
        delay = min(MAX_BACKOFF, max(after, 0.5 * 2**pending.tries))

        async def later() -> None:
            await self.sleep(delay)
            if self._newest.get(pending.key) == pending.number:
                self._queue(bucket, slot, pending)

        task = asyncio.create_task(later())
        self._retries.add(task)
        task.add_done_callback(self._retries.discard)

    async def idle(self) -> None:
        """Wait until every queued job has run (held jobs and retries waiting included)."""
        while True:
            workers = [s.worker for s in self._buckets.values() if s.worker is not None]
            waiting: list[asyncio.Future[None]] = [*workers, *self._retries]
            if self._held:
                if self._unheld is None:
                    self._unheld = asyncio.get_running_loop().create_future()
                waiting.append(self._unheld)
            if not waiting:
                return
            await asyncio.gather(*waiting, return_exceptions=True)

    async def close(self) -> None:
        """Cancel every queued job (and any a cancelled job queued meanwhile)."""
        for task in list(self._retries):
            task.cancel()
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None
        self._hold_until = float("inf")
        self._held.clear()
        self._due.clear()
        if self._unheld is not None:
            self._unheld.set_result(None)
            self._unheld = None
        self._lingering.clear()
        self._gate_queue.clear()
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
