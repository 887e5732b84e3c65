"""Where the bot's memory is: the load bench, with the bot's allocators read inside it.

    python -m bench.memory --tables 500 --pictures off --max-seconds 120
    python -m bench.memory --at 45 --every 20 --trace -- --tables 150 --pictures off
    python -m bench.memory --at 95 --trace --frames 1 -- --tables 500 --pictures off
    python -m bench.memory --core 500

Runs `python -m bench.load` with the arguments it does not know itself (or those after
`--`); `--at` seconds after the bot process starts, and then every `--every` seconds, the
bot writes to the report (default `memory-report.txt`): its RSS by part (mapped files,
Python's small-object arenas, glibc's heap, SQLite, the rest), the lines it comes from
(`/proc/self/smaps_rollup`, `sys._debugmallocstats`, glibc's `malloc_stats`), the objects
the garbage collector tracks counted by type (`sys.getsizeof`, contents not included) and
the coroutines alive by name. With `--trace-from S` the bot starts `tracemalloc` S seconds
after it starts (after the opening burst, say), and the reports add the biggest lines
among the allocations made since that are still alive: what play holds, at about the
moves of an untraced run. With `--trace` the bot runs under `tracemalloc` from its
first import, and the report adds the bytes allocated by each package (the bot's own, each
library, each standard module) and the biggest allocating lines: the bot then needs about
twice the memory and more CPU (and stops for a minute or more to write each report), so
its RSS figures are not comparable. `--frames 1` keeps only the allocating line (imports
are then counted to the importing machinery): at 500 tables the default ten frames slow the
bot to a few hundred moves and it is stopped before its report is written. The load bench's
own figures (the bot's peak RSS among them) are printed as usual.

`--core N` measures the table core alone, in this process and without Discord or a store:
N tables of three members in play, each waiting for a member's turn, and prints the bytes
they hold per table (tracemalloc) and the tasks alive for them.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import ctypes
import functools
import gc
import os
import random
import re
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
import tracemalloc
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
# Python's small-object allocator takes its arenas from the system in blocks of this size.
ARENA_BYTES = 1 << 20
STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()
MB = 1024 * 1024
# Frames kept per traced allocation by default: enough to see past the import machinery.
TRACE_FRAMES = 10


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


def figure(lines: list[str], label: str, *, last: bool = False) -> int | None:
    """Read the number on the first (or last) line starting with `label`, or None."""
    found = [line for line in lines if line.startswith(label)]
    if not found:
        return None
    digits = re.findall(r"[\d,]+", found[-1 if last else 0].split(label, 1)[1])
    return int(digits[0].replace(",", "")) if digits else None


def parts(rollup: list[str], allocators: list[str], sqlite: tuple[int, int] | None) -> list[str]:
    """Split the RSS into the parts that hold it, in MB."""
    kb = {label: figure(rollup, label) or 0 for label in ("Rss:", "Pss_Anon:")}
    rss = kb["Rss:"] * 1024
    arenas = (figure(allocators, "# arenas allocated current") or 0) * ARENA_BYTES
    used = figure(allocators, "# bytes in allocated blocks") or 0
    heap = figure(allocators, "in use bytes", last=True) or 0
    heap_system = figure(allocators, "system bytes", last=True) or 0
    # What is not anonymous memory is mapped files: the interpreter's and libraries' code.
    files = rss - kb["Pss_Anon:"] * 1024
    held = {
        "mapped files (the interpreter's and libraries' code)": files,
        f"Python's small objects (arenas; {used / MB:.1f} MB in used blocks)": arenas,
        f"glibc's heap in use ({heap_system / MB:.1f} MB taken from the system)": heap,
    }
    lines = [f"RSS {rss / MB:.1f} MB by part:"]
    lines += [f"  {size / MB:7.1f} MB  {name}" for name, size in held.items()]
    if sqlite is not None:
        lines.append(f"  {sqlite[0] / MB:7.1f} MB  of it SQLite's (within glibc's heap)")
    rest = rss - sum(held.values())
    lines.append(f"  {rest / MB:7.1f} MB  the rest (glibc's free heap, large blocks, stacks)")
    return lines


def package_of(filename: str) -> str:
    """Name the package a source file belongs to: the bot's, a library or a standard module."""
    path = Path(filename)
    if filename.startswith("<"):
        return filename  # frozen modules, code compiled from strings
    parts = path.parts
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            return parts[parts.index(marker) + 1].removesuffix(".py")
    with contextlib.suppress(ValueError):
        return path.resolve().relative_to(ROOT).parts[0].removesuffix(".py")
    with contextlib.suppress(ValueError):
        return "stdlib " + path.resolve().relative_to(STDLIB).parts[0].removesuffix(".py")
    return str(path.parent)


