"""The README's picture of a hint and a rating as players see them, from the bot's own output."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import discord

from bot.components import Components
from bot.i18n import t
from bot.rendering import render_private, render_table
from bot.storage import Storage
from bot.table_store import StorageTableStore
from bot.words import hint_text
from tables.intents import Join, SetHints, Start
from tables.outcome import snapshot
from tables.service import TableService
from tests.bot.test_table_store import move
from tests.tables.conftest import TIMING, FakeClock
from tests.tables.test_service import ANA, BEN, CID, all_ready, config

# How the presenter says where a private view belongs (bot/presenter.py).
WHERE = "Table {id} in #{channel} on {guild}"
SHOWN_ID = "5e1f0c2a"
# Ana's turn this many times into the game is the one she asks a hint on.
ASKED_AT_TURN = 4


def lines_of(embed: discord.Embed) -> list[str]:
    """Lay an embed out as text: the title, the description, then each field by name."""
    lines = [str(embed.title)]
    if embed.description:
        lines.append(str(embed.description))
    for field in embed.fields:
        lines.append(f"{field.name}: {field.value}".replace("\n", " · "))
    return lines


def labels(view: Components) -> str:
    """Name a message's buttons and menus in order, as they appear under it."""
    named: list[str] = []
    for row in view.to_components():
        for item in row["components"]:
            named.append(f"[{item.get('label') or item.get('placeholder')}]")
    return " ".join(named)


async def example(path: Path) -> str:
    """Play a seeded table with hints on: Ana's view, her hint, the end with the ratings."""
    storage = await Storage.open(path)
    clock = FakeClock()
    store = StorageTableStore(storage)
    service = TableService(
        store=store, timing=TIMING, clock=clock, later=clock.later, seeds=lambda: 7
    )
    try:
        quiet = dataclasses.replace(config(turn=60), pictures=False)
        table_id = (await service.create(10, 20, ANA, quiet)).snapshot.id
        for player in (BEN, CID):
            await service.submit(table_id, player, Join())
        await service.submit(table_id, ANA, SetHints(True))
        await service.submit(table_id, ANA, Start())
        table = service.get(table_id)
        await all_ready(service, table, ANA, BEN, CID)
        turns = 0
        shown: list[str] = []
        assert table.game is not None
        while not table.game.over:
            if table.game.turn == 0 and not shown:
                turns += 1
                if turns == ASKED_AT_TURN:
                    where = t(WHERE, "en", id=table_id, channel="general", guild="Sandbox")
                    rendered = render_private(snapshot(table), 0, "en", where)
                    found = await service.hint(table_id, ANA, table.seats[0].version)
                    shown = [
                        *lines_of(rendered.embeds[0]),
                        labels(rendered.view),
                        "Ana presses Hint; only she sees the answer:",
                        hint_text(found, "en"),
                    ]
            await move(service, table)
        changes = store.rating_changes[table_id]
        ended = render_table(snapshot(table), "en", ratings=changes).embeds[0]
        ratings = next(f for f in ended.fields if f.name == "Ratings")
        text = "\n".join(
            [
                "Ana's private view (a DM), her turn",
                *(f"  {line}" for line in shown),
                "The end of the game (table message)",
                f"  {ratings.name}",
                *(f"  {line}" for line in str(ratings.value).splitlines()),
            ]
        )
        # A table's id is random: the README shows one id; bold is shown plainly.
        return text.replace(table_id, SHOWN_ID).replace("**", "")
    finally:
        await service.shutdown()
        await storage.close()


async def test_the_readme_shows_a_hint_and_a_rating_as_the_bot_says_them(tmp_path: Path) -> None:
    shown = await example(tmp_path / "bot.sqlite3")
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert f"```\n{shown}\n```" in readme, shown
