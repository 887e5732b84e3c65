"""The wake bench times a click's own work hot and after idle gaps, and reads its gaps."""

from __future__ import annotations

import argparse
import json

import orjson
import pytest

from bench.drawing import record
from bench.wake import main, parse_gaps, units, work


def test_the_wake_bench_times_a_click_s_work_after_every_gap(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--gaps", "0,0.5", "--rounds", "20", "--seed", "3"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["seed"] == 3 and figures["rounds"] == 20
    assert list(figures["by_gap_ms"]) == ["0", "0.5"]
    first, after = figures["by_gap_ms"]["0"], figures["by_gap_ms"]["0.5"]
    assert first["mean_us"] > 0 and after["mean_us"] > 0
    assert first["times_the_first"] == 1.0
    # The ratio of the means before they were rounded to a tenth of a microsecond.
    ratio = after["mean_us"] / first["mean_us"]
    assert after["times_the_first"] == pytest.approx(ratio, rel=0.01)


async def test_a_unit_is_a_member_s_click_frame_with_the_view_it_was_on() -> None:
    [snapshots] = await record(1, 4, "classic")
    made = units(snapshots)
    # One click per member's view at every move: every recorded move is clicked from.
    assert len(made) == sum(len(each.humans()) for each in snapshots)
    frames = [orjson.loads(each.frame) for each in made]
    assert all(f["t"] == "INTERACTION_CREATE" and f["d"]["type"] == 3 for f in frames)
    assert all(f["d"]["message"]["embeds"] for f in frames)
    # Views in play carry their controls; the last, after the game, none.
    assert frames[len(frames) // 2]["d"]["message"]["components"]
    assert not frames[-1]["d"]["message"]["components"]
    for each in (made[0], made[len(made) // 2], made[-1]):
        work(each)  # parses, draws and writes without failing


@pytest.mark.parametrize("text", ["1,x", "", "-1", "5000"])
def test_gaps_that_are_not_milliseconds_are_refused_in_words(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="--gaps"):
        parse_gaps(text)


def test_gaps_are_read_as_milliseconds() -> None:
    assert parse_gaps("0,0.2,5") == (0.0, 0.2, 5.0)
