"""Benchmark the bot: play seeded games at a few tables and count what each move costs.

    python -m bench.play --tables 20 --humans 3 --seed 1 [--think 0.3 1.2]
    python -m bench.play --tables 20 --humans 2 --computers 1 --level expert [--move-workers 2]

Every table opens at once; members think 0.3-1.2 s before each click. `--computers N` seats
N computer players of `--level` at each table (the host adds them with `/shithead addbot`);
`--move-workers W` sizes the bot's pool of processes that think out their moves (0: a
thread). What is measured and how: `bench.harness`.
"""

from __future__ import annotations

import sys

from bench.harness import Options, parse_options, run

DEFAULTS = Options(tables=20, think=(0.3, 1.2), burst=0.0)


def main(argv: list[str] | None = None) -> int:
    """Run the bench; 0 when every game finished."""
    options = parse_options(
        sys.argv[1:] if argv is None else argv,
        prog="python -m bench.play",
        description="Play seeded games through the sandbox and measure the bot per human move.",
        defaults=DEFAULTS,
    )
    return run(options)


if __name__ == "__main__":
    sys.exit(main())
