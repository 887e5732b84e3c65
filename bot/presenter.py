"""Show tables on Discord: the one writer of every table message and private view.

The presenter takes the core's outcomes and keeps the messages in step with them; it owns
the message references (the table message, each member's DM, closed DMs), kept in its own
storage, and the interaction tokens that may still edit a message.

Writes are few and paced (`bot.pacing`), latest state wins:
- the table message is redrawn after every change (a burst of moves costs one edit);
- a private view is redrawn only when what it offers its member changes: their own cards,
  their turn coming or going, the phase; other players' moves show on the table message.
  That key alone decides: a view is not fingerprinted (a change of what it offers changes
  what it shows, and a fingerprint costs as much as a third of the view's drawing);
- a click's own answer (an interaction callback) draws the clicker's view; while a click is
  being answered its message gets no other write, and a slow one on a private view is held
  (its buttons taken off until the answer, `Presenter.hold`);
- an edit goes through the latest interaction whose `@original` is that message while its
  token lives (interaction endpoints are outside the bot's global rate limit), else REST.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import aiohttp
import discord

from bot.components import Components
from bot.edits import edit_original, update_message
from bot.http1 import Turns
from bot.i18n import t
from bot.pacing import Job, Pacer, check_current
from bot.ratelimits import send_first_dm
from bot.ratings import Change
from bot.rendering import (
    Rendered,
    Selection,
    private_view_components,
    render_private,
    render_table,
)
from bot.storage import MessageRef
from bot.words import plain
from tables.outcome import Outcome, Snapshot

log = logging.getLogger(__name__)

# Discord lets an interaction's token edit its messages for 15 minutes; stop a minute early.
TOKEN_LIFETIME = 14 * 60.0
# The table message is not posted again this soon after it was, if nothing changed since.
REPOST_QUIET = 5.0


class MessageStore(Protocol):
    """The presenter's own storage: message references, kept across restarts."""

    async def message_refs(self) -> list[MessageRef]:
        """Read every stored reference."""

    async def save_message_ref(self, ref: MessageRef) -> None:
        """Write one reference."""

    async def forget_message_refs(self, table_id: str) -> None:
        """Drop a table's references."""


class _Superseded(Exception):
    """A view was drawn for a state that a newer view replaced while it was being drawn."""


@dataclass(slots=True)
class _Editor:
    """The token of an interaction whose `@original` is a message, and when it was made.

    Only what an edit's request is made of is kept: not the interaction, which holds the
    whole message it came from, parsed, nor a `discord.Webhook` with its state (one per
    live token, thousands at 500 tables), for as long as the token lives.
    """

    session: aiohttp.ClientSession
    application_id: int
    token: str
    since: float

    @classmethod
    def of(cls, interaction: discord.Interaction, since: float) -> _Editor:
        """Keep an interaction's token."""
        return cls(interaction._session, interaction.application_id, interaction.token, since)

    def edit(self, **kwargs: Any) -> Coroutine[Any, Any, None]:
        """Edit the `@original` message through the token (returned unawaited, as `Rest`)."""
        return edit_original(self.session, self.application_id, self.token, **kwargs)


@dataclass
class _Shown:
    """What one private message shows: its `private_key` and its pictures."""

    key: tuple[object, ...] | None = None
    files: tuple[str, ...] | None = None


@dataclass
class _Private:
    """What the presenter knows of one seat's private views: the DM and the ephemeral one."""

    dm_shown: _Shown = field(default_factory=_Shown)
    eph_shown: _Shown = field(default_factory=_Shown)
    selection: tuple[int, Selection] | None = None
    ephemeral: _Editor | None = None
    dm: _Editor | None = None
    # The `private_key` of the snapshot last asked about: a redraw queued for a snapshot
    # asks again when it runs, and a click's answer again when it ends (`key_of`).
    keyed: Snapshot | None = None
    key: tuple[object, ...] = ()

    def key_of(self, snapshot: Snapshot, seat: int) -> tuple[object, ...]:
        """Give the seat's `private_key` in `snapshot`, worked out once per snapshot."""
        if self.keyed is not snapshot:
            self.keyed, self.key = snapshot, private_key(snapshot, seat)
        return self.key

    def shown_in(self, in_dm: bool) -> _Shown:
        """Say what the DM (or the live ephemeral view) shows."""
        return self.dm_shown if in_dm else self.eph_shown

    def answered(self, editor: _Editor, in_dm: bool, shown: _Shown) -> None:
        """Note that a click's answer shows `shown`, and that its token edits that view now."""
        if in_dm:
            self.dm, self.dm_shown = editor, shown
        else:
            self.ephemeral, self.eph_shown = editor, shown


