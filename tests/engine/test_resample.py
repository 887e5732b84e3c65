"""Resampling: games dealt again behind a view, which that view cannot tell from the real one."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest
from hypothesis import given

from engine.game import Game
from engine.resample import Resampler, resample
from engine.rules import make_rules
from engine.views import player_view
from tests.engine.test_properties import SETTINGS, all_cards, steps, tables


def _check_resampled(game: Game, seat: int, seed: int) -> None:
    view = player_view(game, seat)
    resampler = Resampler(view)
    assert resampler.consistent
    sample = resampler.sample(random.Random(seed))
    assert player_view(sample, seat) == view  # same public cards and counts, same own hand
    assert Counter(sample.hands[seat]) == Counter(game.hands[seat])
    assert all_cards(sample) == all_cards(game)  # nothing made up, nothing lost
    for other in range(game.players):
        assert Counter(sample.known[other]) == Counter(game.known[other])
        assert not Counter(game.known[other]) - Counter(sample.hands[other])
    hidden = Counter(resampler.unseen)
    assert Counter(sample.stock) <= hidden


@SETTINGS
@given(tables())
def test_a_resampled_game_looks_the_same_from_the_seat(table: tuple[str, int, int]) -> None:
    preset, players, seed = table
    game = Game.deal(make_rules(preset), players, seed=seed)
    rng = random.Random(seed)
    for number, _ in enumerate(steps(game, rng)):
        if number % 37 == 0:
            for seat in range(players):
                _check_resampled(game, seat, seed + number)
        if number > 300:
            break


def test_a_resampled_game_plays_on() -> None:
    game = Game.deal(make_rules("classic"), 3, seed=5)
    rng = random.Random(5)
    for number, _ in enumerate(steps(game, rng)):
        if number == 40:
            break
    sample = resample(player_view(game, 0), random.Random(1))
    for _ in steps(sample, random.Random(2)):
        pass
    assert sample.over


def test_the_same_rng_deals_the_same_sample() -> None:
    game = Game.deal(make_rules("classic"), 4, seed=9)
    view = player_view(game, 2)
    first, again = (resample(view, random.Random(3)) for _ in range(2))
    assert first.hands == again.hands and first.stock == again.stock
    assert resample(view, random.Random(4)).hands != first.hands


def test_a_view_whose_counts_do_not_add_up_is_not_resampled() -> None:
    game = Game.deal(make_rules("classic"), 3, seed=2)
    view = player_view(game, 0)
    table = dataclasses.replace(view.table, stock_count=view.table.stock_count + 1)
    resampler = Resampler(dataclasses.replace(view, table=table))
    assert not resampler.consistent
    with pytest.raises(ValueError, match="counts"):
        resampler.sample(random.Random(0))
