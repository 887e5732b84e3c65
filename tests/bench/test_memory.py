"""The memory bench's report, read inside a process as the bot reads it."""

from __future__ import annotations

import asyncio
import os
import signal
import tracemalloc
from pathlib import Path

import pytest

from bench.memory import ROOT, core_tables, install, main, package_of, report


def test_the_report_names_the_allocators_and_the_objects_alive() -> None:
    async def sleeper() -> None:
        await asyncio.sleep(1)

    alive = [sleeper() for _ in range(3)]
    text = report()
    for each in alive:
        each.close()
    assert "Rss:" in text
    assert "# bytes in allocated blocks" in text
    assert "objects tracked by the collector:" in text
    assert "collector thresholds" in text and "'collected':" in text
    # The coroutines alive are counted by name.
    assert any(
        line.split()[-1].endswith("sleeper") and line.split()[0] == "3"
        for line in text.splitlines()
    )


def test_the_signal_appends_a_report(tmp_path: Path) -> None:
    path = tmp_path / "report.txt"
    previous = signal.getsignal(signal.SIGUSR1)
    install(str(path), signal.SIGUSR1)
    try:
        os.kill(os.getpid(), signal.SIGUSR1)
        os.kill(os.getpid(), signal.SIGUSR1)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert path.read_text().count("--- ") == 2


def test_the_second_signal_starts_tracing_allocations(tmp_path: Path) -> None:
    previous = signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGUSR2)
    install(str(tmp_path / "report.txt"), signal.SIGUSR1, signal.SIGUSR2, frames=1)
    try:
        assert not tracemalloc.is_tracing()
        os.kill(os.getpid(), signal.SIGUSR2)
        kept = [bytearray(1000) for _ in range(2000)]
        os.kill(os.getpid(), signal.SIGUSR1)
    finally:
        tracemalloc.stop()
        signal.signal(signal.SIGUSR1, previous[0])
        signal.signal(signal.SIGUSR2, previous[1])
    assert len(kept) == 2000
    # The allocations made since tracing started are named by their line.
    assert "test_memory.py:" in (tmp_path / "report.txt").read_text().split("traced by line:")[1]


def test_the_report_splits_the_rss_into_its_parts() -> None:
    text = report()
    assert "by part:" in text
    for part in ("mapped files", "Python's small objects", "glibc's heap in use", "the rest"):
        assert part in text


def test_each_source_file_is_counted_to_its_package() -> None:
    assert package_of("/x/lib/python3.11/site-packages/discord/client.py") == "discord"
    assert package_of(str(ROOT / "bot" / "presenter.py")) == "bot"
    assert package_of(asyncio.__file__) == "stdlib asyncio"
    assert package_of("<frozen importlib._bootstrap>") == "<frozen importlib._bootstrap>"


def test_a_traced_process_reports_its_bytes_by_package_and_line() -> None:
    tracemalloc.start(10)
    try:
        kept = [bytearray(1000) for _ in range(2000)]
        text = report()
    finally:
        tracemalloc.stop()
    assert len(kept) == 2000
    lines = text.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("traced by package")))
    assert any(line.split()[-1] == "tests" for line in lines[start:])
    assert "traced by line:" in text


def test_the_load_benchs_arguments_pass_through_and_every_is_checked() -> None:
    with pytest.raises(SystemExit):
        main(["--every", "0", "--tables", "1"])
    with pytest.raises(SystemExit):
        main(["--trace", "--frames", "0", "--tables", "1"])
    with pytest.raises(SystemExit):
        main(["--at", "30", "--trace-from", "40", "--tables", "1"])


async def test_the_core_bench_counts_bytes_and_no_task_per_waiting_table() -> None:
    per_table, tasks = await core_tables(3)
    # Three tables dealt and in play hold their games: kilobytes each, and no timer task.
    assert 4 * 1024 < per_table < 100 * 1024
    assert tasks == 0
