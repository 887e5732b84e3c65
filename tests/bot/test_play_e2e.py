"""Whole games through the sandbox with the real discord.py: DMs, ephemerals, timers, computers."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.client import ShitheadBot, Tuning
from bot.guild_settings import GuildSettings
from bot.i18n import t
from bot.rendering import Rendered
from bot.settings import get_settings
from bot.words import card_text, note_text
from engine.rules import make_rules
from engine.strategies import Strategy
from sandbox.driver import Driver
from sandbox.rules import RateLimit
from sandbox.server import DEFAULT_RATE_LIMITS, Sandbox
from sandbox.testing import connected_bot, running_sandbox
from tables.model import Table
from tables.outcome import snapshot
from tables.timers import Timing

JSON = dict[str, Any]
# Whole games move faster than people: these tests give channels a roomier write limit and
# pace the bot to it. The timer test keeps Discord's own limits.
ROOMY = {route: RateLimit(limit=60, per=5.0) for route in DEFAULT_RATE_LIMITS}
FAST = Timing(computer_delay=0.01, setup_seconds=60, remind_seconds=0.3)


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with running_sandbox(rate_limits=ROOMY) as started:
        yield started


def make_bot(tmp_path: Path, *, timing: Timing = FAST, writes: int = 50) -> ShitheadBot:
    settings = get_settings(database_path=tmp_path / "bot.sqlite3", discord_token=None)
    tuning = Tuning(
        timing=timing,
        writes_per_window=writes,
        settle_seconds=0.01,
        table_interval=0.05,
        seeds=lambda: 4242,
    )
    return ShitheadBot(settings, tuning)


@pytest.fixture
async def bot(sandbox: Sandbox, tmp_path: Path) -> AsyncIterator[ShitheadBot]:
    async with connected_bot(sandbox, make_bot(tmp_path)) as client:
        yield client


@pytest.fixture
def driver(sandbox: Sandbox) -> Driver:
    return sandbox.driver


# ---------------------------------------------------------------------- helpers


def ids(message: JSON) -> list[str]:
    return [c["custom_id"] for row in message["components"] for c in row["components"]]


def find(message: JSON, verb: str) -> JSON | None:
    for row in message["components"]:
        for component in row["components"]:
            parts = component["custom_id"].split(":")
            if parts[3] == verb:
                found: JSON = component
                return found
    return None


def table_of(bot: ShitheadBot, table_id: str) -> Table:
    table = bot.tables.find(table_id)
    assert table is not None
    return table


def log_lines(table: Table) -> list[str]:
    """The table's move log in English words, as the table message shows it."""
    shown = snapshot(table)
    return [note_text(note, shown, "en") for note in table.log]


class Asked:
    """Wrap the core's strategy factory: record each strategy asked, maybe wait first."""

    def __init__(self, bot: ShitheadBot, wait: Callable[[], None] = lambda: None) -> None:
        self.factory = bot.tables.strategies
        self.names: list[str] = []
        self.wait = wait
        bot.tables.strategies = self

    def __call__(self, name: str, seed: int) -> Strategy:
        strategy = self.factory(name, seed)
        asked = self

        class Recorded:
            def __init__(self) -> None:
                self.name = strategy.name

            def choose(self, view: Any, rng: Any = None) -> Any:
                asked.names.append(name)
                asked.wait()
                return strategy.choose(view, rng)

        return Recorded()


def footer(message: JSON) -> str:
    embeds = message.get("embeds") or []
    return embeds[0].get("footer", {}).get("text", "") if embeds else ""


def hidden_cards(table: Table, seat: int) -> set[str]:
    """Cards `seat` must never see: others' hands, every face-down card and the stock.

    A card is written as the bot writes it (10♥) and as the engine does (10H); a card
    that also shows openly to `seat` (a second deck's twin, a joker) proves nothing.
    """
    game = table.game
    assert game is not None
    hidden = [c for cards in game.face_down for c in cards] + list(game.stock)
    for other, hand in enumerate(game.hands):
        if other != seat:
            hidden += hand
    shown = list(game.hands[seat]) + game.pile + game.burned
    shown += [c for stacks in game.face_up for stack in stacks for c in stack]
    visible = {card_text(c) for c in shown} | {str(c) for c in shown}
    return ({card_text(c) for c in hidden} | {str(c) for c in hidden}) - visible


def leaks(message: JSON, hidden: set[str]) -> list[str]:
    """Return the hidden cards written anywhere in a message's payload."""
    text = json.dumps(message, ensure_ascii=False)
    return sorted(
        card
        for card in hidden
        if re.search(rf"(?<![0-9A-Za-z]){re.escape(card)}(?![A-Za-z])", text)
    )


def assert_private(message: JSON, table: Table, seat: int) -> None:
    leaked = leaks(message, hidden_cards(table, seat))
    assert not leaked, f"seat {seat} sees {leaked}"


class PrivacyWatch:
    """Check every member's DMs against the cards hidden at the moment each one shows.

    A DM's footer names its seat's view version; each version is one state of the table,
    recorded by `snapshot` after every change, so a DM not yet redrawn is checked against
    the state it shows (its pile top may since have been picked up, and that is no leak).
    """

    def __init__(self, driver: Driver, table: Table, names: dict[int, str]) -> None:
        self.driver = driver
        self.table = table
        self.names = names
        self.hidden: dict[tuple[int, int], set[str]] = {}
        self.checked = 0

    def snapshot(self) -> None:
        """Record the hidden cards of every seat's current view version."""
        for seat in self.names:
            version = self.table.seats[seat].version
            hidden = hidden_cards(self.table, seat)
            assert self.hidden.setdefault((seat, version), hidden) == hidden, (seat, version)

    def check(self) -> None:
        """Read every member's DMs (one call each) and check each whole payload."""
        prefix = f"table {self.table.id} · view "
        for seat, user in self.names.items():
            for message in self.driver.dms(user):
                mark = footer(message)
                assert mark.startswith(prefix), mark
                hidden = self.hidden.get((seat, int(mark.removeprefix(prefix))))
                assert hidden is not None, f"{user}'s DM shows a state never recorded: {mark}"
                leaked = leaks(message, hidden)
                assert not leaked, f"{user}'s DM ({mark}) shows {leaked}"
                self.checked += 1

    def after_move(self) -> None:
        """Record the new state and check every DM."""
        self.snapshot()
        self.check()


