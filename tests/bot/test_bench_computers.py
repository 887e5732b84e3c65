"""The play benchmark seats computer players whose moves the bot's pool thinks out."""

from __future__ import annotations

import json

import pytest

from bot.bench_play import main


def test_a_bench_with_a_computer_seat_finishes_its_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--tables", "1", "--humans", "1", "--computers", "1", "--level", "basic"]
    argv += ["--move-workers", "1", "--seed", "2", "--think", "0", "0.005"]
    code = main([*argv, "--quick", "--quiet", "0.3", "--max-seconds", "60"])
    lines = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(lines[-1])
    # One member alone cannot finish a game: the computer seat played its share.
    assert code == 0 and figures["games_finished"] == 1
    assert (figures["computers"], figures["level"], figures["move_workers"]) == (1, "basic", 1)
    assert lines[0].startswith("bench: 1 tables x 1 humans + 1 basic")
    assert figures["failures"]["interactions_not_answered"] == 0
    assert figures["failures"]["bot_log_problems"] == 0
