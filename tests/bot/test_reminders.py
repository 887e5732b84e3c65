"""Turn reminders in the channel: each is deleted once its turn passes, however the channel's
writes interleave with the moves (the presenter and its pacer, with Discord faked)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from bot.pacing import Pacer
from bot.presenter import Presenter
from bot.storage import MessageRef
from tables.notes import Note
from tables.outcome import Outcome, snapshot
from tests.bot.test_presenter import dealt


class Channel:
    """The table's channel: what the bot posted there and deleted; a post can be held."""

    def __init__(self) -> None:
        self.posted: list[int] = []
        self.deleted: list[int] = []
        self.held: asyncio.Event | None = None  # set: the held post's answer comes back

    async def send(self, text: str, **_: Any) -> SimpleNamespace:
        self.posted.append(1000 + len(self.posted))
        posted = self.posted[-1]
        if self.held is not None:
            await self.held.wait()
        return SimpleNamespace(id=posted)

    def get_partial_message(self, message_id: int) -> SimpleNamespace:
        async def delete() -> None:
            self.deleted.append(message_id)

        return SimpleNamespace(delete=delete)

    def shown(self) -> list[int]:
        return [m for m in self.posted if m not in self.deleted]


async def until(condition: Callable[[], bool]) -> None:
    """Let the presenter's tasks run until `condition` holds (at most a second)."""
    async with asyncio.timeout(1):
        while not condition():
            await asyncio.sleep(0)


async def test_a_reminder_still_goes_when_the_next_turn_passes_while_its_reminder_is_posted() -> (
    None
):
    channel = Channel()
    client = SimpleNamespace(get_partial_messageable=lambda channel_id: channel)
    presenter = Presenter(client, Pacer(), settle=0.0)  # type: ignore[arg-type]
    table = dealt()
    game = table.game
    assert game is not None
    for seat in (0, 1):
        game.apply(game.legal_actions(seat)[-1])  # Ready
    state = presenter._state(snapshot(table))
    for user in (3, 4):  # no DM views to draw: only the channel's writes matter here
        state.dms[user] = MessageRef("ab12", user, None, None, dm_closed=True)

    def publish(*, remind: bool = False) -> None:
        """Publish the table as it is now, with a reminder for the player to act."""
        table.version += 1
        notices = (Note("remind", {"seat": game.turn}),) if remind else ()
        presenter.published(Outcome(snapshot(table), notices=notices))

    def move() -> None:
        """The player to act plays their lowest card, or picks up."""
        turn = game.turn
        assert turn is not None
        game.apply(game.legal_actions(turn)[0])
        publish()

    first = game.turn
    publish(remind=True)
    await until(lambda: len(channel.posted) == 1)  # reminder 1, to the first player
    await presenter.pacer.idle()
    # The first player moves, and before the channel's writes get to deleting reminder 1
    # (they are busy drawing the table), the next player's reminder is due.
    move()
    assert game.turn != first
    publish(remind=True)
    channel.held = asyncio.Event()
    await until(lambda: len(channel.posted) == 2)  # reminder 2 is being posted...
    while game.turn != first:  # ...and meanwhile its player moves
        move()
    channel.held.set()
    await presenter.pacer.idle()
    assert channel.shown() == []
