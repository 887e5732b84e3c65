"""A DM click sent on to its owner is acknowledged in Discord's time, however late it gets there."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from bench.postgres import Cluster
from bot import routing
from bot.presenter import ALREADY_ACKNOWLEDGED
from bot.routing import ClickRouter, age
from sandbox.api import DEFERRED_UPDATE, UPDATE_MESSAGE
from sandbox.driver import Driver
from tests.bot.test_play_e2e import JSON, latest_dm, open_table, table_of
from tests.storage.test_two_processes import NAMES, Processes, two_processes

# The late owner takes its clicks this long after Discord created them: past Discord's 3 s,
# by when only a deferral where the click came in can have acknowledged it.
LATE = 3.5


def calls_of(driver: Driver, answer: JSON, since: int) -> list[JSON]:
    """Return the REST calls made with an interaction's id or token since a point."""
    interaction = driver.world.interactions[int(answer["id"])]
    return [
        entry
        for entry in driver.log(since)
        if str(interaction.id) in entry["path"] or interaction.token in entry["path"]
    ]


def callbacks(calls: list[JSON]) -> list[JSON]:
    """Keep the first-response calls (a deferral or an answer, taken or refused)."""
    return [entry for entry in calls if entry["path"].endswith("/callback")]


def first_answer_type(driver: Driver, answer: JSON) -> int | None:
    """Say how Discord took an interaction's first response."""
    interaction = driver.world.interactions[int(answer["id"])]
    return interaction.first_answer.result().callback_type


def problems(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Return the bot's warnings and errors (a refused answer is a normal case, not one)."""
    return [r.getMessage() for r in caplog.records if r.name.startswith("bot") and r.levelno >= 30]


async def started(run: Processes) -> tuple[str, dict[int, JSON]]:
    """Open and start a table on the owner's shard; give it and each seat's DM view."""
    table_id, lobby = await open_table(run.driver, "ana", run.channel, "ben", "cid")
    answer = await run.driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    assert answer["status"] == "answered", answer
    table = table_of(run.owner, table_id)
    dms = {seat: await latest_dm(run.driver, name, table, seat) for seat, name in NAMES.items()}
    return table_id, dms


async def ready(run: Processes, table_id: str, dms: dict[int, JSON], seat: int) -> JSON:
    """Click Ready in a seat's DM (it comes in on shard 0's process, not the owner's)."""
    version = table_of(run.owner, table_id).seats[seat].version
    return await run.driver.click(NAMES[seat], dms[seat]["id"], f"sh:{table_id}:{version}:ready")


async def readied(run: Processes, table_id: str, seats: list[int]) -> None:
    """Wait until the owner has applied these seats' Ready, and check each was applied once."""
    table = table_of(run.owner, table_id)

    def applied() -> list[int]:
        return sorted(n.params["seat"] for n in table.log if n.code == "ready")

    await run.driver.wait_until(lambda: applied() == seats or None, timeout=10)
    await run.owner.presenter.pacer.idle()
    assert applied() == seats


async def test_a_click_taken_late_is_deferred_where_it_came_in_and_filled_in_once(
    postgres: Cluster, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="bot")
    take = ClickRouter.take

    def late(router: ClickRouter, data: dict[str, Any], origin: int) -> None:
        """Take a click only LATE seconds after its creation (a busy owner, a slow hand-over)."""
        delay = max(0.0, LATE - age(data))
        asyncio.get_running_loop().call_later(delay, take, router, data, origin)

    async with two_processes(postgres) as run:
        driver = run.driver
        table_id, dms = await started(run)
        monkeypatch.setattr(ClickRouter, "take", late)
        since = len(driver.log())
        answer = await ready(run, table_id, dms, 0)
        # Acknowledged in Discord's time, by shard 0's process: an edit to come.
        assert answer["status"] == "answered", answer
        assert first_answer_type(driver, answer) == DEFERRED_UPDATE
        await readied(run, table_id, [0])
        # The owner filled the deferral in: Ana's DM shows her view after her Ready, edited
        # once through the token; the owner's own first response was refused, nothing else.
        table = table_of(run.owner, table_id)
        shown = await latest_dm(driver, "ana", table, 0)
        assert shown["id"] == dms[0]["id"]
        calls = calls_of(driver, answer, since)
        taken = [entry for entry in callbacks(calls) if entry["status"] < 300]
        refused = [entry for entry in callbacks(calls) if entry["status"] >= 300]
        assert len(taken) == 1
        assert [entry["code"] for entry in refused] == [ALREADY_ACKNOWLEDGED]
        edits = [e for e in calls if e["method"] == "PATCH" and e["path"].endswith("@original")]
        assert [entry["status"] for entry in edits] == [200]
        assert not any("went wrong" in m.get("content", "") for m in driver.dms("ana")[-3:]), (
            "the refused first response reached the member as a failure"
        )
        assert problems(caplog) == []


async def test_clicks_taken_in_time_cost_only_their_answer(
    postgres: Cluster, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A roomier deadline than in production, so that a busy test machine's hand-over is still
    # "in time": without the owner's "taken", each click would be deferred 2.5 s after it.
    monkeypatch.setattr(routing, "TAKEN_BY", 2.5)
    async with two_processes(postgres) as run:
        driver = run.driver
        table_id, dms = await started(run)
        since = len(driver.log())
        answers = await asyncio.gather(*(ready(run, table_id, dms, seat) for seat in (0, 1)))
        await readied(run, table_id, [0, 1])
        await asyncio.sleep(max(0.0, 3.0 - min(age({"id": a["id"]}) for a in answers)))
        for answer in answers:
            assert answer["status"] == "answered", answer
            assert first_answer_type(driver, answer) == UPDATE_MESSAGE  # the owner's answer
            # One first response each: no deferral where they came in, nothing refused.
            assert [entry["status"] for entry in callbacks(calls_of(driver, answer, since))] == [
                204
            ]
        assert problems(caplog) == []


async def test_when_both_processes_answer_first_the_second_is_refused_quietly(
    postgres: Cluster, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # The owner's "taken" is lost: shard 0's process defers the click at TAKEN_BY whatever
    # the owner did, and one of the two first responses meets Discord's 40060.
    monkeypatch.setattr(ClickRouter, "_taken", lambda router, interaction_id: None)
    async with two_processes(postgres) as run:
        driver = run.driver
        table_id, dms = await started(run)
        since = len(driver.log())
        answer = await ready(run, table_id, dms, 0)
        assert answer["status"] == "answered", answer
        await readied(run, table_id, [0])
        await asyncio.sleep(max(0.0, 3.0 - age({"id": answer["id"]})))
        statuses = sorted(
            (entry["status"], entry["code"]) for entry in callbacks(calls_of(driver, answer, since))
        )
        assert statuses[0][0] < 300 and statuses[1:] == [(400, ALREADY_ACKNOWLEDGED)]
        table = table_of(run.owner, table_id)
        shown = await latest_dm(driver, "ana", table, 0)  # her answer arrived all the same
        assert shown["id"] == dms[0]["id"]
        assert problems(caplog) == []
