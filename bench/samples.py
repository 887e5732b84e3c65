"""Sum a sampled bot's stacks by function: how much of its CPU each one was running under.

    BENCH_SAMPLE=/tmp/bot.samples python -m bench.load --tables 50 --pictures off --max-seconds 60
    python -m bench.samples /tmp/bot.samples [--top 40]

The file is the bot child's (`bench.botchild.Sampler`): one line per stack, outermost frame
first, and the samples taken in it. "Under" counts a sample for every function on its stack
(once, however often it recurs); "on top" only for the innermost, which C work that ran
just before is charged to. The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path


def read_stacks(text: str) -> Counter[tuple[str, ...]]:
    """Read collapsed stacks (`outer;...;inner count` per line)."""
    stacks: Counter[tuple[str, ...]] = Counter()
    for line in text.splitlines():
        frames, _, count = line.rpartition(" ")
        if frames:
            stacks[tuple(frames.split(";"))] += int(count)
    return stacks


def shares(stacks: Counter[tuple[str, ...]]) -> tuple[int, Counter[str], Counter[str]]:
    """Count the samples in all, and under and on top of each function."""
    under: Counter[str] = Counter()
    on_top: Counter[str] = Counter()
    for stack, count in stacks.items():
        for name in set(stack):
            under[name] += count
        on_top[stack[-1]] += count
    return sum(stacks.values()), under, on_top


def main(argv: list[str] | None = None) -> int:
    """Print the functions most samples were taken under, and on top of."""
    parser = argparse.ArgumentParser(prog="python -m bench.samples", description=__doc__)
    parser.add_argument("path", type=Path, help="a bot child's BENCH_SAMPLE file")
    parser.add_argument("--top", type=int, default=40, help="functions listed of each kind")
    args = parser.parse_args(argv)
    try:
        text = args.path.read_text(encoding="utf-8")
    except OSError as error:
        print(f"{args.path}: cannot be read ({error.strerror}); give the BENCH_SAMPLE file")
        return 2
    total, under, on_top = shares(read_stacks(text))
    if not total:
        print(f"{args.path}: no samples")
        return 1
    print(f"{total} samples")
    figures: dict[str, dict[str, float]] = {}
    for title, counts in (("under", under), ("on top", on_top)):
        print(f"--- share of samples {title} a function")
        top = counts.most_common(args.top)
        for name, count in top:
            print(f"{100 * count / total:6.2f}%  {name}")
        figures[title] = {name: round(100 * count / total, 2) for name, count in top}
    print(json.dumps({"samples": total, **figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
