"""The tournament harness: its arithmetic, duplicate deals and the command line."""

from __future__ import annotations

import json

import pytest

from engine import tournament
from engine.rules import make_rules
from engine.tournament import (
    GameRecord,
    derived_seed,
    format_table,
    main,
    percentile,
    play_deal,
    play_game,
    rotations,
    run_tournament,
    summarize,
    wilson_interval,
)


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(10, 100)
    assert low == pytest.approx(0.05523, abs=1e-4)
    assert high == pytest.approx(0.17437, abs=1e-4)
    assert wilson_interval(0, 50)[0] == pytest.approx(0.0, abs=1e-12)
    assert wilson_interval(0, 50)[1] == pytest.approx(0.07135, abs=1e-4)
    assert wilson_interval(50, 50)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_percentile_interpolates() -> None:
    assert percentile([], 95) == 0.0
    assert percentile([3.0], 50) == 3.0
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 95) == pytest.approx(95.05)
    assert percentile(values, 100) == 100.0
    assert percentile(values, 0) == 1.0


def test_rotations_seat_every_strategy_everywhere() -> None:
    seatings = rotations(["expert", "basic", "random"])
    assert len(seatings) == 3
    for seat in range(3):
        assert {seating[seat] for seating in seatings} == {"expert", "basic", "random"}
    assert rotations(["a", "a", "b"])[0] == ("a", "a", "b")


def _record(
    seats: tuple[str, ...], loser: int, places: tuple[int, ...], moves: int, reason: str
) -> GameRecord:
    times = tuple((0.001 * (seat + 1),) * 2 for seat in range(len(seats)))
    return GameRecord(0, 0, seats, loser, places, moves, reason, times)


def test_summarize_counts_seat_games() -> None:
    records = [
        _record(("x", "y", "y"), 0, (3, 1, 2), 100, "out"),
        _record(("y", "x", "y"), 2, (1, 2, 3), 50, "stalemate"),
        _record(("y", "y", "x"), 1, (2, 3, 1), 30, "out"),
        _record(("x", "y", "y"), 1, (2, 3, 1), 20, "capped"),
    ]
    summary = summarize(records, ["x", "y", "y"])
    assert summary["games"] == 4
    assert summary["stalemates"] == 1
    assert summary["stalemate_rate"] == 0.25
    assert summary["capped"] == 1
    assert summary["moves_per_game"] == 50.0
    x, y = summary["strategies"]
    assert (x["strategy"], x["seat_games"], x["losses"]) == ("x", 4, 1)
    assert (y["strategy"], y["seat_games"], y["losses"]) == ("y", 8, 3)
    assert x["loser_rate"] == 0.25
    assert y["loser_rate"] == 0.375
    assert x["avg_place"] == pytest.approx((3 + 2 + 1 + 2) / 4, abs=1e-3)
    assert y["avg_place"] == pytest.approx((1 + 2 + 1 + 3 + 2 + 3 + 3 + 1) / 8, abs=1e-3)
    assert x["moves_per_game"] == 50.0
    assert x["loser_rate_ci95"] == [round(v, 4) for v in wilson_interval(1, 4)]
    assert x["decisions"] == 8
    assert x["move_ms_p50"] == pytest.approx(1.5, abs=1e-3)
    assert x["move_ms_p95"] == pytest.approx(3.0, abs=1e-3)


def test_duplicate_deals_share_the_cards() -> None:
    records = play_deal("classic", None, ["basic", "random", "random"], seed=4, deal=0)
    assert [record.rotation for record in records] == [0, 1, 2]
    assert sorted(record.seats.index("basic") for record in records) == [0, 1, 2]
    for record in records:
        assert sorted(record.places) == [1, 2, 3]
        assert record.places[record.loser] == 3
    assert derived_seed(4, "deal", 0) == derived_seed(4, "deal", 0) != derived_seed(4, "deal", 1)


def test_play_game_is_deterministic() -> None:
    rules = make_rules("classic")
    seats = ["basic", "random", "random"]
    first = play_game(rules, seats, deal_seed=9, strategy_seeds=[1, 2, 3])
    again = play_game(rules, seats, deal_seed=9, strategy_seeds=[1, 2, 3])
    assert (first.loser, first.places, first.moves) == (again.loser, again.places, again.moves)


def test_winner_mode_places() -> None:
    rules = make_rules("classic", {"mode": "winner"})
    record = play_game(rules, ["basic", "basic"], deal_seed=1, strategy_seeds=[1, 2])
    assert sorted(record.places) == [1, 2]
    assert record.places[record.loser] == 2


def test_run_tournament_rounds_up_to_whole_deals() -> None:
    summary = run_tournament("classic", ["basic", "random"], games=3, seed=2)
    assert summary["games"] == 4
    assert summary["deals"] == 2
    assert sum(row["losses"] for row in summary["strategies"]) == 4


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_time_limit_summarizes_the_first_deals_finished(jobs: int) -> None:
    names = ["basic", "random", "random"]
    summary = run_tournament("classic", names, 30, 1, jobs=jobs, max_seconds=0)
    assert summary["planned_games"] == 30
    # The first deal is always played; workers may have finished a few more meanwhile.
    if jobs == 1:
        assert summary["games"] == 3
    assert summary["games"] % 3 == 0 and summary["deals"] == summary["games"] // 3
    assert "stopped at the time limit" in format_table(summary)
    whole = run_tournament("classic", names, 6, 1)
    assert "stopped" not in format_table(whole) and whole["games"] == whole["planned_games"]


def test_command_line_ends_with_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--players", "basic,random", "--games", "2", "--seed", "3"]) == 0
    captured = capsys.readouterr()
    last = json.loads(captured.out.strip().splitlines()[-1])
    assert last["games"] == 2
    assert [row["strategy"] for row in last["strategies"]] == ["basic", "random"]
    assert "2/2 games" in captured.err


def test_decisions_are_timed_by_the_chosen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = iter(range(0, 100_000, 2))
    monkeypatch.setitem(tournament.CLOCKS, "cpu", lambda: float(next(ticks)))
    rules = make_rules("classic")
    record = play_game(rules, ["basic", "basic"], deal_seed=1, strategy_seeds=[1, 2], clock="cpu")
    times = [t for seat_times in record.move_times for t in seat_times]
    # Two ticks of the fake CPU clock per decision; the wall clock would give tiny fractions.
    assert len(times) == record.moves and set(times) == {2.0}
    summary = run_tournament("classic", ["basic", "basic"], games=2, seed=2, clock="cpu")
    assert summary["clock"] == "cpu"
    assert {row["move_ms_p50"] for row in summary["strategies"]} == {2000.0}
