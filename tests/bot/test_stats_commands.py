"""`/leaderboard`, `/stats` and `forget-me` through the sandbox, after several games."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bot.rating_store import RatingStore
from bot.storage import GameRecord, PlayerRecord, Storage
from bot.words import rating_change_text, rating_text
from sandbox.driver import Driver
from tests.bot.commands_bot import bot, driver, sandbox, storage

__all__ = ["bot", "driver", "sandbox", "storage"]

NOW = datetime.now(UTC)


def _ids(driver: Driver) -> tuple[int, dict[str, int]]:
    state = driver.state()
    return int(state["guilds"][0]["id"]), {u["name"]: int(u["id"]) for u in state["users"]}


async def _play(
    storage: Storage, guild: int, loser: tuple[int, str], *others: tuple[int, str], **extra: Any
) -> None:
    ended = NOW - timedelta(days=extra.get("days_ago", 0))
    players = [
        PlayerRecord(uid, name, False, place, False) for place, (uid, name) in enumerate(others, 1)
    ]
    bot, level = extra.get("bot", False), extra.get("level")
    players.append(PlayerRecord(loser[0], loser[1], bot, None, True, level))
    await storage.record_game(
        GameRecord(
            guild,
            1,
            extra.get("preset", "classic"),
            {},
            ended - timedelta(minutes=9),
            ended,
            50,
            "finished",
            players,
        )
    )


def _buttons(message: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["label"]: c for row in message["components"] for c in row["components"]}


async def test_leaderboard_ranks_people_pages_and_lists_computers_apart(
    driver: Driver, storage: Storage
) -> None:
    guild, users = _ids(driver)
    ann, mod = (users["ann"], "ann"), (users["mod"], "mod")
    for _ in range(3):
        await _play(storage, guild, ann, mod)
    await _play(storage, guild, mod, ann, days_ago=40)
    await _play(storage, guild, (0, "Robo"), ann, bot=True)
    for i in range(12):  # fill a second page
        await _play(storage, guild, (1000 + i, f"guest{i:02d}"), mod, days_ago=1)

    result = await driver.command("ann", "general", "leaderboard")
    message = result["response"]
    embed = message["embeds"][0]
    lines = embed["description"].splitlines()
    assert lines[0] == "1. **ann**: Shithead ×3, played 5, loss rate 60%"
    assert lines[1].startswith("2. **guest00**: Shithead ×1, played 1")
    assert len(lines) == 10
    assert embed["fields"] == [
        {
            "name": "Computer players",
            "value": "1. **Robo**: Shithead ×1, played 1, loss rate –",
            "inline": False,
        }
    ]
    assert embed["footer"]["text"] == "Page 1 of 2. A loss rate counts from 5 games."
    buttons = _buttons(message)
    assert buttons["◀"]["disabled"] and not buttons["▶"].get("disabled")

    turned = await driver.click("mod", message["id"], buttons["▶"]["custom_id"])
    page = turned["response"]["embeds"][0]
    assert page["footer"]["text"].startswith("Page 2 of 2.")
    assert page["description"].splitlines()[0].startswith("11. **guest09**")
    assert page["description"].splitlines()[-1].startswith("14. **mod**: Shithead ×1, played 16")

    recent = await driver.command(
        "ann", "general", "leaderboard", {"period": "30d", "order": "loss_rate"}
    )
    embed = recent["response"]["embeds"][0]
    assert embed["title"].endswith("loss rate, last 30 days")
    # ann's 4 recent games are too few for a rate; guests played one each.
    assert embed["description"] == "1. **mod**: Shithead ×0, played 15, loss rate 0%"


async def test_stats_for_yourself_and_another_member(driver: Driver, storage: Storage) -> None:
    guild, users = _ids(driver)
    ann, mod = (users["ann"], "ann"), (users["mod"], "mod")
    await _play(storage, guild, mod, ann, preset="dutch")
    await _play(storage, guild, mod, ann, preset="dutch")
    await _play(storage, guild, ann, mod, preset="karma")
    await _play(storage, guild, mod, ann, preset="karma")
    await _play(storage, guild, mod, ann, preset="dutch")
    await _play(storage, guild + 1, mod, ann)  # another server

    mine = await driver.command("ann", "general", "stats")
    fields = {f["name"]: f["value"] for f in mine["response"]["embeds"][0]["fields"]}
    assert fields == {
        "Games": "5",
        "Times Shithead": "1",
        "Loss rate": "20%",
        "Best streak (games without losing)": "2",
        "Worst streak (losses in a row)": "1",
        "Favourite preset": "dutch",
    }
    theirs = await driver.command("ann", "general", "stats", {"member": "mod"})
    embed = theirs["response"]["embeds"][0]
    assert embed["title"] == "mod's record"
    assert {f["name"]: f["value"] for f in embed["fields"]}["Worst streak (losses in a row)"] == "2"


async def test_forget_me_asks_then_deletes_only_that_member(
    driver: Driver, storage: Storage
) -> None:
    guild, users = _ids(driver)
    ann, mod = (users["ann"], "ann"), (users["mod"], "mod")
    await _play(storage, guild, ann, mod)

    asked = await driver.command("ann", "general", "shithead forget-me")
    assert asked["response"]["ephemeral"]
    buttons = _buttons(asked["response"])
    cancelled = await driver.click("ann", asked["response"]["id"], buttons["Cancel"]["custom_id"])
    assert cancelled["response"]["content"] == "Nothing was deleted."
    assert len(await storage.played_games(guild, users["ann"])) == 1

    asked = await driver.command("ann", "general", "shithead forget-me")
    confirm = _buttons(asked["response"])["Delete my stats"]
    done = await driver.click("ann", asked["response"]["id"], confirm["custom_id"])
    assert done["response"]["content"].startswith(
        "Done: your name was removed from 1 recorded games"
    )
    assert await storage.played_games(guild, users["ann"]) == []
    assert [r.name for r in await storage.leaderboard(guild)] == ["mod"]
    stats = await driver.command("ann", "general", "stats")
    assert stats["response"]["embeds"][0]["description"] == "No games recorded on this server."


async def test_leaderboard_by_rating_and_stats_show_ratings(
    driver: Driver, storage: Storage
) -> None:
    guild, users = _ids(driver)
    ann, mod = (users["ann"], "ann"), (users["mod"], "mod")
    for _ in range(3):
        await _play(storage, guild, mod, ann)
    await _play(storage, guild, ann, mod)
    await _play(storage, guild, (0, "Computer 1 (expert)"), ann, bot=True, level="expert")
    for i in range(12):  # fill a second page: each guest lost once to mod
        await _play(storage, guild, (1000 + i, f"guest{i:02d}"), mod)
    ratings = RatingStore(storage)
    assert await ratings.rate_unrated() == 17
    standings = {row.identity: row for row in await ratings.standings(guild)}

    result = await driver.command("ann", "general", "leaderboard", {"by": "rating"})
    message = result["response"]
    embed = message["embeds"][0]
    assert embed["title"] == "Skill ratings of Sandbox: all time"
    lines = embed["description"].splitlines()
    assert len(lines) == 10
    best = max((r for r in standings.values() if not r.is_bot), key=lambda r: r.rating.ordinal)
    assert lines[0].startswith(f"1. **{best.name}**: rating {rating_text(best.rating, 'en')} (")
    assert embed["fields"][0]["value"].startswith("1. **Computer (expert)**: rating ")
    assert embed["footer"]["text"].startswith("Page 1 of 2. A rating is skill minus three")
    turned = await driver.click("mod", message["id"], _buttons(message)["▶"]["custom_id"])
    page = turned["response"]["embeds"][0]
    assert page["title"].startswith("Skill ratings of")
    assert page["description"].splitlines()[0].startswith("11. **")

    mine = await driver.command("ann", "general", "stats")
    fields = {f["name"]: f["value"] for f in mine["response"]["embeds"][0]["fields"]}
    history = await ratings.member_history(guild, users["ann"])
    assert len(history) == 5
    assert fields["Rating"] == rating_text(history[-1].after, "en")
    assert fields["Change in the last game"] == rating_change_text(history[-1].delta, "en")
    assert fields["Trend over the last 5 games"] == rating_change_text(
        history[-1].after.ordinal, "en"
    )
    assert fields["Games"] == "5"  # the record fields stay as they were

    shame = await driver.command("ann", "general", "leaderboard")
    assert shame["response"]["embeds"][0]["title"].startswith("Hall of shame of")
