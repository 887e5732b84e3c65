"""Load the bot: many tables opened in a burst, members clicking fast, every game played out.

    python -m bench.load --tables 200 [--think 0.2 0.8] [--burst 10] [--pictures on|off]

The sandbox (with Discord's rate limits and 3 s interaction deadline) and the members run
in this process, the bot in another. N tables of three members are opened one after
another over the burst (by default 10 s, as in issue 18's run of 200 tables); each member
clicks from their DM view 0.2-0.8 s after it offers something (several times faster than
people) until their game ends. It prints the answer time p50/p95/p99 (from the moment an
interaction reaches the sandbox to the bot's callback), expired interactions, REST calls
per move by kind, the bot's CPU ms per human move and peak RSS, games finished, and how
late the bench itself ran (so a figure can be told apart from the bench's own lag). What
is measured and how: `bench.harness`.
"""

from __future__ import annotations

import sys

from bench.harness import Options, parse_options, run

DEFAULTS = Options(tables=200, think=(0.2, 0.8), burst=10.0)


def main(argv: list[str] | None = None) -> int:
    """Run the load bench; 0 when every game finished."""
    options = parse_options(
        sys.argv[1:] if argv is None else argv,
        prog="python -m bench.load",
        description="Load the bot with many tables of fast members and measure it.",
        defaults=DEFAULTS,
    )
    return run(options)


if __name__ == "__main__":
    sys.exit(main())
