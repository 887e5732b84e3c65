"""The interaction writes bench sends callbacks and edits three ways against a sandbox."""

from __future__ import annotations

import json

import pytest

from bench.interaction_writes import main


def test_the_bench_times_callbacks_and_edits_each_way(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--calls", "5", "--rounds", "2"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (figures["calls"], figures["rounds"]) == (5, 2)
    for way in ("discord.py", "aiohttp", "bot.rest"):
        for kind in ("callback", "edit"):
            assert 0 < figures[f"{way}_{kind}_us"] < 1_000_000
