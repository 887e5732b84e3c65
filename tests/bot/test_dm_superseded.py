"""A DM redraw whose pictures are still being drawn never lands over a click's newer answer."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from bot.pacing import Pacer
from bot.presenter import Presenter, _Shown
from bot.rendering import Rendered
from bot.storage import MessageRef
from tables.outcome import Outcome, snapshot
from tests.bot.test_presenter import dealt
from tests.bot.test_reminders import until


class Dm:
    """Ana's DM: the edits the bot made to her view."""

    def __init__(self) -> None:
        self.edits: list[dict[str, Any]] = []

    def get_partial_message(self, message_id: int) -> SimpleNamespace:
        async def edit(**kwargs: Any) -> None:
            self.edits.append(kwargs)

        return SimpleNamespace(edit=edit)


async def test_an_older_dm_view_is_not_written_over_a_newer_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dm = Dm()
    client = SimpleNamespace(
        get_partial_messageable=lambda channel_id: dm,
        get_channel=lambda channel_id: None,
        get_guild=lambda guild_id: None,
    )
    presenter = Presenter(client, Pacer(), settle=0.0)  # type: ignore[arg-type]
    table = dealt()
    state = presenter._state(snapshot(table))
    state.dms[3] = MessageRef("ab12", 3, 50, 60, False)  # Ana's DM view
    state.dms[4] = MessageRef("ab12", 4, None, None, dm_closed=True)
    drawing = asyncio.Event()
    release = asyncio.Event()
    prepare = Rendered.prepare

    async def slow(self: Rendered, shown: tuple[str, ...] | None = None) -> None:
        drawing.set()
        await release.wait()  # the pictures take a while on a busy bot
        await prepare(self, shown)

    monkeypatch.setattr(Rendered, "prepare", slow)
    table.version += 1
    presenter.published(Outcome(snapshot(table)))
    async with asyncio.timeout(1):
        await drawing.wait()
    # Meanwhile Ana's click is answered with a newer view (what `answer_private` records).
    private = state.private[0]
    newer = _Shown(("newer",), None)
    private.dm_shown = newer
    release.set()
    await until(lambda: not presenter.pacer._buckets or dm.edits != [])
    await presenter.pacer.idle()
    assert dm.edits == []
    assert private.dm_shown is newer
    await presenter.pacer.close()
