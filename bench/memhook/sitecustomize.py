"""Read the bot's memory from inside it when the memory bench signals (`bench.memory`).

Python imports this module at start when its folder is on PYTHONPATH; it acts only in the
load bench's bot process, and only when BENCH_MEMORY_REPORT names the file to append to.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

if "--run-bot" in sys.argv and os.environ.get("BENCH_MEMORY_REPORT"):
    # The project's root is not on the path yet while `site` runs.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench.memory import install

    frames = int(os.environ.get("BENCH_MEMORY_FRAMES", "1"))
    install(os.environ["BENCH_MEMORY_REPORT"], signal.SIGUSR1, signal.SIGUSR2, frames)
