"""Load several bot processes that share PostgreSQL, each running a range of shards.

    python -m bench.cluster --tables 200 --processes 2 --shards 2 [bench.load's options]

As `python -m bench.load` (the same members, think times, opening burst and figures:
`bench.harness`), but the bot is `--processes` processes on one throwaway PostgreSQL
cluster (`bench.postgres`, started and removed by the bench), process p running shards
p*S to p*S+S-1 of processes*S (S is `--shards`). The tables are spread over `--guilds`
servers (two a shard by default; server g is on shard g mod the shard count, table t in
server t mod the servers). Members click from their DMs, which Discord sends on shard 0:
a click on another process's table goes to it through the database (`bot.routing`).
Besides bench.load's figures it prints each process's CPU per move and peak RSS, the
PostgreSQL server's CPU per move, and the DM clicks answered where they came in and those
sent on to another process, with their answer times.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.harness import (
    JSON,
    Bench,
    Options,
    answers,
    bench_sandbox,
    bot_process,
    cpu_seconds,
    describe,
    new_bench,
    parse_options,
    per_move,
    play,
    report,
    run,
    seat,
    spread,
)
from bench.load import DEFAULTS
from bench.postgres import MISSING, Cluster, server_binaries
from bot.custom_ids import table_of
from bot.database import shard_of
from sandbox.world import Interaction

# How often the PostgreSQL server's processes are read for their CPU time (a backend's CPU
# after its last reading, less than this before it ends, is not counted).
SERVER_SAMPLE_SECONDS = 1.0


@dataclass(frozen=True)
class Layout:
    """How many bot processes, shards each, and servers the tables are spread over."""

    processes: int = 2
    shards: int = 2
    guilds: int = 0  # 0: two a shard

    @property
    def shard_count(self) -> int:
        """Count the shards of every process."""
        return self.processes * self.shards

    @property
    def servers(self) -> int:
        """Count the servers the tables are spread over."""
        return self.guilds or 2 * self.shard_count

    def shard_ids(self, process: int) -> str:
        """Name a process's shards as SHARD_IDS does (`2-3`)."""
        first = process * self.shards
        return f"{first}-{first + self.shards - 1}"

    def process_of(self, shard: int) -> int:
        """Say which process runs a shard."""
        return shard // self.shards


def server_pids(cluster: Cluster) -> list[int]:
    """List the PostgreSQL server's processes now: the postmaster and its children."""
    try:
        postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return []
    pids = [postmaster]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        if int(text[text.rindex(")") + 2 :].split()[1]) == postmaster:
            pids.append(int(stat.parent.name))
    return pids


class ServerCpu:
    """The CPU seconds the PostgreSQL server's processes used, read every few moments."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.seen: dict[int, float] = {}  # pid -> its CPU seconds at the latest reading
        self.start: dict[int, float] = {}

    def sample(self) -> None:
        """Read every server process's CPU time."""
        for pid in server_pids(self.cluster):
            seconds = cpu_seconds(pid)
            if seconds is not None:
                self.seen[pid] = seconds

    @contextlib.asynccontextmanager
    async def watching(self) -> AsyncIterator[None]:
        """Read the server's CPU from the block's start to its end."""
        self.sample()
        self.start = dict(self.seen)

        async def keep_reading() -> None:
            while True:
                await asyncio.sleep(SERVER_SAMPLE_SECONDS)
                self.sample()

        reader = asyncio.create_task(keep_reading())
        try:
            yield
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            self.sample()

    @property
    def used(self) -> float:
        """Return the CPU seconds used since the block started."""
        return sum(seconds - self.start.get(pid, 0.0) for pid, seconds in self.seen.items())


def dm_clicks(
    bench: Bench, interactions: Sequence[Interaction], guild_of: dict[str, int], layout: Layout
) -> dict[str, list[Interaction]]:
    """Sort the DM clicks on the bench's tables: on shard 0's process's own, or sent on."""
    clicks: dict[str, list[Interaction]] = {"own": [], "sent_on": []}
    for interaction in interactions:
        table_id = table_of(str(interaction.data.get("custom_id", "")))
        names = None if table_id is None else bench.stats.opened.get(table_id)
        if interaction.guild_id is not None or names is None:
            continue
        shard = shard_of(guild_of[names[0]], layout.shard_count)
        clicks["sent_on" if layout.process_of(shard) else "own"].append(interaction)
    return clicks


def timed(clicks: list[Interaction], deadline: float) -> JSON:
    """Count some clicks, time their answers, count those that expired."""
    times, expired = answers(clicks, deadline)
    return {"count": len(clicks), "answer_ms": spread(times), "expired": expired["total"]}


