"""Answer members: a command or click becomes an intent for the core, then an answer.

The path of a click reads top to bottom: typed component (`bot.components`) → `Answers`
→ `TableService.submit` (core → engine → persist → outcome) → `Presenter` → renderers.
Refusals come back as `TableError` codes and are put into words here, at the button.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import time
from collections.abc import Awaitable, Callable
from datetime import datetime

import discord

from bot.i18n import DEFAULT_LOCALE, language_of, t
from bot.membership import Membership
from bot.presenter import Presenter, acknowledged_already, first_response
from bot.rendering import Selection
from bot.words import hint_text, refusal
from tables.errors import TableError
from tables.intents import GameIntent, LobbyIntent, Look, Member, Rematch
from tables.outcome import Snapshot, snapshot
from tables.service import TableService

log = logging.getLogger(__name__)

# Discord drops an interaction not answered within 3 s of its creation: an answer not sent
# this long after the interaction reached the bot (a busy table, a slow disk, a slow
# drawing) is acknowledged first and sent after ...
DEFER_AFTER = 1.0
# ... and at the latest this long after Discord created it (it may have waited in a queue).
DEFER_BY = 2.0


def defer_delay(interaction: discord.Interaction, now: float) -> float:
    """Say how long an answer may take before the interaction must be deferred (`now`: Unix s)."""
    # Its creation time in Unix seconds, read from its snowflake as `created_at` does, without
    # the two datetimes a click would otherwise make.
    created = ((interaction.id >> 22) + discord.utils.DISCORD_EPOCH) / 1000
    # A clock behind Discord's makes the age negative: then the bot's own wait counts.
    age = max(now - created, 0.0)
    return max(0.0, min(DEFER_AFTER, DEFER_BY - age))


async def defer_click(interaction: discord.Interaction) -> None:
    """Acknowledge a click with an edit to come, unless it was acknowledged already."""
    await first_response(interaction, interaction.response.defer, acknowledged_already)


class Deadlines:
    """Start every deferral that is due from one shared timer, not a timer a click.

    Most clicks are answered long before their deferral is due: each only comes and goes
    from `waiting`, where a timer of its own cost a timer handle, its cancellation and its
    place in the loop's heap. The one timer is armed for the earliest deferral waiting, and
    when it runs, for the earliest one still waiting.
    """

    __slots__ = ("_at", "_loop", "_timer", "waiting")

    def __init__(self) -> None:
        self.waiting: dict[Acknowledged, float] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._at = math.inf

    def add(self, acknowledged: Acknowledged, delay: float) -> None:
        """Start an answer's deferral in `delay` seconds, unless it leaves before."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new loop (each test has one): the old one's are gone
            self._loop, self._timer, self._at = loop, None, math.inf
            self.waiting.clear()
        due = loop.time() + delay
        self.waiting[acknowledged] = due
        if due < self._at:
            if self._timer is not None:
                self._timer.cancel()
            self._at = due
            self._timer = loop.call_at(due, self._run)

    def _run(self) -> None:
        # Every deferral due by the moment the timer was armed for is due: the loop ran it.
        at = self._at
        self._timer, self._at = None, math.inf
        waiting = self.waiting
        for acknowledged in [each for each, due in waiting.items() if due <= at]:
            del waiting[acknowledged]
            acknowledged.due()
        if waiting:
            self._at = min(waiting.values())
            self._timer = asyncio.get_running_loop().call_at(self._at, self._run)


