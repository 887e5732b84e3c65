"""The drawing bench replays seeded games through the renderers and splits the CPU by part."""

from __future__ import annotations

import json

import pytest

from bench.drawing import PARTS, main


def test_the_drawing_bench_times_every_move_with_and_without_pictures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--games", "1", "--seed", "2", "--repeat", "1"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["games"] == 1
    assert figures["moves"] > 20  # a whole game, setup included
    off, on = figures["pictures_off"], figures["pictures_on"]
    assert set(off["parts_ms_per_move"]) == set(on["parts_ms_per_move"]) == set(PARTS)
    assert 0 < off["ms_per_move"] < on["ms_per_move"]
    # Without pictures nothing is drawn or encoded; with them, both are.
    assert off["parts_ms_per_move"]["picture_drawing"] == 0
    assert off["parts_ms_per_move"]["encoding"] == 0
    assert on["parts_ms_per_move"]["picture_drawing"] > 0
    assert on["parts_ms_per_move"]["encoding"] > 0
    for part in ("table_embed", "private_embeds", "components", "fingerprints"):
        assert off["parts_ms_per_move"][part] > 0


def test_the_drawing_bench_can_time_one_mode(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "1", "--pictures", "off", "--repeat", "1"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert "pictures_off" in figures and "pictures_on" not in figures