async def filled(driver: Driver, message: JSON) -> JSON:
    """Return a command's answer; when a busy bot deferred it ("thinking"), once filled in."""
    if not message["loading"]:
        return message

    def done() -> JSON | None:
        now = driver.message(message["id"])
        return None if now["loading"] else now

    answer: JSON = await driver.wait_until(done, timeout=10)
    return answer


async def open_table(driver: Driver, host: str, channel: str, *others: str) -> tuple[str, JSON]:
    result = await driver.command(host, channel, "shithead create")
    assert result["status"] == "answered", result
    message = await filled(driver, result["response"])
    table_id = ids(message)[0].split(":")[1]
    for name in others:
        answer = await driver.click(name, message["id"], f"sh:{table_id}:0:join")
        assert answer["status"] == "answered"
    return table_id, message


async def latest_dm(driver: Driver, user: str, table: Table, seat: int) -> JSON:
    """Wait for the user's DM view of the table at the seat's current version."""
    mark = f"table {table.id} · view {table.seats[seat].version}"
    message: JSON = await driver.wait_until(
        lambda: next((m for m in reversed(driver.dms(user)) if footer(m) == mark), None),
        timeout=10,
    )
    return message


async def latest_ephemeral(
    driver: Driver, user: str, channel: str, table: Table, seat: int
) -> JSON:
    mark = f"table {table.id} · view {table.seats[seat].version}"
    message: JSON = await driver.wait_until(
        lambda: next(
            (
                m
                for m in reversed(driver.messages(channel, as_user=user))
                if m["ephemeral"] and footer(m) == mark
            ),
            None,
        ),
        timeout=10,
    )
    return message


async def act(driver: Driver, user: str, message: JSON) -> JSON:
    """Make the simplest move the private view offers: Ready, lowest play, blind card, pick up."""
    for verb in ("ready", "flip"):
        component = find(message, verb)
        if component is not None:
            return await driver.click(user, message["id"], component["custom_id"])
    menu = find(message, "sel")
    if menu is not None:
        first = menu["options"][0]["value"]
        chosen = await driver.select(user, message["id"], menu["custom_id"], [first])
        assert chosen["status"] == "answered"

        def play_offered() -> JSON | None:
            # A busy bot defers its answer and draws the choice by an edit after.
            play = find(driver.message(message["id"], as_user=user), "play")
            return play if play is not None and not play.get("disabled") else None

        play = await driver.wait_until(play_offered, timeout=10)
        return await driver.click(user, message["id"], play["custom_id"])
    for verb in ("stock", "pickup"):
        component = find(message, verb)
        if component is not None:
            return await driver.click(user, message["id"], component["custom_id"])
    raise AssertionError(f"no move offered: {ids(message)}")


async def play_out(
    bot: ShitheadBot,
    driver: Driver,
    table_id: str,
    names: dict[int, str],
    view: Callable[[str, Table, int], Any],
    max_moves: int = 800,
    after_move: Callable[[], None] | None = None,
) -> Table:
    """Drive the humans at a table until the game is over, checking every view's privacy."""
    table = table_of(bot, table_id)
    for _ in range(max_moves):
        game = table.game
        assert game is not None
        if table.phase == "over":
            return table
        waiting = [s for s in game.to_act() if s in names]
        if not waiting:
            await asyncio.sleep(0.01)
            continue
        seat = waiting[0]
        message = await view(names[seat], table, seat)
        if game.over or seat not in game.to_act():
            continue
        assert_private(message, table, seat)
        answer = await act(driver, names[seat], message)
        assert answer["status"] == "answered", answer
        # A busy bot defers a click (its answer has no message) and redraws the view after.
        response = answer["response"]
        assert response is None or not response["ephemeral"] or footer(response), answer
        if after_move is not None:
            after_move()
    raise AssertionError("the game did not end")


def client_errors(driver: Driver) -> list[tuple[str, str, int, int | None]]:
    return [
        (e["method"], e["route"], e["status"], e["code"])
        for e in driver.log()
        if e["status"] >= 400
    ]


def assert_no_client_errors(driver: Driver) -> None:
    assert client_errors(driver) == []


# ---------------------------------------------------------------------- tests


def assert_presenter_forgot(bot: ShitheadBot, table_id: str) -> None:
    """A finished table leaves nothing behind in the presenter's memory."""
    assert not bot.presenter.remembers(table_id)