def part_of(traceback: tracemalloc.Traceback) -> str:
    """Name who allocated: the package of the newest frame outside the import machinery."""
    frames = [frame.filename for frame in traceback]  # oldest first
    own = [name for name in frames if not name.startswith("<frozen")]
    where = package_of(own[-1] if own else frames[-1])
    # While a module is imported its code and what its body makes count to the import.
    importing = any(name.startswith("<frozen importlib") for name in frames)
    return f"imports by {where}" if importing else where


def traced() -> list[str]:
    """Group what tracemalloc traced by package, then name the biggest allocating lines."""
    if not tracemalloc.is_tracing():
        return []
    snapshot = tracemalloc.take_snapshot()
    by_part: collections.Counter[str] = collections.Counter()
    for stat in snapshot.statistics("traceback"):
        by_part[part_of(stat.traceback)] += stat.size
    total = sum(by_part.values())
    lines = [f"traced by package (tracemalloc, {total / MB:.1f} MB in all):"]
    lines += [f"  {size / MB:7.2f} MB  {name}" for name, size in by_part.most_common(30)]
    lines.append("traced by line:")
    for stat in snapshot.statistics("lineno")[:25]:
        frame = stat.traceback[-1]
        where = f"{package_of(frame.filename)}: {Path(frame.filename).name}:{frame.lineno}"
        lines.append(f"  {stat.size / MB:7.2f} MB {stat.count:8d} blocks  {where}")
    return lines


def report() -> str:
    """Describe this process's memory now."""
    lines = [f"--- {time.strftime('%H:%M:%S')} pid {os.getpid()}"]
    rollup = [
        line
        for line in Path("/proc/self/smaps_rollup").read_text().splitlines()
        if line.startswith(KEPT)
    ]
    allocators = allocator_lines()
    sqlite = sqlite_memory()
    lines += parts(rollup, allocators, sqlite)
    lines += rollup
    lines += allocators
    lines.append(f"sqlite memory used, high-water: {sqlite}")
    lines += traced()
    # Cyclic garbage lives until a collection of its generation: what each freed so far.
    lines.append(
        f"collector thresholds {gc.get_threshold()}, counts {gc.get_count()}, by generation:"
    )
    lines += [f"  {gen}: {stats}" for gen, stats in enumerate(gc.get_stats())]
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


def install(path: str, signum: int, trace_signum: int | None = None, frames: int = 1) -> None:
    """Append a report to `path` at each `signum`; start tracing `frames` deep at `trace_signum`."""

    def write(*_: object) -> None:
        text = report()
        with open(path, "a") as out:
            out.write(text)

    def trace(*_: object) -> None:
        tracemalloc.start(frames)

    signal.signal(signum, write)
    if trace_signum is not None:
        signal.signal(trace_signum, trace)


