"""`python -m sandbox.play`: two members play through the terminal player, fed by script."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import aiohttp
import pytest

from bot.client import ShitheadBot
from sandbox.play import HELP, Action, Control, Player, converse, main, table_id_of, typed_cards
from sandbox.server import Sandbox
from tests.bot.test_play_e2e import bot, log_lines, sandbox, table_of

__all__ = ["bot", "sandbox"]

LETTERS = {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}


@pytest.fixture
async def control(sandbox: Sandbox) -> AsyncIterator[Control]:
    async with aiohttp.ClientSession() as session:
        yield Control(sandbox.url, session)


class Terminal:
    """A member at a terminal: a Player and everything it printed."""

    def __init__(self, control: Control, name: str) -> None:
        self.printed: list[str] = []
        self.player = Player(control, name, say=self.printed.append, wait_seconds=5)

    async def type(self, line: str) -> str:
        """Type one line; return what it printed."""
        mark = len(self.printed)
        assert await self.player.handle(line)
        return "\n".join(self.printed[mark:])

    def options(self, verb: str) -> list[Action]:
        """The options of the private view's menus with this verb, as last shown."""
        assert self.player.screen is not None
        return [a for a in self.player.screen.actions if a.verb == verb and a.value is not None]

    def number(self, label: str) -> str:
        """The number shown in front of an action's label."""
        assert self.player.screen is not None
        labels = [a.label for a in self.player.screen.actions]
        return str(labels.index(label) + 1)


def typed(card: str) -> str:
    """Write a card as a player types it: 10♥ → 10h."""
    return card[:-1] + LETTERS[card[-1]]


def test_cards_are_read_as_typed_and_found_in_labels() -> None:
    assert typed_cards(["7h", "10S", "qd", "Tc", "joker", "A♠"]) == [
        "7♥",
        "10♠",
        "Q♦",
        "10♣",
        "🃏",
        "A♠",
    ]
    assert typed_cards(["7x"]) is None and typed_cards(["ready"]) is None
    play = Action("private", "1", "sh:t:4:sel:0", "2 × 5 (5♦ 5♥)", value="1")
    assert play.cards == ["5♦", "5♥"] and play.verb == "sel"
    assert Action("private", "1", "sh:t:4:pickup:0", "Pick up the pile").cards == []


async def test_two_members_ready_and_play_through_the_terminal(
    bot: ShitheadBot, control: Control
) -> None:
    alice, bob = Terminal(control, "alice"), Terminal(control, "bob")
    await alice.player.start()
    await bob.player.start(dms_open=False)
    assert alice.printed[0] == "Created member alice (DMs open)."
    assert bob.printed[0] == "Created member bob (DMs closed)."
    assert "No table in this channel yet" in bob.printed[-1]

    created = await alice.type("create")
    assert "== Shithead table" in created and ". Join" in created
    assert alice.player.screen is not None and alice.player.screen.table is not None
    table = table_of(bot, str(table_id_of(alice.player.screen.table)))
    await bob.type("join")
    assert table.names == ["alice", "bob"]
    dealt = await alice.type("start")
    assert "Hand:" in dealt and ". Ready" in dealt

    # Bob's DMs are closed: his cards come as an ephemeral view, and he is told so.
    assert "You have no cards yet." in await bob.type("look")
    shown = await bob.type("hand")
    assert bob.player.screen is not None and bob.player.screen.private is not None
    assert bob.player.screen.private["ephemeral"] and "Hand:" in shown
    assert any("[@bob" in line for line in bob.printed), bob.printed

    # Alice swaps her first hand card for her first face-up card, by typing the cards.
    hand, face_up = alice.options("swh")[0].cards[0], alice.options("swf")[0].cards[0]
    swapped = await alice.type(f"swap {typed(hand)} {typed(face_up)}")
    assert face_up in swapped.split("Hand:")[-1].splitlines()[0]
    await alice.type("ready")
    assert "alice is ready" in log_lines(table)
    # Bob presses Ready by its number.
    readied = await bob.type(bob.number("Ready"))
    assert "bob is ready" in log_lines(table) and "bob is ready" in readied
    assert table.phase == "play"

    game = table.game
    assert game is not None and game.turn is not None
    first, second = (alice, bob) if game.turn == 0 else (bob, alice)
    await first.type("look")
    cards = first.options("sel")[0].cards
    played = await first.type(" ".join(typed(card) for card in cards))
    name = first.player.name
    assert log_lines(table)[-1] == f"{name} played {' '.join(cards)}"
    assert f"{name} played" in played

    # The other one waits for the change, then picks up or makes the lowest play by number.
    seen = await second.type("")
    assert f"{name} played" in seen
    assert game.turn == table.names.index(second.player.name)
    moves = game.moves
    if second.options("sel"):
        await second.type(second.number(second.options("sel")[0].label))
    else:
        await second.type("pickup")
    assert game.moves == moves + 1
    assert log_lines(table)[-1].startswith(second.player.name)


async def test_a_scripted_session_says_what_went_wrong_in_words(
    bot: ShitheadBot, control: Control
) -> None:
    lines = iter(["help", "frobnicate", "99", "start", "/shithead nosuch", "2h", "quit", "look"])
    asked: list[str] = []
    printed: list[str] = []

    async def ask(prompt: str) -> str | None:
        asked.append(prompt)
        return next(lines, None)

    await converse(Player(control, "carol", say=printed.append), ask)
    assert asked == ["carol> "] * 7
    assert HELP in printed
    assert "I don't know `frobnicate`: type `help` to see what works." in printed
    assert "Choose a number from 1 to 0." not in printed and "Nothing to do." in printed
    said = "\n".join(printed)
    assert "There is no table in this channel." in said  # the bot's own answer to /start
    assert "Refused: /shithead nosuch: no subcommand 'nosuch'." in printed
    assert "Nothing you can do now shows 2♥." in printed
    assert "Traceback" not in said


def test_without_a_sandbox_it_says_so_in_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{free.getsockname()[1]}"
    assert main(["alice", "--url", url]) == 1
    assert capsys.readouterr().err == f"No sandbox at {url}: start it with `make run`.\n"