async def test_three_members_play_a_seeded_game_by_dm(bot: ShitheadBot, driver: Driver) -> None:
    for name in ("ana", "ben", "cid"):
        await driver.create_user(name)
    table_id, lobby = await open_table(driver, "ana", "general", "ben", "cid")
    shown = driver.messages("general", as_user="cid")[-1]
    assert "ana" in json.dumps(shown["embeds"]) and "cid" in json.dumps(shown["embeds"])
    started = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    assert started["status"] == "answered", started

    def dealt() -> bool:
        # The clicked table message shows the deal: at once, or after a busy bot's deferral.
        return ids(driver.message(lobby["id"])) == [f"sh:{table_id}:0:hand"]

    await driver.wait_until(dealt, timeout=10)
    names = {0: "ana", 1: "ben", 2: "cid"}
    watch = PrivacyWatch(driver, table_of(bot, table_id), names)
    watch.snapshot()

    def pinged() -> bool:
        return any("it's your turn" in m["content"] for m in driver.messages("general"))

    async def dm_view(user: str, table: Table, seat: int) -> JSON:
        message = await latest_dm(driver, user, table, seat)
        if table.phase == "play":
            # The first player to act waits long enough to be mentioned in the channel.
            await driver.wait_until(pinged, timeout=10)
        return message

    table = await play_out(bot, driver, table_id, names, dm_view, after_move=watch.after_move)
    assert table.game is not None and table.game.loser is not None
    for user in names.values():

        def over(user: str = user) -> bool:
            return "The game is over" in json.dumps(driver.dms(user)[-1])

        await driver.wait_until(over, timeout=10)
        for message in driver.dms(user):
            assert "view" in footer(message)
        assert f"Table {table_id} in #general on Sandbox" in json.dumps(driver.dms(user)[-1])
    watch.check()
    # Three DMs checked after each member's move (a busy machine may let a timer make one).
    assert watch.checked >= 2 * table.game.moves
    channel = await driver.wait_until(
        lambda: next(
            (
                m
                for m in driver.messages("general")
                if m["id"] == lobby["id"] and "Result" in json.dumps(m["embeds"])
            ),
            None,
        ),
        timeout=10,
    )
    result = json.dumps(channel["embeds"], ensure_ascii=False)
    assert f"Shithead: {names[table.game.loser]}" in result
    assert ids(channel) == [f"sh:{table_id}:0:rematch"]
    await bot.presenter.pacer.idle()
    # Every reminder was deleted when its turn passed.
    assert not pinged()
    assert_no_client_errors(driver)
    assert_presenter_forgot(bot, table_id)
    rematch = await driver.click("ben", lobby["id"], f"sh:{table_id}:0:rematch")
    assert rematch["status"] == "answered"
    again = bot.tables.in_channel(driver.guild.channel_ids[0])
    assert again is not None and again.names == table.names and again.phase == "setup"


async def test_a_member_with_closed_dms_plays_by_ephemeral_views(
    bot: ShitheadBot, driver: Driver
) -> None:
    await driver.create_user("ana")
    await driver.create_user("dan", dms_open=False)
    table_id, lobby = await open_table(driver, "ana", "general", "dan")
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    notice = "can't send you direct messages"
    await driver.wait_until(lambda: any(notice in m["content"] for m in driver.messages("general")))
    answer = await driver.click("dan", lobby["id"], f"sh:{table_id}:0:hand")
    assert answer["response"]["ephemeral"]

    async def views(user: str, table: Table, seat: int) -> JSON:
        if user == "dan":
            return await latest_ephemeral(driver, user, "general", table, seat)
        return await latest_dm(driver, user, table, seat)

    table = await play_out(bot, driver, table_id, {0: "ana", 1: "dan"}, views)
    assert table.phase == "over"
    told = [m for m in driver.messages("general", limit=500) if notice in m["content"]]
    assert len(told) == 1 and f"<@{table.seats[1].user_id}>" in told[0]["content"]
    assert driver.dms("dan") == []
    await bot.presenter.pacer.idle()
    assert_presenter_forgot(bot, table_id)
    # The one answer that is not a success: the DM Discord refused, tried once only.
    assert client_errors(driver) == [("POST", "/channels/{channel_id}/messages", 403, 50007)]


async def test_refused_clicks_change_nothing(bot: ShitheadBot, driver: Driver) -> None:
    for name in ("ana", "ben", "eve"):
        await driver.create_user(name)
    table_id, lobby = await open_table(driver, "ana", "general", "ben")
    refused = await driver.click("eve", lobby["id"], f"sh:{table_id}:0:start")
    assert refused["response"]["content"] == "Only the host can start the game."
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    table = table_of(bot, table_id)
    for seat, user in ((0, "ana"), (1, "ben")):
        ready = find(await latest_dm(driver, user, table, seat), "ready")
        assert ready is not None
        message = await latest_dm(driver, user, table, seat)
        await driver.click(user, message["id"], ready["custom_id"])
    game = table.game
    assert game is not None and game.phase == "play" and game.turn is not None
    turn, other = game.turn, 1 - game.turn
    users = {0: "ana", 1: "ben"}

    def state() -> tuple[int, int]:
        assert table.game is not None
        return table.version, table.game.moves

    before = state()
    answer = await driver.click("eve", lobby["id"], f"sh:{table_id}:0:hand")
    assert answer["response"]["content"] == "You're not playing at this table."
    # Two "hand" views of the player to act: the first one is never updated again.
    old = (await driver.click(users[turn], lobby["id"], f"sh:{table_id}:0:hand"))["response"]
    await driver.click(users[turn], lobby["id"], f"sh:{table_id}:0:hand")
    assert state() == before
    message = await latest_dm(driver, users[turn], table, turn)
    menu = find(message, "sel")
    assert menu is not None
    chosen = await driver.select(users[turn], message["id"], menu["custom_id"], ["0"])
    play = find(chosen["response"], "play")
    assert play is not None
    first, second = await asyncio.gather(
        driver.click(users[turn], message["id"], play["custom_id"]),
        driver.click(users[turn], message["id"], play["custom_id"]),
    )
    answers = sorted([first, second], key=lambda a: a["response"]["ephemeral"])
    assert not answers[0]["response"]["ephemeral"]
    second_answer = answers[1]["response"]["content"]
    # Refused at once while the first is carried out, else by the turn it made.
    refusals = ("Your last click is still", "That was an old view", "It isn't your turn")
    assert second_answer.startswith(refusals), second_answer
    assert table.game is not None and table.game.moves == before[1] + 1
    after = state()
    assert table.game.turn == other, "the seeded first play passes the turn"
    old_menu = find(old, "sel")
    assert old_menu is not None
    refused = await driver.select(users[turn], old["id"], old_menu["custom_id"], ["0"])
    assert refused["response"]["content"].startswith("It isn't your turn")
    assert state() == after
    await driver.command("ana", "general", "shithead end")
    old_menu = find(old, "sel")
    assert old_menu is not None
    ended = await driver.select(users[turn], old["id"], old_menu["custom_id"], ["0"])
    assert ended["response"]["content"] == "This table has ended."
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_one_member_against_two_computer_players(bot: ShitheadBot, driver: Driver) -> None:
    bot.tables.seeds = lambda: 7  # a short game (about 60 moves) with today's basic player
    await driver.create_user("ana")
    table_id, lobby = await open_table(driver, "ana", "general")
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:addbot:0")
    result = await driver.command("ana", "general", "shithead addbot", {"difficulty": "basic"})
    assert result["response"]["ephemeral"]
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")

    async def dm_view(user: str, table: Table, seat: int) -> JSON:
        return await latest_dm(driver, user, table, seat)

    table = await play_out(bot, driver, table_id, {0: "ana"}, dm_view)
    assert table.phase == "over" and [s.computer for s in table.seats] == [None, "basic", "basic"]
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_timeouts_play_for_the_member_then_remove_them(tmp_path: Path) -> None:
    timing = Timing(turn_seconds=0.6, remind_seconds=0.3, computer_delay=0.01)
    async with running_sandbox() as sandbox:
        driver = sandbox.driver
        async with connected_bot(sandbox, make_bot(tmp_path, timing=timing, writes=4)) as bot:
            await driver.create_user("ana")
            await driver.create_user("ben")
            table_id, lobby = await open_table(driver, "ana", "general", "ben")
            await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
            table = table_of(bot, table_id)
            for seat, user in ((0, "ana"), (1, "ben")):
                message = await latest_dm(driver, user, table, seat)
                ready = find(message, "ready")
                assert ready is not None
                await driver.click(user, message["id"], ready["custom_id"])

            def reminded() -> bool:
                return any("it's your turn" in m["content"] for m in driver.messages("general"))

            await driver.wait_until(reminded, timeout=15)
            await driver.wait_until(lambda: table.phase == "over", timeout=15)
            assert table.game is not None and table.game.end_reason == "resigned"
            assert any("ran out of time" in line for line in log_lines(table))
            assert any("missed 3 turns in a row" in line for line in log_lines(table))
            await bot.presenter.pacer.idle()
            assert not reminded()  # deleted when the turn passed
            assert_no_client_errors(driver)


