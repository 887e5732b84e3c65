"""The thinking benchmark times members' clicks while computers think, in three rounds."""

from __future__ import annotations

import json

import pytest

from bench.thinking import main


def test_three_rounds_of_clicks_compared_with_idle(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--tables", "2", "--seconds", "4", "--seed", "3", "--move-workers", "1"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(lines[-1])
    rounds = figures["rounds"]
    assert [(name, row["level"], row["move_workers"]) for name, row in rounds.items()] == [
        ("idle", "basic", 1),
        ("pool", "expert", 1),
        ("thread", "expert", 0),
    ]
    for row in rounds.values():
        assert row["clicks"] > 0
        assert 0 < row["answer_ms_p50"] <= row["answer_ms_p99"] <= row["answer_ms_max"]
        idle = rounds["idle"]["answer_ms_p99"]
        assert row["p99_vs_idle"] == pytest.approx(row["answer_ms_p99"] / idle, abs=1e-3)
    assert [line.split()[0] for line in lines[:-1]] == ["idle", "pool", "thread"]
