"""The cluster bench: bot processes on shard ranges over a throwaway PostgreSQL, each measured."""

from __future__ import annotations

import json

import pytest

from bench.cluster import Layout, main
from bench.harness import REPORT_KEYS
from bench.postgres import MISSING, server_binaries


def test_processes_run_consecutive_shard_ranges_over_two_servers_a_shard() -> None:
    layout = Layout(processes=3, shards=2)
    assert (layout.shard_count, layout.servers) == (6, 12)
    assert [layout.shard_ids(p) for p in range(3)] == ["0-1", "2-3", "4-5"]
    assert [layout.process_of(shard) for shard in range(6)] == [0, 0, 1, 1, 2, 2]
    assert Layout(guilds=5).servers == 5


@pytest.mark.parametrize("bad", [["--processes", "0"], ["--shards", "0"], ["--guilds", "-1"]])
def test_a_bad_layout_is_refused_before_anything_starts(
    bad: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([*bad, "--tables", "1"])
    assert "need --processes >= 1, --shards >= 1 and --guilds >= 0" in capsys.readouterr().err


def test_a_short_cluster_run_finishes_every_game_and_reports_each_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    if server_binaries() is None:
        pytest.skip(MISSING)
    argv = ["--tables", "2", "--processes", "2", "--shards", "1", "--seed", "3"]
    argv += ["--think", "0", "0.005", "--burst", "0.5", "--pictures", "off", "--quick"]
    code = main([*argv, "--quiet", "0.3", "--max-seconds", "120"])
    lines = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(lines[-1])
    assert lines[0].startswith("cluster: 2 bot processes x 1 shards on PostgreSQL")
    assert set(REPORT_KEYS) <= set(figures)
    assert code == 0
    assert figures["games_finished"] == figures["tables"] == 2
    assert figures["expired_interactions"]["total"] == 0
    cluster = figures["cluster"]
    assert (cluster["processes"], cluster["shard_count"], cluster["servers"]) == (2, 2, 4)
    # Table 1 is on shard 0, whose process gets the DMs; table 2 on shard 1, the other
    # process's: its members' clicks were sent on to it.
    own, sent_on = cluster["dm_clicks"]["own"], cluster["dm_clicks"]["sent_on"]
    assert own["count"] > 0 and sent_on["count"] > 0
    assert sent_on["answer_ms"]["count"] == sent_on["count"] and sent_on["expired"] == 0
    assert cluster["postgres_cpu_seconds"] > 0
    processes = figures["bot_processes"]
    assert len(processes) == 2
    assert all(share["cpu_ms_per_move"] > 0 and share["peak_rss_mb"] > 10 for share in processes)
    assert figures["bot_cpu_seconds"] == pytest.approx(
        sum(share["cpu_seconds"] for share in processes), abs=0.01
    )
    failures = figures["failures"]
    assert failures["rest_errors"] == failures["table_errors"] == failures["bot_log_problems"] == 0