async def test_two_tables_in_two_channels_at_once(bot: ShitheadBot, driver: Driver) -> None:
    await driver.create_channel("second")
    await driver.create_user("ana")
    await driver.create_user("ben")
    first, lobby1 = await open_table(driver, "ana", "general")
    second, lobby2 = await open_table(driver, "ben", "second")
    refused = await driver.command("ben", "general", "shithead create")
    assert "already has a table" in refused["response"]["content"]
    for table_id, lobby, user in ((first, lobby1, "ana"), (second, lobby2, "ben")):
        await driver.click(user, lobby["id"], f"sh:{table_id}:0:addbot:0")
        await driver.click(user, lobby["id"], f"sh:{table_id}:0:start")

    async def dm_view(user: str, table: Table, seat: int) -> JSON:
        return await latest_dm(driver, user, table, seat)

    one, two = await asyncio.gather(
        play_out(bot, driver, first, {0: "ana"}, dm_view),
        play_out(bot, driver, second, {0: "ben"}, dm_view),
    )
    assert one.phase == two.phase == "over"
    assert one.channel_id != two.channel_id
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_a_thinking_computer_player_blocks_no_other_table(
    bot: ShitheadBot, driver: Driver
) -> None:
    thinking, release = threading.Event(), threading.Event()

    def slow() -> None:
        thinking.set()
        release.wait(10)

    Asked(bot, slow)
    await driver.create_channel("second")
    await driver.create_user("ana")
    await driver.create_user("ben")
    table_id, lobby = await open_table(driver, "ana", "general")
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:addbot:0")
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    async with asyncio.timeout(5):
        while not thinking.is_set():
            await asyncio.sleep(0.01)
    try:
        result = await driver.command("ben", "second", "shithead create")
        assert result["status"] == "answered" and not result["response"]["ephemeral"]
    finally:
        release.set()


def field(message: JSON, name: str) -> str:
    """Return the value of the first embed's field called `name`."""
    fields = (message.get("embeds") or [{}])[0].get("fields", [])
    value: str = next(f["value"] for f in fields if f["name"] == name)
    return value


async def ready_up(driver: Driver, user: str, message: JSON) -> JSON:
    ready = find(message, "ready")
    assert ready is not None, ids(message)
    answer = await driver.click(user, message["id"], ready["custom_id"])
    assert answer["status"] == "answered", answer
    return answer


async def deal_for_two(bot: ShitheadBot, driver: Driver, preset: str) -> tuple[str, Table]:
    """Ana opens a table of `preset`, Ben joins, Ana deals; give the lobby's rules and the table."""
    await driver.create_user("ana")
    await driver.create_user("ben")
    created = await driver.command("ana", "general", "shithead create", {"preset": preset})
    lobby = created["response"]
    table_id = ids(lobby)[0].split(":")[1]
    await driver.click("ben", lobby["id"], f"sh:{table_id}:0:join")
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    return field(lobby, "Rules"), table_of(bot, table_id)


