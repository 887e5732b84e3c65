"""The load bench counts a click as stuck only when its table stood still after it."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import Callable

import pytest

from bench import harness
from bench.harness import Bench
from sandbox.server import Sandbox
from sandbox.world import JSON

TABLE = "abcd1234"
STUCK = 0.05
PLAYED = 0.5


def dm_view(message_id: str, version: int | None) -> JSON:
    """Draw a DM view: a Pickup button of that version, or no buttons (None)."""
    if version is None:
        return {"id": message_id, "components": []}
    button = {"type": 2, "custom_id": f"sh:{TABLE}:{version}:pickup:0"}
    return {"id": message_id, "components": [{"type": 1, "components": [button]}]}


def bench(views: dict[int, JSON], clicks: list[str], after: dict[str, JSON | None]) -> Bench:
    """Make a bench whose members see `views`; a click is noted and may draw `after` a view."""
    made = Bench(Sandbox(), seed=1, think=(0.0, 0.0), preset=None)

    def latest_dm(user_id: int) -> JSON | None:
        return views.get(user_id)

    async def wait(key: harness.Watched, timeout: float = 0.0) -> None:
        await asyncio.sleep(0.005)

    async def pause(seconds: float) -> None:
        await asyncio.sleep(0)

    async def move(rng: random.Random, table_id: str, name: str, view: JSON) -> None:
        clicks.append(name)
        drawn = after.get(name)
        if drawn is not None:
            views[made.user_ids[name]] = drawn

    made.board.latest_dm = latest_dm  # type: ignore[method-assign]
    made.board.wait = wait  # type: ignore[method-assign]
    made.pause = pause  # type: ignore[method-assign]
    made.move = move  # type: ignore[method-assign]
    made.user_ids = {"out": 1, "playing": 2}
    return made


async def play(made: Bench, names: list[str], beside: Callable[[], None] | None = None) -> None:
    """Run these members at one table for PLAYED seconds, `beside` every 10 ms meanwhile."""

    async def meanwhile() -> None:
        while beside is not None:
            beside()
            await asyncio.sleep(0.01)

    others = asyncio.create_task(meanwhile())
    done = asyncio.Event()
    tasks = [
        asyncio.create_task(made.member(TABLE, name, made.user_ids[name], done, 0))
        for name in names
    ]
    await asyncio.sleep(PLAYED)
    done.set()
    await asyncio.gather(*tasks)
    others.cancel()


def redrawn(views: dict[int, JSON], message: int) -> Callable[[], None]:
    """Draw a message anew at each call (a member who goes on playing)."""
    versions = itertools.count(2)

    def draw() -> None:
        views[message] = dm_view(f"m{message}", next(versions))

    return draw


async def test_a_member_out_of_the_game_while_the_others_play_is_not_stuck(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(harness, "STUCK_SECONDS", STUCK)
    # "out" plays its last card: its view then offers nothing, while "playing" goes on
    # clicking (each click draws it a new view) for ten times STUCK_SECONDS.
    views = {1: dm_view("m1", 1), 2: dm_view("m2", 1)}
    clicks: list[str] = []
    after: dict[str, JSON | None] = {"out": dm_view("m1", None)}
    made = bench(views, clicks, after)
    await play(made, ["out", "playing"], redrawn(views, 2))

    assert clicks.count("out") == 1
    assert clicks.count("playing") > 10
    assert made.stats.stuck == 0


async def test_a_click_after_which_the_table_stands_still_is_tried_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(harness, "STUCK_SECONDS", STUCK)
    # The bot never redraws "playing"'s view after its click, and nothing else happens.
    views = {2: dm_view("m2", 1)}
    clicks: list[str] = []
    made = bench(views, clicks, {})

    await play(made, ["playing"])

    assert made.stats.stuck >= 3
    assert clicks.count("playing") == made.stats.stuck + 1


async def test_a_table_message_that_changes_keeps_the_last_clicker_from_being_stuck(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(harness, "STUCK_SECONDS", STUCK)
    # Only computers play after "playing"'s click: its table message keeps changing.
    views = {2: dm_view("m2", 1)}
    clicks: list[str] = []
    made = bench(views, clicks, {"playing": dm_view("m2", None)})

    def computers() -> None:
        made.board.changed_at[("table", TABLE)] = time.monotonic()

    await play(made, ["playing"], computers)

    assert clicks == ["playing"]
    assert made.stats.stuck == 0


async def test_a_view_left_as_it_was_clicked_while_the_others_play_is_stuck(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(harness, "STUCK_SECONDS", STUCK)
    # The bot answers "out"'s click without redrawing its view; "playing" goes on clicking.
    views = {1: dm_view("m1", 1), 2: dm_view("m2", 1)}
    clicks: list[str] = []
    made = bench(views, clicks, {})
    await play(made, ["out", "playing"], redrawn(views, 2))

    assert made.stats.stuck >= 3
    assert clicks.count("out") == made.stats.stuck + 1
