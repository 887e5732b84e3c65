"""The clicks bench times the way in of three kinds of click, each reaching its callback."""

from __future__ import annotations

import json

import pytest

from bench.clicks import main


def test_the_clicks_bench_times_clicks_that_reach_their_callbacks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--clicks", "20", "--repeat", "2"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    kinds = {"dm_button", "dm_menu", "server_button"}
    assert set(figures["us_per_click"]) == kinds
    assert all(micros > 0 for micros in figures["us_per_click"].values())
    # Every click of every round got to its item's callback (none failed on its way).
    assert figures["callbacks"] == dict.fromkeys(kinds, 40)
