"""The presenter's own decisions, without Discord: what a view offers, whose view it is."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest
from discord.http import HTTPClient

from bot import presenter as presenter_module
from bot.i18n import t
from bot.pacing import Pacer, check_current
from bot.presenter import Presenter, _Editor, first_response, private_key
from bot.rendering import Rendered, render_table
from bot.storage import MessageRef
from engine.game import Game
from engine.rules import make_rules
from tables.model import Seat, Table
from tables.outcome import Outcome, snapshot


def dealt() -> Table:
    rules = make_rules("classic")
    table = Table("ab12", 1, 2, 3, "classic", rules, 5, 90, 3, [Seat(3, "Ana"), Seat(4, "Ben")])
    table.game = Game.deal(rules, 2, seed=5)
    return table


def interaction(user_id: int, guild_id: int | None, channel_id: int, meta: int | None) -> Any:
    metadata = None if meta is None else SimpleNamespace(user=SimpleNamespace(id=meta))
    return SimpleNamespace(
        user=SimpleNamespace(id=user_id),
        guild_id=guild_id,
        channel_id=channel_id,
        message=SimpleNamespace(interaction_metadata=metadata),
    )


def test_a_private_view_acts_only_for_the_member_it_was_drawn_for() -> None:
    presenter = Presenter(discord.Client(intents=discord.Intents.none()), Pacer())
    shown = snapshot(dealt())
    presenter.tables["ab12"] = presenter._state(shown)
    presenter.tables["ab12"].dms[3] = MessageRef("ab12", 3, 70, 71, False)
    # Ana in her own DM; Ana clicking from a DM channel that is not hers.
    assert presenter.owns_view("ab12", interaction(3, None, 70, None))
    assert not presenter.owns_view("ab12", interaction(3, None, 99, None))
    # An ephemeral view answers only the member it was made for.
    assert presenter.owns_view("ab12", interaction(4, 1, 2, 4))
    assert not presenter.owns_view("ab12", interaction(4, 1, 2, 3))


def test_a_private_view_changes_with_the_members_own_cards_and_turn_only() -> None:
    rules = make_rules("classic")
    seats = [Seat(3, "Ana"), Seat(4, "Ben"), Seat(5, "Cid")]
    table = Table("ab12", 1, 2, 3, "classic", rules, 5, 90, 3, seats)
    table.game = game = Game.deal(rules, 3, seed=5)
    for seat in (0, 1, 2):
        game.apply(game.legal_actions(seat)[-1])  # Ready
    turn = game.turn
    assert turn is not None
    before = snapshot(table)
    play = next(a for a in game.legal_actions(turn) if type(a).__name__ == "Play")
    game.apply(play)
    after = snapshot(table)
    following = game.turn
    assert following is not None and following != turn
    bystander = ({0, 1, 2} - {turn, following}).pop()
    assert private_key(after, turn) != private_key(before, turn)  # their own cards changed
    assert private_key(after, following) != private_key(before, following)  # their turn came
    assert private_key(after, bystander) == private_key(before, bystander)  # nothing of theirs


def test_a_seats_key_is_worked_out_again_for_each_newer_snapshot() -> None:
    table = dealt()
    game = table.game
    assert game is not None
    before = snapshot(table)
    private = presenter_module._Private()
    assert private.key_of(before, 0) == private_key(before, 0)
    game.apply(game.legal_actions(0)[-1])  # Ready
    after = snapshot(table)
    assert private_key(after, 0) != private_key(before, 0)
    assert private.key_of(after, 0) == private_key(after, 0)


async def test_a_write_discord_refuses_for_now_is_tried_again_with_the_newest_state() -> None:
    presenter = Presenter(discord.Client(intents=discord.Intents.none()), Pacer(limit=10))
    calls: list[int] = []

    async def job() -> bool:
        calls.append(1)
        if len(calls) == 1:
            response = SimpleNamespace(status=503, reason="Service Unavailable")
            raise discord.DiscordServerError(response, "try later")
        if len(calls) == 2:
            response = SimpleNamespace(status=429, reason="Too Many Requests")
            raise discord.HTTPException(response, {"retry_after": 0.01})
        return True

    presenter._submit(("channel", 1), ("table", "ab12"), job)
    await presenter.pacer.idle()
    assert len(calls) == 3


def test_pictures_are_left_out_where_the_bot_may_not_attach_files() -> None:
    allowed = {"value": False}
    channel = SimpleNamespace(
        permissions_for=lambda member: SimpleNamespace(attach_files=allowed["value"])
    )
    guild = SimpleNamespace(me=object(), get_channel_or_thread=lambda channel_id: channel)
    client = SimpleNamespace(get_guild=lambda guild_id: guild)
    presenter = Presenter(client, Pacer())  # type: ignore[arg-type]
    shown = snapshot(dealt())
    assert shown.pictures
    assert not presenter._shown(shown).pictures
    assert presenter._shown(shown, in_channel=False).pictures  # a DM may always carry files
    allowed["value"] = True
    assert presenter._shown(shown).pictures


def test_a_private_view_names_its_channel_as_the_tables_server_knows_it() -> None:
    channels = {2: SimpleNamespace(name="games")}
    guild = SimpleNamespace(name="Sandbox", get_channel_or_thread=channels.get)
    # No `get_channel`: the channel is looked up in the table's server, not in every server.
    client = SimpleNamespace(get_guild={1: guild}.get)
    presenter = Presenter(client, Pacer())  # type: ignore[arg-type]
    shown = snapshot(dealt())
    assert presenter.where(shown, "en") == "Table ab12 in #games on Sandbox"
    channels.clear()  # a channel the bot does not see (yet): its id
    assert presenter.where(shown, "en") == "Table ab12 in #2 on Sandbox"


def test_a_kept_tables_place_follows_its_channels_name_and_the_language_asked_for() -> None:
    channel = SimpleNamespace(name="games")
    guild = SimpleNamespace(name="Sandbox", get_channel_or_thread={2: channel}.get)
    client = SimpleNamespace(get_guild={1: guild}.get)
    presenter = Presenter(client, Pacer())  # type: ignore[arg-type]
    shown = snapshot(dealt())
    presenter._state(shown)
    assert presenter.where(shown, "en") == "Table ab12 in #games on Sandbox"
    channel.name = "cards"  # renamed while the table is kept
    assert presenter.where(shown, "en") == "Table ab12 in #cards on Sandbox"
    guild.name = "Club"
    assert presenter.where(shown, "en") == "Table ab12 in #cards on Club"
    assert presenter.where(shown, "de") == t("Table {id} in #{channel} on {guild}", "de").format(
        id="ab12", channel="cards", guild="Club"
    )


def test_a_private_view_shows_its_servers_and_threads_names_as_plain_text() -> None:
    guild = SimpleNamespace(
        name="[free nitro](https://evil.example) **now**",
        get_channel_or_thread={2: SimpleNamespace(name="__games__ @everyone")}.get,
    )
    client = SimpleNamespace(get_guild={1: guild}.get)
    presenter = Presenter(client, Pacer())  # type: ignore[arg-type]
    where = presenter.where(snapshot(dealt()), "en")
    assert where == (
        "Table ab12 in #\\_\\_games\\_\\_ @\u200beveryone on "
        "\\[free nitro](https://evil.example) \\*\\*now\\*\\*"
    )


def editing_client(edits: list[dict[str, Any]]) -> Any:
    """Stand in for the client where the presenter edits a table message; note each edit."""

    class Message:
        async def edit(self, **kwargs: Any) -> None:
            edits.append(kwargs)

    channel = SimpleNamespace(get_partial_message=lambda message_id: Message())
    return SimpleNamespace(
        get_guild=lambda guild_id: None, get_partial_messageable=lambda _: channel
    )


async def test_a_table_redraw_with_nothing_new_builds_nothing_and_writes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    edits: list[dict[str, Any]] = []
    client = editing_client(edits)

    async def no_wait(seconds: float) -> None:
        return None

    presenter = Presenter(client, Pacer(), settle=0, table_interval=0, sleep=no_wait)
    built: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return render_table(*args, **kwargs)

    monkeypatch.setattr("bot.presenter.render_table", counted)
    table = dealt()
    table.pictures = False
    presenter._state(snapshot(table)).message = MessageRef("ab12", 0, 2, 77, False)
    assert await presenter._draw_table("ab12")
    assert (len(built), len(edits)) == (1, 1)
    # The same state again (a click answered, a restart's catch-up): nothing built or sent.
    assert not await presenter._draw_table("ab12")
    assert (len(built), len(edits)) == (1, 1)
    # A move: drawn and sent.
    game = table.game
    assert game is not None
    game.apply(game.legal_actions(0)[-1])
    table.version += 1
    presenter.tables["ab12"].latest = snapshot(table)
    assert await presenter._draw_table("ab12")
    assert (len(built), len(edits)) == (2, 2)


async def test_a_table_redraw_overtaken_while_it_settles_never_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = dealt()
    table.pictures = False
    game = table.game
    assert game is not None
    sent: list[dict[str, Any]] = []

    async def edit_original(*args: Any, **kwargs: Any) -> None:
        check_current()  # as `bot.rest` does once a connection is free for the write
        sent.append(kwargs)

    monkeypatch.setattr("bot.presenter.edit_original", edit_original)
    presenter = Presenter(editing_client([]), Pacer(), settle=0.05, table_interval=0)
    drawn: list[str] = []
    draw = presenter._draw_table

    async def counted(table_id: str) -> bool:
        drawn.append(table_id)
        return await draw(table_id)

    monkeypatch.setattr(presenter, "_draw_table", counted)
    state = presenter._state(snapshot(table))
    state.message = MessageRef("ab12", 0, 2, 77, False)
    state.editor = _Editor(cast(Any, None), 1, "token", presenter.clock())
    presenter._queue_table(state)
    await asyncio.sleep(0.02)
    # A move while the first redraw settles queues a newer one.
    game.apply(game.legal_actions(0)[-1])
    table.version += 1
    presenter._queue_table(presenter._newest(snapshot(table)))
    await presenter.pacer.idle()
    # The newer redraw draws and sends the newest state; the overtaken one never ran.
    assert (drawn, len(sent)) == (["ab12"], 1)
    assert state.inputs == presenter._table_inputs(snapshot(table))


@pytest.mark.parametrize(("tables", "waited"), [(1, 2.0), (4, 2.0), (10, 5.0)])
async def test_a_table_message_changes_more_rarely_the_more_tables_are_kept(
    tables: int, waited: float
) -> None:
    edits: list[dict[str, Any]] = []
    client = editing_client(edits)
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    # All table messages together change at most twice a second, each at most every 2 s.
    presenter = Presenter(
        client,
        Pacer(clock=lambda: 100.0),
        settle=0.3,
        table_interval=2.0,
        table_redraws=2.0,
        sleep=sleep,
        clock=lambda: 100.0,
    )
    table = dealt()
    table.pictures = False
    state = presenter._state(snapshot(table))
    state.message = MessageRef("ab12", 0, 2, 77, False)
    for n in range(tables - 1):
        other = dealt()
        other.id = f"cd{n}"
        presenter._state(snapshot(other))
    state.drawn_at = 100.0  # drawn just now
    # A redraw queued now is held that long and then settles; one drawn anyway waits it out.
    presenter._queue_table(state)
    assert [when for when, _, _ in presenter.pacer._due] == [100.0 + waited + 0.3]
    assert await presenter._draw_table("ab12")
    assert sleeps == [waited]
    assert len(edits) == 1
    await presenter.close()


async def test_new_dm_conversations_open_a_few_at_once_through_the_pacers_gate() -> None:
    opening = 0
    most = 0
    sent: list[int] = []

    class DM:
        def __init__(self, user_id: int) -> None:
            self.id = 500 + user_id
            self.user_id = user_id

        async def send(self, **kwargs: Any) -> Any:
            nonlocal opening
            await asyncio.sleep(0.01)
            sent.append(self.user_id)
            opening -= 1
            return SimpleNamespace(id=900 + self.user_id)

    async def create_dm(user: Any) -> DM:
        nonlocal opening, most
        opening += 1
        most = max(most, opening)
        await asyncio.sleep(0.01)
        return DM(user.id)

    client = SimpleNamespace(
        get_guild=lambda guild_id: None,
        get_channel=lambda _: None,
        create_dm=create_dm,
        http=HTTPClient(asyncio.get_running_loop()),
    )
    presenter = Presenter(client, Pacer(gate_limit=2))  # type: ignore[arg-type]
    rules = make_rules("classic")
    seats = [Seat(3 + n, f"P{n}") for n in range(5)]
    table = Table("ab12", 1, 2, 3, "classic", rules, 5, 90, 3, seats)
    table.game = Game.deal(rules, 5, seed=5)
    table.pictures = False
    state = presenter._state(snapshot(table))
    for seat in range(5):
        presenter._queue_private(state, seat)
    await presenter.pacer.idle()
    assert sorted(sent) == [3, 4, 5, 6, 7]
    assert [ref.message_id for ref in state.dms.values()] == [903, 904, 905, 906, 907]
    # Opening a conversation (the channel and its first message) holds a place at the gate.
    assert most == 2
    await presenter.close()


async def test_a_deferral_and_the_answer_take_turns_and_leave_no_lock_behind() -> None:
    done = {"value": False}
    interaction = cast(
        discord.Interaction,
        SimpleNamespace(id=77, response=SimpleNamespace(is_done=lambda: done["value"])),
    )
    said: list[str] = []

    def responder(name: str) -> Any:
        async def respond() -> str:
            said.append(f"{name} starts")
            await asyncio.sleep(0.01)
            done["value"] = True
            said.append(f"{name} responded")
            return name

        return respond

    async def followed_up() -> str:
        said.append("then")
        return "then"

    answers = await asyncio.gather(
        first_response(interaction, responder("defer"), followed_up),
        first_response(interaction, responder("answer"), followed_up),
    )
    # One first response; the other comes after it, as what follows one.
    assert list(answers) == ["defer", "then"]
    assert said == ["defer starts", "defer responded", "then"]
    assert 77 not in presenter_module._responding


async def test_a_private_view_is_written_when_what_it_offers_changes_without_a_fingerprint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    edits: list[dict[str, Any]] = []

    async def edit(**kwargs: Any) -> None:
        edits.append(kwargs)

    dm = SimpleNamespace(get_partial_message=lambda message_id: SimpleNamespace(edit=edit))
    client = SimpleNamespace(get_partial_messageable=lambda _: dm, get_guild=lambda _: None)
    fingerprinted: list[Rendered] = []

    def fingerprint(self: Rendered) -> str:
        fingerprinted.append(self)
        return "seen"

    monkeypatch.setattr(Rendered, "fingerprint", fingerprint)
    presenter = Presenter(client, Pacer(), settle=0)  # type: ignore[arg-type]
    table = dealt()
    table.pictures = False
    state = presenter._state(snapshot(table))
    state.dms[3] = MessageRef("ab12", 3, 50, 60, False)  # Ana's DM view
    state.dms[4] = MessageRef("ab12", 4, None, None, dm_closed=True)
    presenter.published(Outcome(snapshot(table)))
    await presenter.pacer.idle()
    # Drawn once and written; the same state again writes nothing (what it offers is shown).
    assert (len(edits), fingerprinted) == (1, [])
    presenter.published(Outcome(snapshot(table)))
    await presenter.pacer.idle()
    assert len(edits) == 1
    await presenter.close()


async def test_a_responder_cancelled_while_waiting_its_turn_leaves_no_turn_behind() -> None:
    done = {"value": False}
    interaction = cast(
        discord.Interaction,
        SimpleNamespace(id=78, response=SimpleNamespace(is_done=lambda: done["value"])),
    )
    release = asyncio.Event()

    async def deferral() -> str:
        await release.wait()
        done["value"] = True
        return "deferred"

    async def followed_up() -> str:
        return "then"

    first = asyncio.create_task(first_response(interaction, deferral, followed_up))
    waiting = asyncio.create_task(first_response(interaction, deferral, followed_up))
    last = asyncio.create_task(first_response(interaction, deferral, followed_up))
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.sleep(0)
    release.set()
    assert (await first, await last) == ("deferred", "then")
    assert waiting.cancelled()
    assert 78 not in presenter_module._responding
