"""Skill ratings from finishing orders (openskill's Plackett-Luce), without Discord or storage.

A player's rating is a belief about their skill: `mu` (the estimate) and `sigma` (how unsure
it is). What the bot shows is the conservative `ordinal`, mu - 3·sigma: a newcomer starts
at 0 and climbs as the bot becomes sure they are good. `python -m bot.ratings recompute`
re-derives every stored rating from the recorded games (see `bot.rating_store`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from openskill.models import PlackettLuce

# One model for every server: openskill's defaults (mu 25, sigma 25/3, tau 25/300).
MODEL = PlackettLuce()
# How many recent games the trend of /stats spans.
TREND_GAMES = 10


@dataclass(frozen=True)
class Rating:
    """A skill belief: the estimate `mu` and its uncertainty `sigma`."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """Give the conservative skill shown to players: mu - 3·sigma."""
        return self.mu - 3 * self.sigma


NEWCOMER = Rating(MODEL.mu, MODEL.sigma)


@dataclass(frozen=True)
class Seat:
    """One seat of a finished game: who sat there and how they finished (1 is best)."""

    identity: str
    rank: int


@dataclass(frozen=True)
class Change:
    """A seat's rating before and after its game."""

    before: Rating
    after: Rating

    @property
    def delta(self) -> float:
        """Give how far the shown rating moved."""
        return self.after.ordinal - self.before.ordinal


def ranks(places: Sequence[int | None], losers: Sequence[bool]) -> list[int]:
    """Rank the seats of a recorded game: by place, then the unplaced tied, the loser last.

    A seat without a place that did not lose is tied with every other such seat, just after
    the placed ones (in `mode: winner` only the winner has a place).
    """
    placed = [place for place in places if place is not None]
    unplaced = max(placed, default=0) + 1
    tied = any(place is None and not lost for place, lost in zip(places, losers, strict=True))
    last = unplaced + 1 if tied else unplaced
    return [
        last if lost else place if place is not None else unplaced
        for place, lost in zip(places, losers, strict=True)
    ]


def rate_game(current: Mapping[str, Rating], seats: Sequence[Seat]) -> list[Change]:
    """Rate one game: each seat's change, from its identity's rating (newcomers start fresh).

    An identity holding several seats (two `basic` computers at one table) is rated once per
    seat from the same rating, and takes the mean of those seats' results.
    """
    before = [current.get(seat.identity, NEWCOMER) for seat in seats]
    teams = [[MODEL.create_rating([rating.mu, rating.sigma])] for rating in before]
    rated = MODEL.rate(teams, ranks=[float(seat.rank) for seat in seats])
    results: dict[str, list[Rating]] = {}
    for seat, (team,) in zip(seats, rated, strict=True):
        results.setdefault(seat.identity, []).append(Rating(team.mu, team.sigma))
    after = {
        identity: Rating(
            sum(r.mu for r in several) / len(several), sum(r.sigma for r in several) / len(several)
        )
        for identity, several in results.items()
    }
    return [Change(old, after[seat.identity]) for seat, old in zip(seats, before, strict=True)]


def replay(
    games: Iterable[Sequence[Seat]], current: Mapping[str, Rating] | None = None
) -> list[list[Change]]:
    """Rate games in order, from the ratings given (else from nothing): every game's changes."""
    ratings = dict(current or {})
    changes = []
    for seats in games:
        changed = rate_game(ratings, seats)
        for seat, change in zip(seats, changed, strict=True):
            ratings[seat.identity] = change.after
        changes.append(changed)
    return changes


def trend(history: Sequence[Change], games: int = TREND_GAMES) -> float:
    """Give how far the shown rating moved over the last `games` games (0 without any)."""
    recent = history[-games:]
    return recent[-1].after.ordinal - recent[0].before.ordinal if recent else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    """Re-derive every stored rating from the recorded games: `recompute [--database PATH]`."""
    from bot.rating_store import recompute_file
    from bot.settings import Settings

    parser = argparse.ArgumentParser(prog="python -m bot.ratings", description=main.__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    recompute = commands.add_parser(
        "recompute", help="rate every recorded game again, in order, from nothing"
    )
    recompute.add_argument(
        "--database", type=Path, default=Settings.model_fields["database_path"].default
    )
    recompute.add_argument(
        "--check",
        action="store_true",
        help="only compare with the stored ratings (exit status 1 if they differ)",
    )
    options = parser.parse_args(argv)
    if not options.database.is_file():
        parser.error(f"{options.database}: no such database file (give --database PATH)")
    report = asyncio.run(recompute_file(options.database, write=not options.check))
    print(report.summary(written=not options.check))
    return 1 if options.check and not report.agrees else 0


if __name__ == "__main__":
    sys.exit(main())