async def test_players_choose_their_face_up_cards_then_play(
    bot: ShitheadBot, driver: Driver
) -> None:
    rules, table = await deal_for_two(bot, driver, "choose-deal")
    assert "players choose their face-up cards" in rules
    game = table.game
    assert game is not None and game.face_up == [[], []]
    for seat, user in ((0, "ana"), (1, "ben")):
        message = await latest_dm(driver, user, table, seat)
        assert find(message, "ready") is None and field(message, "Face-up") == "—"
        menu = find(message, "choose")
        assert menu is not None and menu["min_values"] == menu["max_values"] == 3
        labels = [option["label"] for option in menu["options"]]
        assert len(labels) == 6 and field(message, "Hand") == " ".join(labels)
        chosen = await driver.select(user, message["id"], menu["custom_id"], ["0", "2", "5"])
        assert chosen["status"] == "answered", chosen
        shown = chosen["response"]
        picked = [labels[0], labels[2], labels[5]]
        assert field(shown, "Face-up") == " ".join(picked)
        assert field(shown, "Hand") == " ".join(labels[1:2] + labels[3:5])
        assert [card_text(stack[0]) for stack in game.face_up[seat]] == picked
        await ready_up(driver, user, shown)
    message = await first_move(bot, driver, table)
    assert find(message, "choose") is None and find(message, "sel") is not None


async def first_move(bot: ShitheadBot, driver: Driver, table: Table) -> JSON:
    """Play the first move of ana and ben's game by DM; return the private view it was made in."""
    game = table.game
    assert game is not None
    assert game.phase == "play" and table.phase == "play" and game.turn is not None
    turn, moves = game.turn, game.moves
    user = ("ana", "ben")[turn]
    message = await latest_dm(driver, user, table, turn)
    moved = await act(driver, user, message)
    assert moved["status"] == "answered" and game.moves == moves + 1
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)
    return message


async def test_karma_players_stack_equal_cards_before_play(
    bot: ShitheadBot, driver: Driver
) -> None:
    # Seed 4242 deals ana 5♥ in hand and 5♦ face up; ben has nothing to stack.
    rules, table = await deal_for_two(bot, driver, "karma")
    assert "Preset: karma" in rules and "stacking" in rules
    game = table.game
    assert game is not None
    stock = len(game.stock)
    assert find(await latest_dm(driver, "ben", table, 1), "stack") is None
    message = await latest_dm(driver, "ana", table, 0)
    menu = find(message, "stack")
    assert menu is not None
    assert [option["label"] for option in menu["options"]] == ["Stack 5 (5♥)"]
    stacked = await driver.select("ana", message["id"], menu["custom_id"], ["0"])
    assert stacked["status"] == "answered", stacked
    shown = stacked["response"]
    assert "5♦ 5♥" in field(shown, "Face-up") and "5♥" not in field(shown, "Hand")
    assert [len(stack) for stack in game.face_up[0]] == [1, 1, 2]
    assert len(game.hands[0]) == 3 and len(game.stock) == stock - 1
    assert find(shown, "stack") is None
    await ready_up(driver, "ana", shown)
    await ready_up(driver, "ben", await latest_dm(driver, "ben", table, 1))
    await first_move(bot, driver, table)


async def test_the_host_or_a_moderator_kicks_and_no_one_else(
    bot: ShitheadBot, driver: Driver
) -> None:
    for name in ("ana", "ben", "cid", "eve"):
        await driver.create_user(name)
    await driver.create_user("mod", moderator=True)
    table_id, lobby = await open_table(driver, "ana", "general", "ben", "cid")
    table = table_of(bot, table_id)
    refused = await driver.command("ben", "general", "shithead kick", {"member": "cid"})
    assert refused["response"]["content"] == "Only the host or a moderator can do that."
    absent = await driver.command("ana", "general", "shithead kick", {"member": "eve"})
    assert absent["response"]["content"] == "That member doesn't sit at this table."
    assert table.names == ["ana", "ben", "cid"]
    kicked = await driver.command("ana", "general", "shithead kick", {"member": "ben"})
    assert kicked["response"]["ephemeral"] and kicked["response"]["content"] == "ben was removed."
    assert table.names == ["ana", "cid"]

    def seats_shown() -> str | None:
        shown = next(m for m in driver.messages("general") if m["id"] == lobby["id"])
        return field(shown, "Seats") if "ben" not in field(shown, "Seats") else None

    assert await driver.wait_until(seats_shown, timeout=10) == "1. ana\n2. cid"
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    removed = await driver.command("mod", "general", "shithead kick", {"member": "cid"})
    assert removed["response"]["content"] == "cid was removed."
    assert table.phase == "over" and table.seats[1].removed
    assert table.game is not None and table.game.loser == 1
    assert "cid was removed from the game" in log_lines(table)
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_rules_and_table_commands_and_a_dutch_game(bot: ShitheadBot, driver: Driver) -> None:
    await driver.create_user("ana")
    await driver.create_user("ben")
    server = await driver.command("ben", "general", "shithead rules")
    assert server["response"]["ephemeral"]
    assert server["response"]["embeds"][0]["title"] == "Rules: classic"
    none = await driver.command("ben", "general", "shithead table")
    assert none["response"]["content"].startswith("There is no table in this channel.")
    created = await driver.command("ana", "general", "shithead create", {"preset": "dutch"})
    lobby = created["response"]
    summary = field(lobby, "Rules")
    assert summary.startswith("Preset: dutch\n") and "2 jokers a deck" in summary
    assert "pick up only when you can't play" in summary
    table_id = ids(lobby)[0].split(":")[1]
    table = table_of(bot, table_id)
    assert table.rules == make_rules("dutch")
    rules = await driver.command("ben", "general", "shithead rules")
    assert rules["response"]["ephemeral"]
    assert rules["response"]["embeds"][0]["title"] == "Rules: dutch"
    said = json.dumps(rules["response"]["embeds"], ensure_ascii=False)
    assert "You may pick up the pile only when you can't play." in said
    await driver.click("ben", lobby["id"], f"sh:{table_id}:0:join")
    # `table` posts the table message again at the bottom and deletes the old one.
    moved = (await driver.command("ben", "general", "shithead table"))["response"]
    assert not moved["ephemeral"] and field(moved, "Seats") == "1. ana\n2. ben"
    assert moved["embeds"][0]["title"] == f"Shithead table {table_id}"
    await driver.wait_until(
        lambda: lobby["id"] not in [m["id"] for m in driver.messages("general")]
    )
    assert driver.messages("general")[-1]["id"] == moved["id"]
    assert bot.presenter.table_message(table_id) == int(moved["id"])
    await driver.click("ana", moved["id"], f"sh:{table_id}:0:start")
    during = (await driver.command("ben", "general", "shithead table"))["response"]
    assert "stock" in field(during, "Cards") and ids(during) == [f"sh:{table_id}:0:hand"]
    # A moderator deletes the table message: the next change posts it again.
    await driver.create_user("mo", moderator=True)
    await driver.delete_message("mo", during["id"])

    async def dm_view(user: str, table: Table, seat: int) -> JSON:
        return await latest_dm(driver, user, table, seat)

    played = await play_out(bot, driver, table_id, {0: "ana", 1: "ben"}, dm_view)
    assert played.game is not None and played.game.rules == make_rules("dutch")
    assert played.game.loser is not None
    await bot.presenter.pacer.idle()
    posted = {int(m["id"]): m for m in driver.messages("general", limit=500)}
    title = f"Shithead table {table_id}"
    reposted = max(i for i, m in posted.items() if m["embeds"] and m["embeds"][0]["title"] == title)
    assert int(during["id"]) not in posted
    assert reposted is not None and reposted > int(during["id"])
    assert "Result" in json.dumps(posted[reposted]["embeds"])
    # The one refused call: the edit of the deleted message (through the `table` command's
    # interaction, whose `@original` it was), which led to the new post.
    assert client_errors(driver) == [
        (
            "PATCH",
            "/webhooks/{application_id}/{interaction_token}/messages/{message_id}",
            404,
            10008,
        )
    ]


