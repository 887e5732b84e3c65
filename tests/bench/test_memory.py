"""The memory bench's report, read inside a process as the bot reads it."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from bench.memory import install, report


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