@dataclass
class _TableState:
    """What the presenter knows of one table's messages."""

    latest: Snapshot
    message: MessageRef | None = None
    mark: str | None = None
    # What the shown table message was drawn from (`Presenter._table_inputs`).
    inputs: tuple[object, ...] | None = None
    editor: _Editor | None = None
    dms: dict[int, MessageRef] = field(default_factory=dict)
    private: dict[int, _Private] = field(default_factory=dict)
    reminder: tuple[int, int] | None = None  # the seat reminded, the reminder's message
    # What `Presenter.where` last said for the table: the language and names, and the text.
    place: tuple[tuple[str, str | None, str | None], str] | None = None
    answering: set[Hashable] = field(default_factory=set)
    files: tuple[str, ...] | None = None
    posted_at: float = float("-inf")
    drawn_at: float = float("-inf")
    posted_version: int = -1
    reposting: asyncio.Lock = field(default_factory=asyncio.Lock)

    def private_of(self, seat: int) -> _Private:
        """Give what is known of a seat's private views, made when first asked for."""
        # Not `setdefault`: it would make (and drop) a `_Private` at every redraw queued.
        private = self.private.get(seat)
        if private is None:
            private = self.private[seat] = _Private()
        return private


# The turn of each interaction being answered: its first response is one call, a deferral
# or the answer, never both (`bot.answers.acknowledged` defers through it). Kept while
# someone holds or waits for it, as a weak value would be, without a weak reference made
# and its callback run for every interaction. None while its one responder holds it: nearly
# every interaction has one, who neither waits nor needs a `Turns` made (and dropped); a
# second one makes it, and waits there.
_responding: dict[int, Turns | None] = {}


T = TypeVar("T")


def _refused_for_now(error: Exception) -> float | None:
    """Say how long a write Discord refused for now waits to be tried again (None: failed)."""
    if isinstance(error, discord.HTTPException):
        if error.status == 429 or error.status >= 500:
            return float(getattr(error, "retry_after", 1.0) or 1.0)
        return None
    if isinstance(error, (aiohttp.ClientError, OSError)):
        return 1.0  # no connection
    return None


# Discord's refusal of a second first response: the interaction was acknowledged already.
ALREADY_ACKNOWLEDGED = 40060


async def first_response(
    interaction: discord.Interaction,
    first: Callable[[], Awaitable[T]],
    then: Callable[[], Awaitable[T]],
) -> T:
    """Send an interaction's first response, or what follows one once it was acknowledged.

    The process a DM click came in on defers it when its owner is slow to take it
    (`bot.routing`): Discord then refuses our first response, and the answer goes through
    the token instead, as after our own deferral.
    """
    key = interaction.id
    if key not in _responding:
        _responding[key] = None
    else:
        turn = _responding[key]
        if turn is None:
            turn = _responding[key] = Turns(0)  # its one place is held
        if not turn.take():
            try:
                await turn.wait()
            except asyncio.CancelledError:
                _forget_turn(key, turn)
                raise
    try:
        if not interaction.response.is_done():
            try:
                return await first()
            except discord.HTTPException as error:
                if error.code != ALREADY_ACKNOWLEDGED:
                    raise
                log.debug("interaction %d was deferred by another process", key)
                interaction.response._response_type = (
                    discord.InteractionResponseType.deferred_message_update
                )
        return await then()
    finally:
        held = _responding[key]
        if held is None:
            del _responding[key]
        else:
            held.give()
            _forget_turn(key, held)


def _forget_turn(key: int, turn: Turns) -> None:
    """Drop an interaction's turn once nobody holds it or waits for it."""
    if turn.free and not turn.waiting:
        del _responding[key]


async def acknowledged_already() -> None:
    """Leave an interaction as it is: it was acknowledged (here, or by another process)."""


def edit_answer(
    interaction: discord.Interaction, rendered: Rendered, shown: tuple[str, ...] | None
) -> Coroutine[Any, Any, None]:
    """Answer a click by editing its message (after a deferral: through the interaction)."""
    kwargs = rendered.edit_kwargs(shown)
    # Returned unawaited: no frame of its own for every resumption of the request to pass.
    return first_response(
        interaction,
        lambda: update_message(interaction, **kwargs),
        lambda: _Editor.of(interaction, 0.0).edit(**kwargs),
    )


def edit_components(
    interaction: discord.Interaction, view: Components
) -> Coroutine[Any, Any, None]:
    """Answer a click by replacing its message's components alone: the rest stays as shown."""
    # Returned unawaited, as `edit_answer`.
    return first_response(
        interaction,
        lambda: update_message(interaction, view=view),
        lambda: _Editor.of(interaction, 0.0).edit(view=view),
    )