async def test_the_host_picks_an_expert_computer_player(bot: ShitheadBot, driver: Driver) -> None:
    await driver.create_user("ana")
    table_id, lobby = await open_table(driver, "ana", "general")
    buttons = {c["custom_id"]: c["label"] for row in lobby["components"] for c in row["components"]}
    assert buttons[f"sh:{table_id}:0:addbot:0"] == "Add computer player (basic)"
    assert buttons[f"sh:{table_id}:0:addbot:1"] == "Add computer player (expert)"
    added = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:addbot:1")
    assert "Computer 1 (expert)" in field(added["response"], "Seats")
    table = table_of(bot, table_id)
    assert [seat.computer for seat in table.seats] == [None, "expert"]
    asked = Asked(bot)
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    await ready_up(driver, "ana", await latest_dm(driver, "ana", table, 0))
    game = table.game
    assert game is not None

    def expert_moved() -> bool:
        return any(
            line.startswith("Computer 1 (expert) ") and not line.endswith((" is ready", " leads"))
            for line in log_lines(table)
        )

    # The expert readies itself, then makes its moves; ana makes hers until it has.
    for _ in range(4):
        if game.phase == "play" and game.turn == 0 and not expert_moved():
            await act(driver, "ana", await latest_dm(driver, "ana", table, 0))
        if expert_moved():
            break
        await driver.wait_until(lambda: expert_moved() or game.turn == 0, timeout=10)
    assert expert_moved(), log_lines(table)
    assert asked.names and set(asked.names) == {"expert"}
    await driver.command("ana", "general", "shithead end")
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_a_failure_on_our_side_is_answered_in_words_and_logged(
    bot: ShitheadBot,
    driver: Driver,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await driver.create_user("ana")
    await driver.create_user("ben")
    table_id, lobby = await open_table(driver, "ana", "general")

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(bot.tables, "submit", broken)
    answer = await driver.click("ben", lobby["id"], f"sh:{table_id}:0:join")
    assert answer["status"] == "answered"
    assert answer["response"]["ephemeral"]
    assert answer["response"]["content"].startswith("Something went wrong on my side.")
    assert "answering a lobby click failed" in caplog.text


async def test_an_end_not_yet_shown_when_the_bot_stops_is_shown_after_the_restart(
    tmp_path: Path,
) -> None:
    async with running_sandbox(rate_limits=ROOMY) as sandbox:
        driver = sandbox.driver
        for name in ("ana", "ben", "cid"):
            await driver.create_user(name)
        async with connected_bot(sandbox, make_bot(tmp_path)) as first:
            table_id, lobby = await open_table(driver, "ana", "general", "ben", "cid")
            await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
            table = table_of(first, table_id)
            for seat, user in ((0, "ana"), (1, "ben"), (2, "cid")):
                await ready_up(driver, user, await latest_dm(driver, user, table, seat))
            await first.presenter.pacer.idle()
            # From now on this process draws nothing more: its redraws wait, then it stops.
            first.presenter.settle = 60
            left = await driver.command("cid", "general", "shithead leave")
            assert left["status"] == "answered" and table.phase == "over"
        shown = next(m for m in driver.messages("general") if m["id"] == lobby["id"])
        assert "Result" not in json.dumps(shown["embeds"])
        async with connected_bot(sandbox, make_bot(tmp_path)) as second:

            def result_shown() -> bool:
                message = next(m for m in driver.messages("general") if m["id"] == lobby["id"])
                return "Result" in json.dumps(message["embeds"])

            await driver.wait_until(result_shown, timeout=10)
            for user in ("ana", "ben", "cid"):

                def over(user: str = user) -> bool:
                    return "The game is over" in json.dumps(driver.dms(user)[-1])

                await driver.wait_until(over)
            await second.presenter.pacer.idle()
            assert not second.presenter.remembers(table_id)
            # The rematch survives the restart too.
            again = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:rematch")
            assert again["status"] == "answered", again
            assert not again["response"]["ephemeral"], again["response"]["content"]


async def test_members_asking_for_the_table_at_once_get_one_copy(
    bot: ShitheadBot, driver: Driver
) -> None:
    names = [f"m{n}" for n in range(8)]
    for name in names:
        await driver.create_user(name)
    table_id, lobby = await open_table(driver, names[0], "general")
    # A change since the table was posted, so that asking for it posts it again.
    await driver.click(names[0], lobby["id"], f"sh:{table_id}:0:addbot:0")
    answers = await asyncio.gather(
        *(driver.command(name, "general", "shithead table") for name in names)
    )
    assert all(answer["status"] == "answered" for answer in answers)
    posted = [a for a in answers if not a["response"]["ephemeral"]]
    told = [a for a in answers if a["response"]["ephemeral"]]
    assert len(posted) == 1 and len(told) == 7
    assert told[0]["response"]["content"] == "The table was just posted below."
    await bot.presenter.pacer.idle()
    title = f"Shithead table {table_id}"
    copies = [
        m for m in driver.messages("general") if m["embeds"] and m["embeds"][0]["title"] == title
    ]
    assert [m["id"] for m in copies] == [posted[0]["response"]["id"]]


async def test_every_command_in_a_dm_is_answered(bot: ShitheadBot, driver: Driver) -> None:
    await driver.create_user("ana")
    await driver.create_user("ben")
    table_id, lobby = await open_table(driver, "ana", "general", "ben")
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    table = table_of(bot, table_id)
    dm = await latest_dm(driver, "ana", table, 0)
    for command, options in [
        ("shithead create", {}),
        ("shithead join", {}),
        ("shithead leave", {}),
        ("shithead start", {}),
        ("shithead addbot", {}),
        ("shithead hand", {}),
        ("shithead table", {}),
        ("shithead rules", {}),
        ("shithead kick", {"member": "ben"}),
        ("shithead end", {}),
        ("shithead houserules", {}),
        ("shithead forget-me", {}),
    ]:
        answer = await driver.command("ana", dm["channel_id"], command, options)
        assert answer["status"] == "answered", (command, answer)
    assert table.phase == "setup" and table.names == ["ana", "ben"]


async def test_a_click_on_a_busy_table_is_acknowledged_in_time_then_answered(
    bot: ShitheadBot, driver: Driver
) -> None:
    _, table = await deal_for_two(bot, driver, "classic")
    table_id = table.id
    message = await latest_dm(driver, "ana", table, 0)
    ready = find(message, "ready")
    assert ready is not None
    lock = bot.tables.lock(table_id)
    await lock.acquire()  # the table is busy for longer than Discord waits for an answer
    release = asyncio.get_running_loop().call_later(3.5, lock.release)
    try:
        answer = await driver.click("ana", message["id"], ready["custom_id"])
    finally:
        release.cancel()
        if lock.locked():
            lock.release()
    assert answer["status"] == "answered", answer
    await driver.wait_until(lambda: table.game is not None and table.game.ready[0])
    seat_version = table.seats[0].version
    await driver.wait_until(
        lambda: (
            footer(driver.dms("ana")[-1]).endswith(f"view {seat_version}")
            and "You are ready" in json.dumps(driver.dms("ana")[-1])
        ),
        timeout=10,
    )
    assert table.game is not None and table.game.ready[0]
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_a_click_whose_answer_is_slow_to_draw_is_acknowledged_in_time(
    bot: ShitheadBot, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, table = await deal_for_two(bot, driver, "classic")
    message = await latest_dm(driver, "ana", table, 0)
    ready = find(message, "ready")
    assert ready is not None
    drawn = Rendered.prepare

    async def slow(self: Rendered, shown: tuple[str, ...] | None = None) -> None:
        await asyncio.sleep(3.5)  # the move is made at once; drawing its answer is slow
        await drawn(self, shown)

    monkeypatch.setattr(Rendered, "prepare", slow)
    answer = await driver.click("ana", message["id"], ready["custom_id"])
    assert answer["status"] == "answered", answer
    assert table.game is not None and table.game.ready[0]
    monkeypatch.undo()
    await driver.wait_until(lambda: "You are ready" in json.dumps(driver.dms("ana")[-1]))
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_a_create_whose_settings_are_slow_to_read_is_acknowledged_in_time(
    bot: ShitheadBot, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    await driver.create_user("ana")
    storage = bot.storage
    assert storage is not None
    read = storage.guild_settings

    async def slow(guild_id: int) -> GuildSettings:
        await asyncio.sleep(3.5)  # a busy disk
        return await read(guild_id)

    monkeypatch.setattr(storage, "guild_settings", slow)
    answer = await driver.command("ana", "general", "shithead create")
    assert answer["status"] == "answered", answer  # deferred: "thinking", for everyone
    assert not answer["response"]["ephemeral"]
    channel = driver.guild.channel_ids[0]
    await driver.wait_until(lambda: bot.tables.in_channel(channel) is not None, timeout=10)
    table = bot.tables.in_channel(channel)
    assert table is not None
    # The "thinking" message is filled in with the table message, as Discord does.
    deferred = answer["response"]["id"]
    await driver.wait_until(lambda: table.id in json.dumps(driver.message(deferred)), timeout=10)
    await bot.presenter.pacer.idle()
    assert_no_client_errors(driver)


async def test_a_table_whose_message_discord_refuses_is_not_kept(
    bot: ShitheadBot, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    await driver.create_user("ana")

    async def refused(*args: Any, **kwargs: Any) -> None:
        response = type("Response", (), {"status": 400, "reason": "Bad Request"})()
        raise discord.HTTPException(response, {"code": 50035, "message": "Invalid Form Body"})

    monkeypatch.setattr(bot.presenter, "answer_table", refused)
    answer = await driver.command("ana", "general", "shithead create")
    assert answer["status"] == "answered"
    assert answer["response"]["content"].startswith("Discord refused this table's message")
    assert bot.tables.in_channel(driver.guild.channel_ids[0]) is None
    monkeypatch.undo()
    again = await driver.command("ana", "general", "shithead create")
    assert again["status"] == "answered" and not again["response"]["ephemeral"]


async def test_a_table_whose_channel_is_gone_is_ended_quietly_at_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.client")
    async with running_sandbox(rate_limits=ROOMY) as sandbox:
        driver = sandbox.driver
        await driver.create_user("ana")
        async with connected_bot(sandbox, make_bot(tmp_path)) as first:
            table_id, _ = await open_table(driver, "ana", "general")
            await first.presenter.pacer.idle()

            def posted() -> bool:
                # The command is answered before the bot stores where its message is.
                with sqlite3.connect(tmp_path / "bot.sqlite3") as db:
                    query = "SELECT count(*) FROM message_refs WHERE table_id = ?"
                    return bool(db.execute(query, (table_id,)).fetchone()[0])

            await driver.wait_until(posted)
        with sqlite3.connect(tmp_path / "bot.sqlite3") as db:
            (text,) = db.execute("SELECT state FROM running_tables").fetchone()
            state = json.loads(text)
            state["channel_id"] = 4242  # a channel that no longer exists
            db.execute("UPDATE running_tables SET state = ?", (json.dumps(state),))
        async with connected_bot(sandbox, make_bot(tmp_path)) as second:
            await driver.wait_until(lambda: second.tables.tables == {})
            ended = second.tables.find(table_id)
            assert ended is not None and ended.phase == "closed" and ended.ended_reason == "gone"
        assert "its server or channel is gone" in caplog.text


async def test_each_member_reads_their_own_language_and_the_table_the_servers(
    bot: ShitheadBot, driver: Driver
) -> None:
    driver.guild.locale = "da"
    await driver.create_user("ana", locale="de")
    await driver.create_user("bo", locale="pl")
    await driver.create_user("cy", locale="da")
    table_id, lobby = await open_table(driver, "ana", "general", "bo", "cy")
    refused = await driver.click("bo", lobby["id"], f"sh:{table_id}:0:start")
    # Bo reads Polish; the table message (the server's) Danish.
    assert refused["response"]["content"] == t("Only the host can start the game.", "pl")
    assert refused["response"]["content"] != "Only the host can start the game."
    await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
    table = table_of(bot, table_id)
    assert table.language == "da"
    mark = t("table {id} · view {version}", "de", id=table_id, version=table.seats[0].version)
    ana = await driver.wait_until(
        lambda: next((m for m in driver.dms("ana") if footer(m) == mark), None), timeout=10
    )
    assert field(ana, t("Hand", "de")) and ana["embeds"][0]["title"] == t(
        "Your cards at table {id}", "de", id=table_id
    )
    await bot.presenter.pacer.idle()
    shown = next(m for m in driver.messages("general") if m["id"] == lobby["id"])
    names = [f["name"] for f in shown["embeds"][0]["fields"]]
    assert t("Seats", "da") in names and t("Pile", "da") in names
    assert t("Seats", "da") != "Seats"
    # Everyone gets ready; every private message each member got is in their own language.
    languages = {"ana": "de", "bo": "pl", "cy": "da"}
    for user in languages:
        prefix = t("table {id} · view {version}", languages[user], id=table_id, version=0)[:-1]

        def latest(user: str = user, prefix: str = prefix) -> JSON | None:
            dms = [m for m in driver.dms(user) if footer(m).startswith(prefix)]
            return dms[-1] if dms else None

        view = await driver.wait_until(latest, timeout=10)
        await ready_up(driver, user, view)
    await bot.presenter.pacer.idle()
    for user, language in languages.items():
        titles = {m["embeds"][0]["title"] for m in driver.dms(user)}
        assert titles == {t("Your cards at table {id}", language, id=table_id)}, user


async def test_the_language_house_rule_sets_the_table_messages_language(
    bot: ShitheadBot, driver: Driver
) -> None:
    await driver.create_user("ana", locale="de")
    storage = bot.require_storage()
    guild_id = driver.guild.id
    await storage.update_guild_settings(guild_id, lambda s: s.model_copy(update={"language": "nl"}))
    created = await driver.command("ana", "general", "shithead create")
    names = [f["name"] for f in created["response"]["embeds"][0]["fields"]]
    assert t("Seats", "nl") in names and t("Seats", "nl") != "Seats"
    await driver.command("ana", "general", "shithead end")
    await storage.update_guild_settings(guild_id, lambda s: s.model_copy(update={"language": "pl"}))
    again = await driver.command("ana", "general", "shithead create")
    names = [f["name"] for f in again["response"]["embeds"][0]["fields"]]
    assert t("Seats", "pl") in names


async def test_pictures_ride_on_the_messages_and_go_up_again_only_when_they_change(
    bot: ShitheadBot, driver: Driver
) -> None:
    _, table = await deal_for_two(bot, driver, "classic")
    lobby_id = bot.presenter.table_message(table.id)
    assert lobby_id is not None
    dm = await latest_dm(driver, "ana", table, 0)

    def attachment_ids(message_id: str) -> list[tuple[str, str]]:
        stored = driver.world.messages[int(message_id)]
        return [(a["filename"], a["id"]) for a in stored.attachments]

    await bot.presenter.pacer.idle()
    hand_before = attachment_ids(dm["id"])
    table_before = attachment_ids(str(lobby_id))
    assert [name for name, _ in hand_before] == ["hand.jpg"]
    assert [name for name, _ in table_before] == ["table.jpg"]
    assert dm["embeds"][0]["image"]["url"] == "attachment://hand.jpg"
    # Ana gets ready: her cards are the same (no new hand picture), the table shows it.
    await ready_up(driver, "ana", dm)
    await bot.presenter.pacer.idle()
    await driver.wait_until(lambda: attachment_ids(str(lobby_id)) != table_before, timeout=10)
    assert attachment_ids(dm["id"]) == hand_before
