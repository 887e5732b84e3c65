"""The lobby, the end of a game and a closed table fit Discord's limits in every language."""

from __future__ import annotations

import random

import discord
import pytest

from bot.i18n import LANGUAGES
from bot.rendering import Rendered, render_private, render_table
from engine.game import Game
from engine.legal import legal_actions
from engine.rules import RuleSet, make_rules
from tables.model import Seat, Table
from tables.notes import notes_of
from tables.outcome import snapshot
from tests.bot.test_rulebook import ODD_RULES

# Twelve members with names as long as Discord allows (32), in a script wider than ASCII.
NAMES = [f"{'Ü' * 28}{n:04d}" for n in range(12)]


def a_table(rules: RuleSet, players: int) -> Table:
    seats = [Seat(10 + n, name) for n, name in enumerate(NAMES[:players])]
    return Table("abc", 1, 2, 10, "schwechat", rules, 5, 90, 3, seats)


def assert_fits(rendered: Rendered) -> None:
    for embed in rendered.embeds:
        assert len(embed) <= 6000 and len(embed.fields) <= 25
        assert len(embed.title or "") <= 256 and len(embed.description or "") <= 4096
        assert len((embed.footer.text if embed.footer else None) or "") <= 2048
        for field in embed.fields:
            assert len(str(field.name)) <= 256 and len(str(field.value)) <= 1024
    for row in rendered.view.to_components():
        for item in row["components"]:
            assert len(item.get("label") or "") <= 80
            assert len(item.get("placeholder") or "") <= 150
            assert all(len(o["label"]) <= 100 for o in item.get("options", []))


def played_to_the_end(table: Table, seed: int) -> Table:
    """Play random legal moves until the game is over, keeping the move log as the core does."""
    game = table.game = Game.deal(table.rules, len(table.seats), seed=seed)
    chance = random.Random(seed)
    while not game.over:
        seat = game.to_act()[0]
        table.log = [*table.log, *notes_of(game.apply(chance.choice(legal_actions(game, seat))))]
    return table


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_full_lobby_with_long_names_and_many_rules_fits(language: str) -> None:
    busy = make_rules("schwechat", {**ODD_RULES["every option turned"], "decks": 3})
    for rules in (make_rules("schwechat"), busy):
        lobby = a_table(rules, min(12, rules.max_players))
        shown = render_table(snapshot(lobby), language)
        assert_fits(shown)
        assert isinstance(shown.embeds[0], discord.Embed) and shown.embeds[0].fields


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_end_of_a_long_game_and_the_closed_table_fit(language: str) -> None:
    table = played_to_the_end(a_table(make_rules("schwechat"), 8), seed=3)
    assert table.game is not None and table.game.over and len(table.log) > 50
    over = snapshot(table)
    assert_fits(render_table(over, language))
    for seat in range(8):
        assert_fits(render_private(over, seat, language, "Table abc in #general on a server"))
    table.closed = True
    assert_fits(render_table(snapshot(table), language))