class Acknowledged:
    """Answer within Discord's deadline: if the answer is not sent in time, defer it first.

    The deferral is an edit-to-come for a click (`edit`), else "thinking"; a click on a
    private view is held instead (`hold`: its buttons taken off until it is answered). It and
    the answer take turns through `first_response`, so they never both try to be the first
    response, and one that finds the interaction deferred by another process follows that
    deferral. A class, not a generator: it is entered on every click.
    """

    __slots__ = ("_deferral", "edit", "ephemeral", "hold", "interaction")

    # Shared by every answer: their deferrals wait on one timer.
    deadlines = Deadlines()

    def __init__(
        self,
        interaction: discord.Interaction,
        *,
        edit: bool,
        ephemeral: bool = False,
        hold: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.interaction = interaction
        self.edit = edit
        self.ephemeral = ephemeral
        self.hold = hold
        # A task is made only for a deferral that is due.
        self._deferral: asyncio.Task[None] | None = None

    async def __aenter__(self) -> None:
        self.deadlines.add(self, defer_delay(self.interaction, time.time()))

    async def __aexit__(self, *exc_info: object) -> None:
        self.deadlines.waiting.pop(self, None)
        if self._deferral is not None:
            await self._deferral  # a deferral under way is seen through, never cut off

    def due(self) -> None:
        """Start the deferral: the answer was not sent in time."""
        self._deferral = asyncio.ensure_future(self._defer())

    async def _defer(self) -> None:
        interaction = self.interaction
        try:
            if self.hold is not None:
                await self.hold()
            elif self.edit:
                await defer_click(interaction)
            else:
                await first_response(interaction, self._thinking, acknowledged_already)
        except discord.HTTPException:
            log.warning("could not defer a slow answer")

    async def _thinking(self) -> None:
        await self.interaction.response.defer(thinking=True, ephemeral=self.ephemeral)


# Either permission makes a member a moderator of the server's tables.
MODERATING = discord.Permissions.manage_guild.flag | discord.Permissions.manage_messages.flag


def member_of(interaction: discord.Interaction) -> Member:
    """Who clicked or typed: their id, display name, and whether they moderate."""
    user = interaction.user
    # The raw bits `interaction.permissions` wraps in a new `Permissions` at every read
    # (discord.py is pinned; tests/bot/test_answers.py checks both permissions and neither).
    moderating = interaction._permissions & MODERATING
    return Member(user.id, user.display_name, moderator=moderating != 0)


def locale_of(interaction: discord.Interaction) -> str:
    """Say the language to answer a member in: their own Discord language."""
    return language_of(interaction.locale.value)


def server_language(interaction: discord.Interaction, chosen: str) -> str:
    """Say the language of a server's table messages: its house rule, else its own language."""
    if chosen != "auto":
        return chosen
    guild_locale = interaction.guild_locale
    return language_of(guild_locale.value) if guild_locale is not None else DEFAULT_LOCALE


async def say(interaction: discord.Interaction, text: str) -> None:
    """Answer with a short message only the asker sees."""
    await first_response(
        interaction,
        lambda: interaction.response.send_message(text, ephemeral=True),
        lambda: interaction.followup.send(text, ephemeral=True),
    )


class Guarded:
    """Log a click that failed on our side and tell the member in one sentence."""

    __slots__ = ("interaction", "what")

    def __init__(self, interaction: discord.Interaction, what: str) -> None:
        self.interaction = interaction
        self.what = what

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: object
    ) -> bool:
        if not isinstance(error, Exception):
            return False  # no failure, or a cancellation: nothing to say
        log.exception("answering %s failed", self.what, exc_info=error)
        text = t(
            "Something went wrong on my side. Try again in a moment.",
            locale_of(self.interaction),
        )
        with contextlib.suppress(discord.HTTPException):
            await say(self.interaction, text)
        return True