async def send_answer(
    interaction: discord.Interaction, rendered: Rendered, *, ephemeral: bool = False
) -> int | None:
    """Answer with a new message (after a deferral: as a followup); give its id."""

    async def respond() -> int | None:
        response = await interaction.response.send_message(
            **rendered.send_kwargs(), ephemeral=ephemeral
        )
        return response.message_id

    async def follow_up() -> int | None:
        message = await interaction.followup.send(
            **rendered.send_kwargs(), ephemeral=ephemeral, wait=True
        )
        return message.id

    return await first_response(interaction, respond, follow_up)


def private_key(snapshot: Snapshot, seat: int) -> tuple[object, ...]:
    """Say what a private view offers its member: it is redrawn only when this changes."""
    public = snapshot.public
    player = snapshot.private.get(seat)
    if public is None or player is None:
        return (snapshot.phase,)
    mine = public.seats[seat]
    return (
        snapshot.phase,
        public.turn == seat,
        player.hand,
        mine.face_up,
        mine.face_down_count,
        mine.ready,
        player.chosen,
        public.loser,
    )


def _answered_slot(user_id: int | None) -> tuple[object, ...]:
    """Say what a click's answer holds: the table message (no member), else a seat's views."""
    return ("table",) if user_id is None else ("seat", user_id)


