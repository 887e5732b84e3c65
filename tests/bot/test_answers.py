"""When a slow answer is deferred: in time for Discord's deadline, counted from its creation."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.answers import DEFER_AFTER, DEFER_BY, Acknowledged, defer_delay

CREATED = datetime(2026, 11, 26, 12, 0, 0, tzinfo=UTC)


class Made:
    """An interaction as far as the deadline goes: when Discord created it."""

    created_at = CREATED


def delay_at(age: float) -> float:
    fake: Any = Made()
    return defer_delay(fake, CREATED + timedelta(seconds=age))


def test_a_fresh_interaction_may_take_the_bots_own_allowance() -> None:
    assert delay_at(0.0) == DEFER_AFTER


def test_an_interaction_that_waited_in_a_queue_is_deferred_sooner() -> None:
    assert delay_at(1.5) == pytest.approx(DEFER_BY - 1.5)
    assert delay_at(1.5) < DEFER_AFTER


def test_an_interaction_near_its_deadline_is_deferred_at_once() -> None:
    assert delay_at(2.5) == 0.0
    assert delay_at(60.0) == 0.0


def test_a_clock_behind_discords_falls_back_to_the_bots_own_allowance() -> None:
    assert delay_at(-5.0) == DEFER_AFTER


class Clicked:
    """An interaction as far as a deferral goes: when it was made, and its hold."""

    def __init__(self, age: float) -> None:
        self.created_at = datetime.now(UTC) - timedelta(seconds=age)


async def test_a_quick_answer_starts_no_task_and_is_never_deferred() -> None:
    holds: list[str] = []

    async def hold() -> None:
        holds.append("held")

    fake: Any = Clicked(age=0.0)
    before = len(asyncio.all_tasks())
    async with Acknowledged(fake, edit=True, hold=hold):
        assert len(asyncio.all_tasks()) == before
    await asyncio.sleep(DEFER_AFTER + 0.1)
    assert holds == []


async def test_a_slow_answer_is_deferred_when_due() -> None:
    holds: list[str] = []

    async def hold() -> None:
        holds.append("held")

    fake: Any = Clicked(age=DEFER_BY)  # due at once
    async with Acknowledged(fake, edit=True, hold=hold):
        await asyncio.sleep(0.05)
        assert holds == ["held"]


async def test_a_deferral_under_way_is_seen_through() -> None:
    steps: list[str] = []

    async def hold() -> None:
        steps.append("holding")
        await asyncio.sleep(0.1)
        steps.append("held")

    fake: Any = Clicked(age=DEFER_BY)
    async with Acknowledged(fake, edit=True, hold=hold):
        await asyncio.sleep(0.01)
        assert steps == ["holding"]
    assert steps == ["holding", "held"]