async def measure(options: Options, layout: Layout) -> JSON:
    """Play the tables against the bot processes on a throwaway PostgreSQL; return the figures."""
    binaries = server_binaries()
    if binaries is None:
        raise SystemExit(MISSING)
    cluster = Cluster(binaries)
    cluster.start()
    server = ServerCpu(cluster)
    try:
        url = (await cluster.new_database()).shown()
        with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
            log_path = options.bot_log or Path(tmp) / "bot.log"
            async with bench_sandbox(options) as sandbox:
                bench = new_bench(sandbox, options)
                guilds = [sandbox.driver.guild.id]
                for n in range(1, layout.servers):
                    made = await sandbox.driver.create_guild(f"bench-server-{n}")
                    guilds.append(int(made["id"]))
                seating = await seat(bench, options, guilds)
                bots = [
                    bot_process(
                        sandbox,
                        url,
                        options.seed,
                        log_path,
                        quick=options.quick,
                        shards=(layout.shard_count, layout.shard_ids(p)),
                        move_workers=options.move_workers,
                    )
                    for p in range(layout.processes)
                ]
                async with server.watching():
                    measured = await play(bench, options, seating, bots, log_path, guilds)
    finally:
        cluster.stop()
    figures = report(options, bench.stats, measured)
    guild_of = {
        name: guilds[i % len(guilds)] for i, (_, names) in enumerate(seating) for name in names
    }
    clicks = dm_clicks(bench, measured.interactions, guild_of, layout)
    figures["cluster"] = {
        "processes": layout.processes,
        "shards_per_process": layout.shards,
        "shard_count": layout.shard_count,
        "servers": layout.servers,
        # DM clicks on tables of shard 0's process, answered where they came in, and on the
        # other processes' tables, sent on to them.
        "dm_clicks": {where: timed(group, measured.deadline) for where, group in clicks.items()},
        "postgres_cpu_seconds": round(server.used, 3),
        "postgres_cpu_ms_per_move": per_move(server.used * 1000, figures["human_moves"]),
    }
    return figures


def describe_cluster(figures: JSON) -> list[str]:
    """Write the figures for people: bench.load's lines, then the cluster's."""
    cluster = figures["cluster"]
    return [
        f"cluster: {cluster['processes']} bot processes x {cluster['shards_per_process']} shards "
        f"on PostgreSQL, tables spread over {cluster['servers']} servers",
        *describe(figures),
        *(
            f"DM clicks {what}: {group['count']}, answer p50 {group['answer_ms']['p50']} ms, "
            f"p99 {group['answer_ms']['p99']} ms, {group['expired']} expired"
            for what, group in (
                ("on shard 0's process's own tables", cluster["dm_clicks"]["own"]),
                ("sent on to another process", cluster["dm_clicks"]["sent_on"]),
            )
        ),
        f"PostgreSQL server CPU: {cluster['postgres_cpu_ms_per_move']} ms per human move "
        f"({cluster['postgres_cpu_seconds']} s, its processes read every "
        f"{SERVER_SAMPLE_SECONDS:.0f} s over the whole run, start-up included)",
    ]


def parse_layout(argv: list[str]) -> tuple[Layout, list[str]]:
    """Read the cluster's own options; return the rest for bench.load's."""
    parser = argparse.ArgumentParser(prog="python -m bench.cluster", add_help=False)
    parser.add_argument("--processes", type=int, default=Layout.processes)
    parser.add_argument("--shards", type=int, default=Layout.shards)
    parser.add_argument("--guilds", type=int, default=Layout.guilds)
    args, rest = parser.parse_known_args(argv)
    if args.processes < 1 or args.shards < 1 or args.guilds < 0:
        parser.error("need --processes >= 1, --shards >= 1 and --guilds >= 0")
    return Layout(args.processes, args.shards, args.guilds), rest


def main(argv: list[str] | None = None) -> int:
    """Run the cluster bench; 0 when every game finished."""
    layout, rest = parse_layout(sys.argv[1:] if argv is None else argv)
    options = parse_options(
        rest,
        prog="python -m bench.cluster",
        description=(
            "Load bot processes sharing PostgreSQL, each running shards, and measure them. "
            "Also: --processes N (2), --shards S per process (2), --guilds G servers (0: two "
            "a shard). Needs PostgreSQL's server binaries (the Debian package postgresql)."
        ),
        defaults=DEFAULTS,
    )
    return run(options, lambda: measure(options, layout), describe_cluster)


if __name__ == "__main__":
    sys.exit(main())