async def core_tables(count: int) -> tuple[float, int]:
    """Open `count` tables in play in the core; give the bytes each holds and the tasks alive."""
    from bench.storage import MEMBERS, first_offer
    from engine.rules import make_rules
    from tables.intents import Join, Start
    from tables.model import TableConfig
    from tables.service import TableService

    service = TableService(seeds=functools.partial(random.Random(1).randrange, 2**31))
    config = TableConfig(make_rules("classic"), "classic", 90, 3, 30)
    host, *others = MEMBERS
    tasks = len(asyncio.all_tasks())
    gc.collect()
    tracemalloc.start()
    for channel in range(count):
        table_id = (await service.create(1, channel, host, config)).snapshot.id
        for member in others:
            await service.submit(table_id, member, Join())
        await service.submit(table_id, host, Start())
        table = service.get(table_id)
        while table.game is not None and table.phase == "setup":
            seat = next(iter(table.game.to_act()))
            intent = first_offer(table, seat)
            await service.submit(table_id, MEMBERS[seat], intent, table.seats[seat].version)
            # As between clicks, the event loop runs what is ready (timers called off end).
            await asyncio.sleep(0)
    await asyncio.sleep(0)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    alive = len(asyncio.all_tasks()) - tasks
    await service.shutdown()
    return held / count, alive


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
    parser = argparse.ArgumentParser(
        prog="python -m bench.memory",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--at", type=float, default=45.0, help="seconds after the bot starts")
    parser.add_argument(
        "--every", type=float, default=None, help="report again every N seconds after --at"
    )
    parser.add_argument(
        "--trace", action="store_true", help="trace the bot's allocations (RSS not comparable)"
    )
    parser.add_argument(
        "--frames",
        type=int,
        default=TRACE_FRAMES,
        help=f"frames kept per traced allocation with --trace (default {TRACE_FRAMES})",
    )
    parser.add_argument(
        "--trace-from",
        type=float,
        default=None,
        help="start tracing N seconds after the bot starts, before --at (RSS not comparable)",
    )
    parser.add_argument(
        "--core", type=int, default=None, help="measure N tables in the table core alone"
    )
    parser.add_argument("--report", type=Path, default=Path("memory-report.txt"))
    args, load = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    load = [word for word in load if word != "--"]
    if args.frames < 1:
        parser.error("--frames takes a number of frames above 0")
    if args.every is not None and args.every <= 0:
        parser.error("--every takes a number of seconds above 0")
    if args.trace_from is not None and (args.trace or not 0 <= args.trace_from < args.at):
        parser.error("--trace-from takes the seconds before --at, and no --trace")
    if args.core is not None:
        if args.core < 1:
            parser.error("--core takes a number of tables above 0")
        per_table, tasks = asyncio.run(core_tables(args.core))
        print(
            f"core: {args.core} tables of 3 members in play, each waiting for a member's turn: "
            f"{per_table / 1024:.1f} KB per table (tracemalloc), {tasks} tasks alive"
        )
        return 0
    env = dict(os.environ, BENCH_MEMORY_REPORT=str(args.report.resolve()))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HOOK), env.get("PYTHONPATH")]))
    env["BENCH_MEMORY_FRAMES"] = str(args.frames)
    if args.trace:
        env["PYTHONTRACEMALLOC"] = str(args.frames)
    bench = subprocess.Popen([sys.executable, "-m", "bench.load", *load], cwd=ROOT, env=env)
    child = None
    while child is None and bench.poll() is None:
        time.sleep(0.5)
        child = bot_child(bench.pid)
    started = time.monotonic()
    due = args.at
    trace_due = args.trace_from
    while child is not None and bench.poll() is None:
        if trace_due is not None and time.monotonic() - started >= trace_due:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGUSR2)
                print(f"bench.memory: the bot ({child}) traces its allocations", flush=True)
            trace_due = None
        if time.monotonic() - started >= due:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGUSR1)
                print(f"bench.memory: the bot ({child}) reports to {args.report}", flush=True)
            if args.every is None:
                break
            due += args.every
        time.sleep(0.5)
    return bench.wait()


if __name__ == "__main__":
    sys.exit(main())
