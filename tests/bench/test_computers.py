"""The play bench seats computer players, whose moves the bot's move pool thinks out."""

from __future__ import annotations

import json

import pytest

from bench.harness import parse_options
from bench.play import DEFAULTS, main


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
    assert lines[0].startswith("bench: 1 tables x 1 humans + 1 basic, seed 2")
    assert figures["failures"]["interactions_not_answered"] == 0
    assert figures["failures"]["bot_log_problems"] == 0


@pytest.mark.parametrize(
    "wrong", [["--computers", "-1"], ["--move-workers", "-2"], ["--level", "wizard"]]
)
def test_a_wrong_computer_option_is_refused_by_name(
    wrong: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse_options(wrong, prog="python -m bench.play", description="", defaults=DEFAULTS)
    assert stopped.value.code == 2
    assert wrong[0] in capsys.readouterr().err


def test_without_the_options_no_computer_sits_and_the_pool_is_sized_by_the_bot() -> None:
    options = parse_options([], prog="python -m bench.play", description="", defaults=DEFAULTS)
    assert (options.computers, options.level, options.move_workers) == (0, "expert", None)
