"""The storage bench plays seeded games through the core on SQLite and times the writes."""

from __future__ import annotations

import json

import pytest

from bench.storage import main


def test_the_storage_bench_plays_its_games_and_times_every_table_write(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--games", "2", "--seed", "3"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["games"] == 2
    assert figures["synchronous"] == "FULL"  # the bot's own setting, unless asked
    # Every move but each game's last (its ending is recorded, not saved) writes the table,
    # and so do each game's create, two joins and start.
    assert figures["table_writes"] == figures["moves"] - 2 + 2 * 4
    assert 0 < figures["stored_ms_per_move"] < figures["submit_ms_per_move"]
    assert 0 < figures["stored_share_of_submit"] < 1
    assert figures["table_row_save_ms"] > 0 and figures["small_row_save_ms"] > 0
    assert figures["save_ms_per_write_together"] > 0
    assert figures["final_state_bytes_mean"] > 1000
    # The text weighs its bytes and a header; its parsed form, far more.
    text_kb = figures["final_state_bytes_mean"] / 1024
    assert abs(figures["kept_as_text_kb"] - text_kb) < 0.2
    assert figures["kept_parsed_kb"] > 2 * figures["kept_as_text_kb"]
