"""When a slow answer is deferred: in time for Discord's deadline, counted from its creation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.answers import DEFER_AFTER, DEFER_BY, defer_delay

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
