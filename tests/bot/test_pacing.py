"""The write pacer: latest job per slot, live tables first, refused writes tried again."""

from __future__ import annotations

import asyncio
import time

from bot.pacing import SWEEPS, Job, Pacer


class Refusal(Exception):
    """Discord's "not now, try again after a while"."""

    def __init__(self, after: float) -> None:
        super().__init__(after)
        self.after = after


def refused_for_now(error: Exception) -> float | None:
    """Say how long a refused job waits (None for any other failure)."""
    return error.after if isinstance(error, Refusal) else None


def recorder(runs: list[str], name: str, wrote: bool = True) -> Job:
    async def job() -> bool:
        runs.append(name)
        return wrote

    return job


async def test_urgent_jobs_go_first_and_a_replaced_job_never_runs() -> None:
    pacer = Pacer(limit=1, window=0.05)
    runs: list[str] = []
    pacer.submit("ch", "dead-1", recorder(runs, "dead-1"), urgent=False)
    pacer.submit("ch", "dead-2", recorder(runs, "dead-2"), urgent=False)
    pacer.submit("ch", "live", recorder(runs, "old live"))
    pacer.submit("ch", "live", recorder(runs, "live"))
    await pacer.idle()
    assert runs == ["live", "dead-1", "dead-2"]


async def test_a_refused_write_runs_again_until_it_goes_through() -> None:
    pacer = Pacer(limit=10, window=1.0)
    tries: list[int] = []

    async def flaky() -> bool:
        tries.append(1)
        if len(tries) < 3:
            raise Refusal(0.01)
        return True

    pacer.submit("ch", "table", flaky, refused=refused_for_now)
    await pacer.idle()
    assert len(tries) == 3


async def test_a_refused_write_is_not_tried_again_once_a_newer_one_took_its_slot() -> None:
    pacer = Pacer(limit=10, window=1.0)
    runs: list[str] = []
    release = asyncio.Event()

    async def refused() -> bool:
        runs.append("old")
        raise Refusal(0.05)

    async def newer() -> bool:
        await release.wait()
        runs.append("new")
        return True

    pacer.submit("ch", "table", refused, refused=refused_for_now)
    await asyncio.sleep(0.01)
    pacer.submit("ch", "table", newer)
    release.set()
    await pacer.idle()
    assert runs == ["old", "new"]


async def test_a_burst_after_an_idle_moment_still_counts_the_writes_in_the_window() -> None:
    loop = asyncio.get_running_loop()
    pacer = Pacer(limit=2, window=0.3)
    times: list[float] = []

    async def write() -> bool:
        times.append(loop.time())
        return True

    pacer.submit("ch", "a", write)
    pacer.submit("ch", "b", write)
    await pacer.idle()
    # The bucket went idle; a third write within the window must wait for the first to age.
    pacer.submit("ch", "c", write)
    await pacer.idle()
    assert len(times) == 3
    assert times[2] - times[0] >= 0.3 - 0.02
    await asyncio.sleep(0.35)
    assert not pacer._buckets


async def test_an_idle_bucket_is_dropped_once_its_writes_leave_the_window() -> None:
    pacer = Pacer(limit=5, window=0.1)
    pacer.submit("ch", "a", recorder([], "a"))
    await pacer.idle()
    assert "ch" in pacer._buckets
    await asyncio.sleep(0.15)
    assert "ch" not in pacer._buckets
    await pacer.close()


async def test_a_drained_bucket_keeps_no_task_and_idle_buckets_share_one_timer() -> None:
    pacer = Pacer(limit=5, window=0.2)
    for number in range(50):
        pacer.submit(("dm", number), "table", recorder([], "view"))
    await pacer.idle()
    assert len(pacer._buckets) == 50
    assert all(state.worker is None for state in pacer._buckets.values())
    # One timer forgets them all (the event loop's scheduled callbacks).
    assert len(asyncio.get_running_loop()._scheduled) <= 1  # type: ignore[attr-defined]
    await asyncio.sleep(0.3)
    assert not pacer._buckets
    await pacer.close()