class Answers:
    """Carry members' requests to the core and answer them through the presenter."""

    def __init__(
        self,
        service: TableService,
        presenter: Presenter,
        command_name: str = "shithead",
        membership: Membership | None = None,
    ) -> None:
        self.service = service
        self.presenter = presenter
        self.command_name = command_name
        self.membership = membership
        # The private views (message id, last edit) a click on which is being carried out:
        # a click on the view its answer drew is no second click.
        self.clicked: set[tuple[int, datetime | None]] = set()

    def refusal(
        self, error: TableError, interaction: discord.Interaction, table_id: str | None = None
    ) -> str:
        """Say in the asker's words why nothing happened."""
        found = self.service.find(table_id) if table_id is not None else None
        shown = snapshot(found) if found is not None else None
        return refusal(error, locale_of(interaction), shown, self.command_name)

    async def refuse(
        self, interaction: discord.Interaction, error: TableError, table_id: str | None = None
    ) -> None:
        """Tell the asker, in their words, why nothing happened."""
        await say(interaction, self.refusal(error, interaction, table_id))

    async def lobby(
        self, interaction: discord.Interaction, table_id: str, intent: LobbyIntent | None
    ) -> None:
        """Carry out a lobby button and redraw the table message it is on."""
        if intent is None:
            await self.refuse(interaction, TableError("move_gone"))
            return
        self.presenter.answering(table_id, None)
        try:
            async with Guarded(interaction, "a lobby click"), Acknowledged(interaction, edit=True):
                try:
                    outcome = await self.service.submit(table_id, member_of(interaction), intent)
                except TableError as error:
                    await self.refuse(interaction, error, table_id)
                    return
                await self.presenter.answer_table(interaction, outcome.snapshot, edit=True)
        finally:
            self.presenter.answered(table_id, None)

    async def check_player(self, interaction: discord.Interaction, table_id: str) -> bool:
        """Let a seated member through; answer anyone else at once."""
        table = self.service.tables.get(table_id)
        if table is None or not table.open:
            await self.refuse(interaction, TableError("table_ended"))
            return False
        seat = table.seat_of(interaction.user.id)
        if seat is None or table.seats[seat].removed:
            await self.refuse(interaction, TableError("not_playing"))
            return False
        return True

    async def hand(self, interaction: discord.Interaction, table_id: str) -> None:
        """Show a member their private view, only for them, kept up to date."""
        table = self.service.tables.get(table_id)
        seat = table.seat_of(interaction.user.id) if table is not None else None
        if table is None or seat is None:
            await self.refuse(interaction, TableError("not_playing"))
            return
        if table.game is None:
            await self.refuse(interaction, TableError("not_started"))
            return
        shown = snapshot(table)
        if seat not in shown.private:
            await self.refuse(interaction, TableError("not_playing"))
            return
        async with Guarded(interaction, "my hand"):
            await self.presenter.answer_private(interaction, shown, seat, edit=False)

    async def rematch(self, interaction: discord.Interaction, table_id: str) -> None:
        """Open a rematch of a finished table and post its table message."""
        async with Guarded(interaction, "a rematch"), Acknowledged(interaction, edit=False):
            try:
                outcome = await self.service.submit(table_id, member_of(interaction), Rematch())
            except TableError as error:
                await self.refuse(interaction, error, table_id)
                return
            await self.presenter.answer_table(interaction, outcome.snapshot, edit=False)

    async def move(
        self,
        interaction: discord.Interaction,
        table_id: str,
        version: int,
        intent: GameIntent | None,
    ) -> None:
        """Make a player's move and answer with their new private view."""
        if intent is None:
            await self.refuse(interaction, TableError("move_gone"))
            return
        await self._private(interaction, table_id, version, intent, None)

    async def hint(self, interaction: discord.Interaction, table_id: str, version: int) -> None:
        """Tell a player, and only them, the move the expert would make and why."""
        locale = locale_of(interaction)
        if not self.presenter.owns_view(table_id, interaction):
            await say(interaction, t("That view belongs to someone else.", locale))
            return
        async with (
            Guarded(interaction, "a hint"),
            Acknowledged(interaction, edit=False, ephemeral=True),
        ):
            try:
                found = await self.service.hint(table_id, member_of(interaction), version)
            except TableError as error:
                await self.refuse(interaction, error, table_id)
                return
            await say(interaction, hint_text(found, locale))

    async def select(
        self,
        interaction: discord.Interaction,
        table_id: str,
        version: int,
        *,
        play: int | None = None,
        swap_hand: int | None = None,
        swap_face_up: int | None = None,
    ) -> None:
        """Remember a menu choice (it changes nothing yet) and redraw the view with it."""
        choice = Selection(play=play, swap_hand=swap_hand, swap_face_up=swap_face_up)
        await self._private(interaction, table_id, version, Look(), choice)

    async def _private(
        self,
        interaction: discord.Interaction,
        table_id: str,
        version: int,
        intent: GameIntent,
        selection: Selection | None,
    ) -> None:
        member = member_of(interaction)
        if not self.presenter.owns_view(table_id, interaction):
            await say(interaction, t("That view belongs to someone else.", locale_of(interaction)))
            return
        # A view as the member saw it: a message, as last edited (an answer is an edit).
        message = interaction.message
        view = (message.id, message.edited_at) if message is not None else (interaction.id, None)
        if view in self.clicked:
            # Clicked twice as it was before the first click's answer: one click counts.
            text = "Your last click is still being carried out; this one changed nothing."
            await say(interaction, t(text, locale_of(interaction)))
            return
        self.clicked.add(view)
        # The hold is seen through before `answered` lets the view's writes go: the redraw
        # it queues (after a refusal or a failure) comes after the buttons were taken off.
        hold = functools.partial(self.presenter.hold, interaction, table_id)
        self.presenter.answering(table_id, member.user_id)
        try:
            async with (
                Guarded(interaction, "a move"),
                Acknowledged(interaction, edit=True, hold=hold),
            ):
                # A click from a DM may come from a member who has left the table's server.
                if (
                    interaction.guild_id is None
                    and self.membership is not None
                    and await self.membership.left(table_id, member.user_id)
                ):
                    text = "You left this table's server, so you no longer play at it."
                    await say(interaction, t(text, locale_of(interaction)))
                    return
                try:
                    outcome = await self.service.submit(table_id, member, intent, version)
                except TableError as error:
                    await self.refuse(interaction, error, table_id)
                    return
                seat = outcome.actor
                assert seat is not None
                if selection is not None:
                    await self.presenter.answer_selection(
                        interaction, outcome.snapshot, seat, selection
                    )
                    return
                await self.presenter.answer_private(
                    interaction, outcome.snapshot, seat, edit=True, selection=Selection()
                )
        finally:
            self.clicked.discard(view)
            self.presenter.answered(table_id, member.user_id)

    async def post_table(self, interaction: discord.Interaction, shown: Snapshot) -> None:
        """Answer with a new table's message; a table whose message fails is not kept."""
        try:
            await self.presenter.answer_table(interaction, shown, edit=False)
        except Exception:
            log.exception("table %s: its message could not be posted; it is closed", shown.id)
            await self.service.abandon(shown.id, "not_shown")
            text = t(
                "Discord refused this table's message, so there is no table. Try other "
                "house rules or try again.",
                locale_of(interaction),
            )
            with contextlib.suppress(discord.HTTPException):
                await say(interaction, text)

    async def repost_table(self, interaction: discord.Interaction, shown: Snapshot) -> None:
        """Post the table message again at the bottom: one live copy, however many ask."""
        async with Guarded(interaction, "posting the table again"):
            if not await self.presenter.repost(interaction, shown):
                text = t("The table was just posted below.", locale_of(interaction))
                await say(interaction, text)

    def done(self, text: str, interaction: discord.Interaction, **values: object) -> str:
        """Put a command's confirmation into the asker's words."""
        return t(text, locale_of(interaction), **values)