class Presenter:
    """The core's outcome sink: redraws tables and private views, pings players."""

    def __init__(
        self,
        client: discord.Client,
        pacer: Pacer,
        *,
        store: MessageStore | None = None,
        command_name: str = "shithead",
        settle: float = 0.3,
        table_interval: float = 2.0,
        table_redraws: float = 150.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.pacer = pacer
        self.store = store
        self.command_name = command_name
        # The table message calls the game what the server's command calls it.
        self.game_name = command_name.replace("-", " ").replace("_", " ").title()
        self.settle = settle
        self.table_interval = table_interval
        self.table_redraws = table_redraws
        self.sleep = sleep
        self.clock = clock
        self.tables: dict[str, _TableState] = {}
        # Each ended table's rating changes, seat by seat, as the table store keeps them.
        self.rating_changes: dict[str, tuple[Change, ...]] = {}
        # Each member's own language, as their last interaction said: their private views
        # speak it (the table's language until they have been heard from).
        self.member_locales: dict[int, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ start-up

    async def load(self, snapshots: list[Snapshot]) -> None:
        """Take up the message references of restored tables; forget those of gone tables."""
        known = {snapshot.id: snapshot for snapshot in snapshots}
        if self.store is None:
            return
        gone: set[str] = set()
        for ref in await self.store.message_refs():
            shown = known.get(ref.table_id)
            if shown is None:
                gone.add(ref.table_id)
                continue
            # An ended table still has references only if its last redraw did not happen.
            state = self._state(shown)
            if ref.user_id == 0:
                state.message = ref
            else:
                state.dms[ref.user_id] = ref
        for table_id in gone:
            await self.store.forget_message_refs(table_id)

    def to_redraw(self) -> list[Snapshot]:
        """Say which tables have messages to bring up to date after a restart."""
        return [state.latest for state in self.tables.values()]

    def redraw(self, snapshot: Snapshot) -> None:
        """Bring a restored table's messages up to date (they may be behind its state)."""
        state = self._state(snapshot)
        state.latest = snapshot
        self._queue_table(state)
        for seat in snapshot.humans():
            self._queue_private(state, seat)

    # ------------------------------------------------------------------ the sink

    def published(self, outcome: Outcome) -> None:
        """Queue the redraws an outcome calls for, and say its notices."""
        snapshot = outcome.snapshot
        state = self._newest(snapshot)
        self._queue_table(state)
        for seat in snapshot.humans():
            self._queue_private(state, seat)
        for notice in outcome.notices:
            if notice.code == "remind":
                self._remind(state, int(notice.params["seat"]))
        self._after_turn(state)

    # ------------------------------------------------------------------ answering clicks

    # A click's answer holds its messages by a plain call and lets go in its `finally`
    # (`bot.answers`): an async context manager cost two coroutines and an object a click.

    def answering(self, table_id: str, user_id: int | None) -> None:
        """Hold other writes to the messages a click's answer draws, until `answered`."""
        state = self.tables.get(table_id)
        if state is not None:
            state.answering.add(_answered_slot(user_id))

    def answered(self, table_id: str, user_id: int | None) -> None:
        """Let writes to a click's messages go again, and queue their redraw."""
        state = self.tables.get(table_id)
        if state is not None:
            state.answering.discard(_answered_slot(user_id))
            if user_id is None:
                self._queue_table(state)
            else:
                seat = state.latest.seat_of(user_id)
                if seat is not None:
                    self._queue_private(state, seat)

    async def hold(self, interaction: discord.Interaction, table_id: str) -> None:
        """Acknowledge a slow click on a private view by taking its buttons off until answered.

        A deferral would leave the old buttons up while the click is carried out and the turn
        moves on, for the member to click a view that no longer holds. The content stays; the
        answer puts the current buttons back, and so does the redraw `answered` queues when
        the click ends otherwise (a refusal, a failure).
        """

        async def take_off() -> None:
            await update_message(interaction, view=None)
            self._held(interaction, table_id)

        await first_response(interaction, take_off, acknowledged_already)

    def _held(self, interaction: discord.Interaction, table_id: str) -> None:
        """Note that a private view shows no buttons, and that this click's token edits it."""
        state = self.tables.get(table_id)
        seat = state.latest.seat_of(interaction.user.id) if state is not None else None
        if state is None or seat is None:
            return
        private = state.private_of(seat)
        in_dm = interaction.guild_id is None
        # Shown without buttons: no key matches it, so the next redraw always writes; its
        # pictures are still attached.
        shown = _Shown(files=private.shown_in(in_dm).files)
        private.answered(_Editor.of(interaction, self.clock()), in_dm, shown)

    async def answer_table(
        self, interaction: discord.Interaction, snapshot: Snapshot, *, edit: bool
    ) -> None:
        """Answer with the table message: edit the clicked one, or post it anew."""
        state = self._newest(snapshot)
        rendered = self._render_table(snapshot)
        clicked_table = (
            edit
            and interaction.message is not None
            and state.message is not None
            and interaction.message.id == state.message.message_id
        )
        shown = state.files if clicked_table else None
        await rendered.prepare(shown)
        if edit:
            await edit_answer(interaction, rendered, shown)
            message = interaction.message
            if message is None or state.message is None or message.id != state.message.message_id:
                return
        else:
            message_id = await send_answer(interaction, rendered)
            if message_id is None:
                return
            old = state.message
            state.posted_at, state.posted_version = self.clock(), snapshot.version
            state.message = MessageRef(snapshot.id, 0, snapshot.channel_id, message_id, False)
            await self._save(state.message)
            if old is not None and old.message_id not in (None, message_id):
                await self._delete_message(snapshot.channel_id, old.message_id)
        state.mark = rendered.fingerprint()
        state.inputs = self._table_inputs(snapshot)
        state.files = rendered.file_keys
        state.editor = _Editor.of(interaction, self.clock())

    async def answer_private(
        self,
        interaction: discord.Interaction,
        snapshot: Snapshot,
        seat: int,
        *,
        edit: bool,
        selection: Selection | None = None,
    ) -> None:
        """Answer a member's click with their private view: edit it in place, or show it."""
        state = self._newest(snapshot)
        private = state.private_of(seat)
        version = snapshot.seats[seat].version
        if selection is not None:
            private.selection = (version, selection)
        in_dm = interaction.guild_id is None
        rendered = self._render_private(state, snapshot, seat, in_channel=not in_dm)
        before = private.shown_in(in_dm).files if edit else None
        await rendered.prepare(before)
        if edit:
            await edit_answer(interaction, rendered, before)
        else:
            await send_answer(interaction, rendered, ephemeral=True)
        shown = _Shown(private.key_of(snapshot, seat), rendered.file_keys)
        private.answered(_Editor.of(interaction, self.clock()), in_dm, shown)
        self._drop_if_closed(state)

    async def answer_selection(
        self,
        interaction: discord.Interaction,
        snapshot: Snapshot,
        seat: int,
        selection: Selection,
    ) -> None:
        """Answer a menu choice on a private view by redrawing its components alone.

        A choice is taken only on a view drawn at its seat's current version, so the embed
        and pictures it shows are the ones a full redraw would draw now; Discord keeps what
        an update leaves out, so only the components are built and sent.
        """
        state = self._newest(snapshot)
        private = state.private_of(seat)
        private.selection = (snapshot.seats[seat].version, selection)
        in_dm = interaction.guild_id is None
        locale = self._seat_locale(snapshot, seat)
        await edit_components(
            interaction, private_view_components(snapshot, seat, locale, selection)
        )
        shown = _Shown(private.key_of(snapshot, seat), private.shown_in(in_dm).files)
        private.answered(_Editor.of(interaction, self.clock()), in_dm, shown)
        self._drop_if_closed(state)

    def owns_view(self, table_id: str, interaction: discord.Interaction) -> bool:
        """Say whether a click on a private view comes from the member it was drawn for."""
        user_id = interaction.user.id
        if interaction.guild_id is None:
            state = self.tables.get(table_id)
            ref = state.dms.get(user_id) if state is not None else None
            # A DM channel has one member: a click from another DM is someone else's view.
            return ref is None or ref.channel_id in (None, interaction.channel_id)
        meta = getattr(interaction.message, "interaction_metadata", None)
        return meta is None or meta.user.id == user_id

    async def repost(self, interaction: discord.Interaction, snapshot: Snapshot) -> bool:
        """Post the table message again at the bottom, unless it just was, unchanged (False)."""
        state = self._state(snapshot)
        async with state.reposting:
            recent = self.clock() - state.posted_at < REPOST_QUIET
            if (
                recent
                and state.message is not None
                and state.posted_version == state.latest.version
            ):
                return False  # several members asked at once: one copy is enough
            await self.answer_table(interaction, state.latest, edit=False)
            return True

    def table_message(self, table_id: str) -> int | None:
        """Return the id of a table's message, while the presenter keeps the table."""
        state = self.tables.get(table_id)
        return state.message.message_id if state is not None and state.message else None

    def remembers(self, table_id: str) -> bool:
        """Say whether anything of a table is still kept (a finished one keeps nothing)."""
        return table_id in self.tables

    # ------------------------------------------------------------------ the table message

    def _queue_table(self, state: _TableState) -> None:
        table_id = state.latest.id
        if ("table",) in state.answering:
            return
        # A redraw waits for a burst of changes to settle, held by the pacer: a change
        # meanwhile holds a newer redraw instead, and the older one never runs. A live table
        # message changes at most once per interval, showing the newest state: the player to
        # act reads what they need in their own view at once. A burst settles after the
        # interval too, as when the redraw slept in its job: no more table edits than then.
        after = self.settle
        if state.latest.open:
            after += max(0.0, state.drawn_at + self._table_interval() - self.clock())
        # A live table is drawn before the last word of closed ones in the same channel.
        self._submit(
            ("channel", state.latest.channel_id),
            ("table", table_id),
            lambda: self._draw_table(table_id),
            urgent=state.latest.open,
            after=after,
        )

    async def _draw_table(self, table_id: str) -> bool:
        held = self.tables.get(table_id)
        if held is not None and held.latest.open:
            # Drawn (by an earlier redraw) since this one was held: it waits out the interval.
            wait = held.drawn_at + self._table_interval() - self.clock()
            if wait > 0:
                await self.sleep(wait)
                # A change while it waited queued a newer redraw, which draws instead: this
                # one's write would be dropped when it went (`check_current` in `bot.rest`).
                check_current()
        state = self.tables.get(table_id)
        if state is None or state.message is None or ("table",) in state.answering:
            return False
        snapshot = state.latest
        inputs = self._table_inputs(snapshot)
        if state.inputs == inputs:  # drawn from the same state: nothing to build
            self._drop_if_closed(state)
            return False
        rendered = self._render_table(snapshot)
        mark = rendered.fingerprint()
        if state.mark == mark:
            state.inputs = inputs
            self._drop_if_closed(state)
            return False
        if snapshot.phase == "closed" and snapshot.public is None:
            # A lobby closed before any deal: its message goes, instead of littering.
            await self._delete_message(snapshot.channel_id, state.message.message_id)
            state.message = None
            wrote = True
        else:
            wrote = await self._edit_table(state, rendered)
        state.mark, state.inputs = mark, inputs
        state.drawn_at = self.clock()
        self._drop_if_closed(state)
        return wrote

    def _table_interval(self) -> float:
        """Say how often a live table message may change, given how many tables are kept."""
        # All table messages together change at most `table_redraws` times a second: with
        # many tables each one's message lags a little more, and the bot's writes stay bounded.
        return max(self.table_interval, len(self.tables) / self.table_redraws)

    async def _edit_table(self, state: _TableState, rendered: Rendered) -> bool:
        """Edit the table message, through a live interaction if there is one."""
        assert state.message is not None and state.message.message_id is not None
        ref = state.message
        channel = self.client.get_partial_messageable(state.latest.channel_id)
        editor = self._live(state.editor)
        shown = state.files
        await rendered.prepare(shown)
        try:
            if editor is not None:
                try:
                    await editor.edit(**rendered.edit_kwargs(shown))
                    state.files = rendered.file_keys
                    return True
                except discord.NotFound:
                    raise
                except discord.HTTPException:
                    state.editor = None  # the token expired: edit by REST from now on
            await channel.get_partial_message(ref.message_id or 0).edit(
                **rendered.message_edit_kwargs(shown)
            )
        except discord.NotFound:
            # Someone deleted the table message: post it again so the table stays playable.
            state.editor = None
            message = await channel.send(**rendered.send_kwargs())
            state.message = MessageRef(ref.table_id, 0, ref.channel_id, message.id, False)
            await self._save(state.message)
        state.files = rendered.file_keys
        return True

    async def _delete_message(self, channel_id: int, message_id: int | None) -> None:
        """Delete an old table message, if it is still there."""
        channel = self.client.get_partial_messageable(channel_id)
        with contextlib.suppress(discord.NotFound):
            await channel.get_partial_message(message_id or 0).delete()

    # ------------------------------------------------------------------ private views

    def where(self, snapshot: Snapshot, locale: str) -> str:
        """Say which server, channel and table a private view belongs to."""
        guild = self.client.get_guild(snapshot.guild_id)
        # The table's channel is one of its server's: looked up there, not in every server the
        # bot is in (`Client.get_channel` walks them all, for every private view drawn).
        channel = guild.get_channel_or_thread(snapshot.channel_id) if guild else None
        names = (
            locale,
            channel.name if channel is not None else None,
            guild.name if guild else None,
        )
        # Kept per table, as long as the names and language it was said for stay the same.
        state = self.tables.get(snapshot.id)
        if state is not None and state.place is not None and state.place[0] == names:
            return state.place[1]
        text = t(
            "Table {id} in #{channel} on {guild}",
            locale,
            id=snapshot.id,
            # A server's or a thread's name is anyone's choice: shown as plain text.
            channel=plain(channel.name) if channel is not None else snapshot.channel_id,
            guild=plain(guild.name) if guild else snapshot.guild_id,
        )
        if state is not None:
            state.place = (names, text)
        return text

    def _render_table(self, snapshot: Snapshot) -> Rendered:
        """Draw a table message in the table's language, with its game's rating changes."""
        return render_table(
            self._shown(snapshot),
            self.locale(snapshot),
            self.game_name,
            self.rating_changes.get(snapshot.id, ()),
        )

    def _table_inputs(self, snapshot: Snapshot) -> tuple[object, ...]:
        """Say what a table message is drawn from: equal inputs, the same message."""
        # The version counts every change of the table; the rest is the presenter's own.
        return (
            snapshot.id,
            snapshot.version,
            self._shown(snapshot).pictures,
            self.locale(snapshot),
            self.rating_changes.get(snapshot.id, ()),
        )

    def _shown(self, snapshot: Snapshot, in_channel: bool = True) -> Snapshot:
        """Leave the pictures out where the bot may not attach files (the channel's rights)."""
        if not snapshot.pictures or not in_channel:
            return snapshot
        guild = self.client.get_guild(snapshot.guild_id)
        channel = guild.get_channel_or_thread(snapshot.channel_id) if guild else None
        if guild is None or channel is None or guild.me is None:
            return snapshot  # not known yet: try, as Discord will say
        if channel.permissions_for(guild.me).attach_files:
            return snapshot
        return dataclasses.replace(snapshot, pictures=False)

    def _seat_locale(self, snapshot: Snapshot, seat: int) -> str:
        """Say the language of a seat's private views: its member's, else the table's."""
        # The table's language is looked up only for a member not heard from.
        return self.member_locales.get(snapshot.seats[seat].user_id) or self.locale(snapshot)

    def _render_private(
        self, state: _TableState, snapshot: Snapshot, seat: int, *, in_channel: bool = False
    ) -> Rendered:
        """Draw a seat's view in its member's language, with their pending menu choice."""
        snapshot = self._shown(snapshot, in_channel)
        locale = self._seat_locale(snapshot, seat)
        version = snapshot.seats[seat].version
        held = state.private.get(seat)
        selection = None
        if held is not None and held.selection is not None and held.selection[0] == version:
            selection = held.selection[1]
        return render_private(snapshot, seat, locale, self.where(snapshot, locale), selection)

    def _queue_private(self, state: _TableState, seat: int) -> None:
        """Queue a redraw of a member's DM and live ephemeral view, if what they offer changed."""
        snapshot = state.latest
        user_id = snapshot.seats[seat].user_id
        if ("seat", user_id) in state.answering:
            return
        if snapshot.public is None:
            return  # no cards were ever dealt here
        private = state.private_of(seat)
        key = private.key_of(snapshot, seat)
        table_id = snapshot.id
        dm = state.dms.get(user_id)
        # A table's end is shown in the DMs it has; it starts no new DM conversation.
        wanted = (dm is None and snapshot.open) or (dm is not None and not dm.dm_closed)
        if wanted and private.dm_shown.key != key:
            # Opening a DM conversation goes through the pacer's gate (a few at once).
            self._submit(
                ("dm", user_id), table_id, lambda: self._draw_dm(table_id, seat), gated=dm is None
            )
        if private.ephemeral is not None and private.eph_shown.key != key:
            self._submit(
                ("eph", user_id),
                table_id,
                lambda: self._draw_ephemeral(table_id, seat),
                after=self.settle,
            )

    async def _draw_dm(self, table_id: str, seat: int) -> bool:
        state = self.tables.get(table_id)
        if state is None:
            return False
        snapshot = state.latest
        user_id = snapshot.seats[seat].user_id
        private = state.private_of(seat)
        key = private.key_of(snapshot, seat)
        ref = state.dms.get(user_id)
        busy = ("seat", user_id) in state.answering
        if busy or private.dm_shown.key == key or (ref and ref.dm_closed):
            self._drop_if_closed(state)
            return False
        rendered = self._render_private(state, snapshot, seat)
        try:
            await self._write_dm(state, private, user_id, rendered)
        except _Superseded:
            # Never write an older view over a click's newer answer; when that answer is done
            # it queues this seat's redraw again (`answered`).
            return False
        except discord.Forbidden:
            closed = MessageRef(table_id, user_id, None, None, dm_closed=True)
            state.dms[user_id] = closed
            await self._save(closed)
            self._dms_closed(state, user_id)
            return True
        private.dm_shown = _Shown(key, rendered.file_keys)
        self._drop_if_closed(state)
        return True

    async def _write_dm(
        self, state: _TableState, private: _Private, user_id: int, rendered: Rendered
    ) -> None:
        """Send the DM view, or edit it (through a live interaction if there is one)."""
        before = private.dm_shown
        shown = before.files
        await rendered.prepare(shown)
        # A click's answer showed (or is showing) a newer view while the pictures were drawn.
        if private.dm_shown is not before or ("seat", user_id) in state.answering:
            raise _Superseded
        editor = self._live(private.dm)
        if editor is not None:
            try:
                await editor.edit(**rendered.edit_kwargs(shown))
                return
            except discord.HTTPException:
                private.dm = None
        ref = state.dms.get(user_id)
        if ref is not None and ref.channel_id is not None and ref.message_id is not None:
            dm = self.client.get_partial_messageable(ref.channel_id)
            with contextlib.suppress(discord.NotFound):
                message = dm.get_partial_message(ref.message_id)
                await message.edit(**rendered.message_edit_kwargs(shown))
                return
        channel_id, message_id = await send_first_dm(self.client, user_id, **rendered.send_kwargs())
        state.dms[user_id] = MessageRef(state.latest.id, user_id, channel_id, message_id, False)
        await self._save(state.dms[user_id])

    def _dms_closed(self, state: _TableState, user_id: int) -> None:
        """Tell a member in the channel, once, how to play without DMs."""
        snapshot = state.latest
        text = t(
            "<@{user}>, I can't send you direct messages. Use the **My hand** button on "
            "the table, or `/{command} hand`, to see your cards and play.",
            self.locale(snapshot),
            user=user_id,
            command=self.command_name,
        )
        self._say_later(snapshot, ("dm-closed", user_id), text, user_id)

    async def _draw_ephemeral(self, table_id: str, seat: int) -> bool:
        state = self.tables.get(table_id)
        if state is None:
            return False
        snapshot = state.latest
        private = state.private.get(seat)
        user_id = snapshot.seats[seat].user_id
        if private is None or ("seat", user_id) in state.answering:
            return False
        editor = self._live(private.ephemeral)
        key = private.key_of(snapshot, seat)
        if editor is None or private.eph_shown.key == key:
            private.ephemeral = editor
            self._drop_if_closed(state)
            return False
        rendered = self._render_private(state, snapshot, seat, in_channel=True)
        shown = private.eph_shown.files
        await rendered.prepare(shown)
        try:
            await editor.edit(**rendered.edit_kwargs(shown))
        except discord.HTTPException:
            private.ephemeral = None
            return True
        private.eph_shown = _Shown(key, rendered.file_keys)
        self._drop_if_closed(state)
        return True

    # ------------------------------------------------------------------ reminders

    def _remind(self, state: _TableState, seat: int) -> None:
        """Mention the player to act in the channel: one reminder a table, replacing any."""
        snapshot = state.latest
        table_id = snapshot.id
        user_id = snapshot.seats[seat].user_id
        version = snapshot.version
        text = t(
            "⏰ <@{user}>, it's your turn at table {id}.",
            self.locale(snapshot),
            user=user_id,
            id=table_id,
        )

        async def job() -> bool:
            held = self.tables.get(table_id)
            if held is None or held.latest.version != version or not held.latest.open:
                return False
            wrote = await self._unremind(held)
            channel = self.client.get_partial_messageable(snapshot.channel_id)
            mentions = discord.AllowedMentions(
                users=[discord.Object(user_id)], everyone=False, roles=False
            )
            message = await channel.send(text, allowed_mentions=mentions)
            held.reminder = (seat, message.id)
            self._after_turn(held)  # the turn may have passed while it was being posted
            return wrote or True

        self._submit(("channel", snapshot.channel_id), ("remind", table_id), job)

    def _after_turn(self, state: _TableState) -> None:
        """Delete the reminder once the turn it was for has passed (or the table ended)."""
        snapshot = state.latest
        reminder = state.reminder
        if reminder is None or (snapshot.open and snapshot.turn == reminder[0]):
            return
        state.reminder = None
        channel_id, message_id = snapshot.channel_id, reminder[1]

        async def job() -> bool:
            await self._delete_message(channel_id, message_id)
            return True

        # A slot per reminder: a newer reminder's deletion must not replace this one's.
        self._submit(("channel", channel_id), ("unremind", message_id), job, urgent=False)

    async def _unremind(self, state: _TableState) -> bool:
        """Delete the table's reminder, if it has one; say whether that was a write."""
        if state.reminder is None:
            return False
        _, message_id = state.reminder
        state.reminder = None
        await self._delete_message(state.latest.channel_id, message_id)
        return True

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run work in the background; its failure is logged."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        """Forget a finished background task; log it if it failed."""
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a background task failed", exc_info=task.exception())

    def _say_later(
        self,
        snapshot: Snapshot,
        slot: Hashable,
        text: str,
        user_id: int,
    ) -> None:
        """Queue a channel message that mentions one member."""

        async def job() -> bool:
            channel = self.client.get_partial_messageable(snapshot.channel_id)
            mentions = discord.AllowedMentions(
                users=[discord.Object(user_id)], everyone=False, roles=False
            )
            await channel.send(text, allowed_mentions=mentions)
            return True

        self._submit(("channel", snapshot.channel_id), slot, job)

    # ------------------------------------------------------------------ helpers

    def _submit(
        self,
        bucket: Hashable,
        slot: Hashable,
        job: Job,
        *,
        urgent: bool = True,
        gated: bool = False,
        after: float = 0.0,
    ) -> None:
        """Queue a write; one that Discord refuses for now is tried again with the newest state."""
        self.pacer.submit(
            bucket, slot, job, urgent=urgent, gated=gated, after=after, refused=_refused_for_now
        )

    def locale(self, snapshot: Snapshot) -> str:
        """Say the language of a table's public messages (its server's, when it opened)."""
        return snapshot.language

    def _newest(self, snapshot: Snapshot) -> _TableState:
        """Give a table's state with `snapshot` as its latest, unless a newer one is known."""
        state = self._state(snapshot)
        if snapshot.version >= state.latest.version:
            state.latest = snapshot
        return state

    def _state(self, snapshot: Snapshot) -> _TableState:
        state = self.tables.get(snapshot.id)
        if state is None:
            state = self.tables[snapshot.id] = _TableState(snapshot)
        return state

    def _live(self, editor: _Editor | None) -> _Editor | None:
        """Return an editor whose token still lives."""
        if editor is None or self.clock() - editor.since > TOKEN_LIFETIME:
            return None
        return editor

    async def _save(self, ref: MessageRef) -> None:
        if self.store is not None:
            await self.store.save_message_ref(ref)

    def _drop_if_closed(self, state: _TableState) -> None:
        """Forget a closed table once its table message and every view show its end."""
        snapshot = state.latest
        if snapshot.open or state.answering:
            return
        if state.message is not None and state.inputs != self._table_inputs(snapshot):
            return
        for seat in snapshot.humans() if snapshot.public is not None else []:
            ref = state.dms.get(snapshot.seats[seat].user_id)
            private = state.private.get(seat)
            if private is None:
                if ref is None or ref.dm_closed:
                    continue
                return
            key = private.key_of(snapshot, seat)
            dm_done = ref is None or ref.dm_closed or private.dm_shown.key == key
            eph_done = private.ephemeral is None or private.eph_shown.key == key
            if not (dm_done and eph_done):
                return
        self.tables.pop(snapshot.id, None)
        self.rating_changes.pop(snapshot.id, None)
        if self.store is not None:
            self._spawn(self.store.forget_message_refs(snapshot.id))

    async def close(self) -> None:
        """Stop pending pings and writes."""
        for task in list(self._tasks):
            task.cancel()
        await self.pacer.close()
