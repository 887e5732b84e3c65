"""End to end: an expert computer seat thinks in the bot's worker process, never in the bot."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.client import ShitheadBot
from sandbox.driver import Driver
from sandbox.server import Sandbox
from sandbox.testing import connected_bot
from tests.bot.test_play_e2e import (
    act,
    assert_no_client_errors,
    latest_dm,
    log_lines,
    make_bot,
    open_table,
    table_of,
)
from tests.tables.test_movers import in_a_worker

pytest_plugins = ["tests.bot.test_play_e2e"]
# Moves the expert makes before the test ends the game (each is thought out in the pool).
EXPERT_MOVES = 4


async def test_an_expert_seat_moves_from_the_pool(
    sandbox: Sandbox, driver: Driver, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with connected_bot(sandbox, make_bot(tmp_path)) as bot:
        assert isinstance(bot, ShitheadBot) and not bot.movers.running
        # Only a worker process can build a strategy: in the bot's own process every
        # strategy fails, which autoplay would log before forcing the simplest move.
        bot.tables.strategies = in_a_worker
        await driver.create_user("ana")
        table_id, lobby = await open_table(driver, "ana", "general")
        await driver.click("ana", lobby["id"], f"sh:{table_id}:0:addbot:1")
        await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
        table = table_of(bot, table_id)

        def expert_moves() -> int:
            return sum(
                line.startswith("Computer 1 (expert) ") and not line.endswith(" is ready")
                for line in log_lines(table)
            )

        while expert_moves() < EXPERT_MOVES and table.phase != "over":
            game = table.game
            assert game is not None
            if 0 in game.to_act():
                answer = await act(driver, "ana", await latest_dm(driver, "ana", table, 0))
                assert answer["status"] == "answered", answer
            await driver.wait_until(
                lambda: table.phase == "over" or (table.game and 0 in table.game.to_act()),
                timeout=30,
            )
        assert expert_moves() >= EXPERT_MOVES or table.phase == "over", log_lines(table)
        assert bot.movers.running
        assert "strategy failed" not in caplog.text and "worker choosing" not in caplog.text
        await driver.command("ana", "general", "shithead end")
        await bot.presenter.pacer.idle()
        assert_no_client_errors(driver)
    assert not bot.movers.running
