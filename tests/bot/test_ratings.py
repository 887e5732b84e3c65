"""The rating maths: finishing orders in, openskill Plackett-Luce ratings out."""

from __future__ import annotations

from itertools import pairwise

import pytest

from bot.ratings import (
    MODEL,
    NEWCOMER,
    Change,
    Rating,
    Seat,
    ranks,
    rate_game,
    replay,
    trend,
)


def test_a_newcomer_starts_at_openskills_defaults_and_shows_zero() -> None:
    assert (NEWCOMER.mu, NEWCOMER.sigma) == (25.0, 25.0 / 3)
    assert NEWCOMER.ordinal == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("places", "losers", "expected"),
    [
        # mode: loser, everyone out in turn: the places, the Shithead last.
        ([2, None, 1], [False, True, False], [2, 3, 1]),
        # mode: winner: only the winner has a place; the others tie behind.
        ([None, 1, None], [False, False, False], [2, 1, 2]),
        # A leaver is the Shithead; the others were placed by fewest cards.
        ([1, None, 2, 3], [False, True, False, False], [1, 4, 2, 3]),
        # Nobody placed (a game recorded without places): the loser behind the rest.
        ([None, None], [True, False], [2, 1]),
    ],
)
def test_ranks_follow_places_ties_and_the_loser(
    places: list[int | None], losers: list[bool], expected: list[int]
) -> None:
    assert ranks(places, losers) == expected


def test_a_game_is_rated_as_openskill_rates_it() -> None:
    current = {"ann": Rating(30.0, 5.0)}
    changes = rate_game(current, [Seat("bo", 2), Seat("ann", 1), Seat("cy", 3)])
    # The same game, straight through openskill.
    teams = [[MODEL.rating(25.0, 25.0 / 3)], [MODEL.rating(30.0, 5.0)], [MODEL.rating()]]
    expected = MODEL.rate(teams, ranks=[2, 1, 3])
    assert [c.before for c in changes] == [NEWCOMER, Rating(30.0, 5.0), NEWCOMER]
    assert [(c.after.mu, c.after.sigma) for c in changes] == [
        (team[0].mu, team[0].sigma) for team in expected
    ]
    first, last = changes[1], changes[2]
    assert first.after.mu > first.before.mu and last.after.mu < last.before.mu
    assert last.delta < 0 < first.delta


def test_tied_newcomers_move_alike() -> None:
    winner, one, other = rate_game({}, [Seat("a", 1), Seat("b", 2), Seat("c", 2)])
    assert one == other
    assert winner.delta > 0 > one.after.mu - one.before.mu


def test_one_identity_in_several_seats_takes_the_mean_of_its_seats() -> None:
    changes = rate_game({}, [Seat("basic", 1), Seat("ann", 2), Seat("basic", 3)])
    alone = rate_game({}, [Seat("x", 1), Seat("y", 2), Seat("z", 3)])
    mean = Rating(
        (alone[0].after.mu + alone[2].after.mu) / 2,
        (alone[0].after.sigma + alone[2].after.sigma) / 2,
    )
    assert changes[0].after == changes[2].after == mean
    assert changes[1] == alone[1]


def test_replay_carries_each_rating_into_the_next_game() -> None:
    games = [[Seat("ann", 1), Seat("bo", 2)]] * 5 + [[Seat("bo", 1), Seat("cy", 2)]]
    changes = replay(games)
    for previous, game in pairwise(changes[:5]):
        assert game[0].before == previous[0].after
    assert changes[5][0].before == changes[4][1].after  # bo, after losing five times
    assert changes[5][1].before == NEWCOMER
    ann = [game[0] for game in changes[:5]]
    assert all(later.after.ordinal > earlier.after.ordinal for earlier, later in pairwise(ann))


def test_replay_starts_from_given_ratings_without_changing_them() -> None:
    current = {"ann": Rating(20.0, 2.0)}
    changes = replay([[Seat("ann", 2), Seat("bo", 1)]], current)
    assert changes[0][0].before == Rating(20.0, 2.0)
    assert current == {"ann": Rating(20.0, 2.0)}


def test_the_trend_spans_the_last_games() -> None:
    history = [Change(Rating(25.0, 8.0 - i), Rating(25.0, 7.0 - i)) for i in range(12)]
    # Each game lowers sigma by one: the shown rating rises by 3 a game.
    assert trend(history) == pytest.approx(30.0)
    assert trend(history, games=2) == pytest.approx(6.0)
    assert trend([]) == 0.0