async def test_buckets_lingering_until_different_moments_are_forgotten_in_a_few_sweeps() -> None:
    pacer = Pacer(limit=5, window=0.2)
    sweeps: list[float] = []
    sweep = pacer._sweep

    def counted() -> None:
        sweeps.append(time.monotonic())
        sweep()

    pacer._sweep = counted  # type: ignore[method-assign]
    first = time.monotonic()
    for number in range(20):  # each bucket's write leaves the window 10 ms after the last's
        pacer.submit(("dm", number), "view", recorder([], "view"))
        await asyncio.sleep(0.01)
    spread = time.monotonic() - first  # longer on a busy machine: so is the sweeping
    await asyncio.sleep(0.5)
    assert not pacer._buckets
    # At most four sweeps a window while they linger (and one at each end), not one for
    # each of the 20 buckets.
    assert len(sweeps) <= spread / (pacer.window / SWEEPS) + 2
    await pacer.close()


async def test_gated_jobs_run_at_most_gate_limit_at_once_the_others_wait_without_a_task() -> None:
    pacer = Pacer(limit=5, window=1.0, gate_limit=2)
    running = 0
    most = 0
    release = asyncio.Event()
    runs: list[str] = []

    async def open_dm() -> bool:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await release.wait()
        running -= 1
        return True

    for number in range(6):
        pacer.submit(("dm", number), "table", open_dm, gated=True)
    pacer.submit(("dm", 99), "table", recorder(runs, "edit"))
    await asyncio.sleep(0.05)
    # The gate is full, yet a job that is not gated went through.
    assert (running, runs) == (2, ["edit"])
    # The buckets waiting for a place hold no task.
    tasks = [task for task in asyncio.all_tasks() if task.get_name() == "pacer"]
    assert len(tasks) == 2
    release.set()
    await pacer.idle()
    assert most == 2 and running == 0
    await pacer.close()


async def test_a_refused_gated_job_gives_its_place_back_and_waits_again() -> None:
    pacer = Pacer(limit=10, window=1.0, gate_limit=1)
    runs: list[str] = []

    async def refused_once() -> bool:
        runs.append("first")
        if runs.count("first") == 1:
            raise Refusal(0.01)
        return True

    pacer.submit(("dm", 1), "table", refused_once, gated=True, refused=refused_for_now)
    pacer.submit(("dm", 2), "table", recorder(runs, "second"), gated=True)
    await pacer.idle()
    assert runs == ["first", "second", "first"]
    assert pacer._gate_used == 0
    await pacer.close()


async def test_a_held_job_runs_once_held_long_enough_and_one_replaced_meanwhile_never() -> None:
    pacer = Pacer()
    runs: list[tuple[str, float]] = []
    start = time.monotonic()

    def timed(name: str) -> Job:
        async def job() -> bool:
            runs.append((name, time.monotonic() - start))
            return True

        return job

    pacer.submit("ch", "table", timed("first"), after=0.05)
    pacer.submit("ch", "other", timed("other"), after=0.03)
    pacer.submit("dm", "view", timed("now"))
    await asyncio.sleep(0.02)
    pacer.submit("ch", "table", timed("newer"), after=0.05)  # settles anew
    await pacer.idle()
    assert [name for name, _ in runs] == ["now", "other", "newer"]
    # Each waited its own time (less the slack a release takes along).
    waited = dict(runs)
    assert waited["other"] >= 0.03 - 0.02 and waited["newer"] >= 0.07 - 0.02
    assert not pacer._held and not pacer._due


async def test_a_job_queued_at_once_replaces_a_held_one_of_its_slot() -> None:
    pacer = Pacer()
    runs: list[str] = []
    pacer.submit("ch", "table", recorder(runs, "held"), after=0.05)
    pacer.submit("ch", "table", recorder(runs, "now"))
    await pacer.idle()
    assert runs == ["now"]
    await pacer.close()
    # Closing cancels what is held, and an idle pacer then waits for nothing.
    pacer.submit("ch", "table", recorder(runs, "dropped"), after=0.05)
    await pacer.close()
    await asyncio.wait_for(pacer.idle(), 0.01)
    assert runs == ["now"]
