"""Where the bot's memory is: the load bench, with the bot's allocators read inside it.

    python -m bench.memory --at 45 -- --tables 150 --pictures off --quick --max-seconds 60

Runs `python -m bench.load` with the arguments after `--`; `--at` seconds after the bot
process starts, the bot writes to the report (default `memory-report.txt`): its RSS split
(`/proc/self/smaps_rollup`), Python's small-object allocator (`sys._debugmallocstats`:
arenas and the bytes in used blocks), glibc's arenas (`malloc_stats`: system and in-use
bytes), SQLite's own memory, the objects the garbage collector tracks counted by type
(with `sys.getsizeof`, contents not included) and the coroutines alive by name. The load
bench's own figures (peak RSS among them) are printed as usual.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import gc
import os
import signal
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "bench" / "memhook"
# The lines of the allocators' statistics worth keeping.
KEPT = (
    "Rss:",
    "Pss_Anon:",
    "Pss_File:",
    "# arenas allocated current",
    "# bytes in allocated blocks",
    "# bytes in available blocks",
    "system bytes",
    "in use bytes",
    "Arena ",
    "Total (incl. mmap)",
)


def sqlite_memory() -> tuple[int, int] | None:
    """Read SQLite's memory in use and its high-water mark, or None if its library is hidden."""
    try:
        library = ctypes.CDLL("libsqlite3.so.0")
    except OSError:
        return None
    library.sqlite3_memory_used.restype = ctypes.c_int64
    library.sqlite3_memory_highwater.restype = ctypes.c_int64
    return library.sqlite3_memory_used(), library.sqlite3_memory_highwater(0)


def allocator_lines() -> list[str]:
    """Capture Python's and glibc's allocator statistics (both print to file descriptor 2)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            sys._debugmallocstats()
            ctypes.CDLL("libc.so.6").malloc_stats()
        except (OSError, AttributeError):
            pass  # not glibc: Python's statistics alone
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        text = captured.read().decode(errors="replace")
    return [line for line in text.splitlines() if line.startswith(KEPT)]


def report() -> str:
    """Describe this process's memory now."""
    lines = [f"--- {time.strftime('%H:%M:%S')} pid {os.getpid()}"]
    rollup = Path("/proc/self/smaps_rollup").read_text().splitlines()
    lines += [line for line in rollup if line.startswith(KEPT)]
    lines += allocator_lines()
    lines.append(f"sqlite memory used, high-water: {sqlite_memory()}")
    objects = gc.get_objects()
    counts: collections.Counter[str] = collections.Counter()
    sizes: collections.Counter[str] = collections.Counter()
    coroutines: collections.Counter[str] = collections.Counter()
    for each in objects:
        kind = type(each)
        name = f"{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', '?')}"
        counts[name] += 1
        sizes[name] += sys.getsizeof(each)
        if isinstance(each, types.CoroutineType):
            coroutines[each.__qualname__] += 1
    lines.append(f"objects tracked by the collector: {len(objects)}")
    lines += [f"{n:8d} {sizes[name] // 1024:8d} KB {name}" for name, n in counts.most_common(40)]
    lines.append(f"coroutines: {sum(coroutines.values())}")
    lines += [f"{n:8d} {name}" for name, n in coroutines.most_common(25)]
    return "\n".join(lines) + "\n"


def install(path: str, signum: int) -> None:
    """Append a report to `path` each time the process gets `signum`."""

    def write(*_: object) -> None:
        text = report()
        with open(path, "a") as out:
            out.write(text)

    signal.signal(signum, write)


def bot_child(bench: int) -> int | None:
    """Find the bench's bot process (its child running `--run-bot`)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == bench and b"--run-bot" in command:
            return int(stat.parent.name)
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the load bench and have its bot report its memory; give the bench's status."""
    parser = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__)
    parser.add_argument("--at", type=float, default=45.0, help="seconds after the bot starts")
    parser.add_argument("--report", type=Path, default=Path("memory-report.txt"))
    parser.add_argument("load", nargs=argparse.REMAINDER, help="-- then bench.load's arguments")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    load = args.load[1:] if args.load[:1] == ["--"] else args.load
    env = dict(os.environ, BENCH_MEMORY_REPORT=str(args.report.resolve()))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HOOK), env.get("PYTHONPATH")]))
    bench = subprocess.Popen([sys.executable, "-m", "bench.load", *load], cwd=ROOT, env=env)
    child = None
    while child is None and bench.poll() is None:
        time.sleep(0.5)
        child = bot_child(bench.pid)
    started = time.monotonic()
    while child is not None and bench.poll() is None:
        if time.monotonic() - started >= args.at:
            os.kill(child, signal.SIGUSR1)
            print(f"bench.memory: the bot ({child}) reports to {args.report}", flush=True)
            break
        time.sleep(0.5)
    return bench.wait()


if __name__ == "__main__":
    sys.exit(main())
