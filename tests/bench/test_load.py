"""The load bench opens its tables in a burst, plays them out and reports what the bot cost."""

from __future__ import annotations

import json
import os

import pytest

from bench.harness import REPORT_KEYS, answers, parse_options, peak_rss_mb, refusals
from bench.load import DEFAULTS, main
from sandbox.world import EPHEMERAL, JSON, Interaction, Message, World


def test_a_short_load_run_finishes_every_game_and_reports_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--tables", "2", "--seed", "3", "--think", "0", "0.005", "--burst", "0.5"]
    code = main([*argv, "--pictures", "off", "--quick", "--quiet", "0.3", "--max-seconds", "120"])
    lines = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(lines[-1])
    assert len(lines) > 1  # the human-readable lines come first
    assert set(REPORT_KEYS) <= set(figures)
    assert code == 0
    assert figures["games_finished"] == figures["tables"] == 2
    assert figures["unfinished_tables"] == {
        "not_opened": 0,
        "a_member_offered_a_move": 0,
        "no_move_offered": 0,
    }
    assert figures["humans"] == 3
    assert figures["pictures"] is False
    assert figures["human_moves"] > 0
    # Every interaction was answered in time and timed by the sandbox.
    assert figures["expired_interactions"]["total"] == 0
    answer = figures["answer_ms"]
    assert answer["count"] == figures["interactions"] > 0
    assert 0 <= answer["p50"] <= answer["p95"] <= answer["p99"] <= answer["max"] < 3000
    # The three groups add up to every call, and every interaction got one callback.
    per_move = figures["rest_per_move"]
    assert list(per_move) == ["callbacks", "token_edits", "other_rest"]
    total = sum(per_move.values()) * figures["human_moves"]
    assert total == pytest.approx(figures["calls_total"], rel=1e-3)  # rounded per move
    assert figures["calls"]["callback"] == figures["interactions"]
    assert figures["bot_cpu_ms_per_move"] > 0
    assert figures["bot_peak_rss_mb"] > 10
    driver = figures["driver"]
    assert driver["click_lag_ms"]["count"] >= figures["human_moves"]
    assert driver["loop_lag_ms"]["count"] > 0
    machine = figures["machine"]
    assert machine["nproc"] == os.cpu_count()
    # The machine's speed is timed before and after the play, so runs can be compared.
    assert machine["reference_ms_start"] > 0 and machine["reference_ms_end"] > 0
    # And what a click's own work costs hot and after an idle millisecond (bench.wake).
    for when in ("click_work_us_start", "click_work_us_end"):
        assert set(machine[when]) == {"hot_us", "after_1ms_us"}
        assert min(machine[when].values()) > 0
    assert figures["failures"]["rest_errors"] == figures["failures"]["table_errors"] == 0


async def test_expired_interactions_are_late_or_unanswered_and_named() -> None:
    # Async: an interaction's answer future needs a running loop.
    def interaction(data: JSON, answered_after: float | None) -> Interaction:
        made = Interaction(
            id=1,
            token="t",
            type=3,
            user_id=2,
            channel_id=3,
            guild_id=None,
            created_at=100.0,
            data=data,
        )
        made.answered_at = None if answered_after is None else 100.0 + answered_after
        return made

    create = {"name": "shithead", "options": [{"name": "create", "type": 1}]}
    play = {"custom_id": "sh:7:3:play"}
    times, expired = answers(
        [
            interaction(create, 0.25),
            interaction(create, 3.5),
            interaction(play, 3.0),
            interaction(play, None),
        ],
        deadline=3.0,
    )
    assert times == [250.0, 3500.0, 3000.0]
    assert expired == {
        "total": 2,
        "late_callback": 1,
        "no_callback": 1,
        "by_what": {"/shithead create": 1, "play": 1},
    }


async def test_refusals_are_counted_by_reason_whenever_they_came() -> None:
    # Async: an interaction's answer future needs a running loop.
    def click(interaction_id: int, custom_id: str = "sh:7:3:play") -> Interaction:
        data = {"custom_id": custom_id}
        return Interaction(interaction_id, "t", 3, 2, 3, None, 100.0, data)

    def note(message_id: int, interaction_id: int, text: str, **fields: object) -> Message:
        made = Message(message_id, 3, 1, text, [], [], EPHEMERAL, "", interaction_id=interaction_id)
        for name, value in fields.items():
            setattr(made, name, value)
        return made

    notes = [
        note(10, 1, "It isn't your turn: t1p2 is playing."),  # at once
        note(11, 2, "It isn't your turn: t4p1 is playing."),  # a followup after a deferral
        note(12, 3, "That was an old view. Use your latest one."),
        note(13, 4, "Your last click is still being carried out; this one changed nothing."),
        note(14, 5, "", embeds=[{"title": "your hand"}]),  # an ephemeral view: no refusal
        note(15, 6, "It isn't your turn.", flags=0),  # seen by everyone: no refusal
        note(16, 99, "It isn't your turn."),  # a click of another run
    ]
    world = World.__new__(World)
    world.messages = {message.id: message for message in notes}
    counted = refusals(world, [click(n) for n in range(1, 7)])
    assert counted == {
        "It isn't your turn": 2,
        "That was an old view": 1,
        "Your last click is still being carried out": 1,
    }


def test_load_defaults_are_the_issues_run() -> None:
    options = parse_options([], prog="load", description="", defaults=DEFAULTS)
    assert (options.tables, options.humans, options.think, options.burst) == (
        200,
        3,
        (0.2, 0.8),
        10.0,
    )
    assert options.pictures is True
    off = parse_options(["--pictures", "off"], prog="load", description="", defaults=DEFAULTS)
    assert off.pictures is False


def test_peak_memory_is_read_from_proc() -> None:
    assert (peak_rss_mb(os.getpid()) or 0) > 1
    assert peak_rss_mb(2**22 + 1) is None
