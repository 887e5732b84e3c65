"""The table service: every table of the bot, its requests, its timers, its persistence.

Every change to a table happens under that table's lock, bumps its version (so stale clicks
are recognised), is persisted, and is published to the sink as an outcome. A table's timer
waits as a callback the event loop holds (no task until it fires, so thousands of waiting
tables cost a handle each) and resumes from stored deadlines after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.actions import Action, Resign
from engine.errors import IllegalAction
from engine.events import Event, PlayStarted, TurnPassed
from engine.game import Game
from engine.hints import Hint
from engine.rules import RulesError
from engine.strategies import get_strategy, strategy_names
from tables import autoplay, controls
from tables.errors import TableError
from tables.intents import (
    AddComputer,
    End,
    GameIntent,
    Intent,
    Join,
    Kick,
    Leave,
    Look,
    Member,
    Rematch,
    SetHints,
    Start,
)
from tables.model import Seat, Table, TableConfig
from tables.movers import MovePool
from tables.notes import Note, notes_of
from tables.outcome import Outcome, Snapshot, snapshot
from tables.ports import OutcomeSink, StoredState, TableStore, state_text, table_from_text
from tables.timers import Armed, Later, Plan, Timing, call_later, plan

log = logging.getLogger(__name__)

COMPUTER_LEVELS = ("basic", "expert")
LOG_LINES = 6
# Finished tables kept for rematches.
ENDED_KEPT = 200
# A timer whose work failed (the store, say) tries again after this long.
RETRY_SECONDS = 5.0
# The lobby's and the host's requests; a tuple, as `X | Y` in an isinstance check would
# build its union again at every request.
LOBBY_REQUESTS = (Join, Leave, AddComputer, Start, Kick, End, SetHints)
# The events that start a turn's clock.
TURN_STARTS = (PlayStarted, TurnPassed)


@dataclass(slots=True)
class _Timer:
    """A table's armed timer: its callback, due at `at`, and the plan made at `version`."""

    handle: Armed
    at: float
    planned: Plan
    version: int


class _UndoOnFailure:
    """Put a table back as last stored if the change in the block fails half way."""

    __slots__ = ("service", "table")

    def __init__(self, service: TableService, table: Table) -> None:
        self.service = service
        self.table = table

    def __enter__(self) -> None:
        """Start the change."""

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: object
    ) -> None:
        """Undo a change that could not be stored, or that broke (logged); let it raise."""
        if isinstance(error, TableError):
            if error.code == "not_saved":
                self.service._undo(self.table)
        elif isinstance(error, Exception):
            log.error("table %s: a change failed and is undone", self.table.id, exc_info=error)
            self.service._undo(self.table)


def available_levels() -> list[str]:
    """Name the computer-player levels the engine offers now."""
    return [level for level in COMPUTER_LEVELS if level in strategy_names()]


class TableService:
    """Every table of the bot, keyed by id; requests in, outcomes out."""

    def __init__(
        self,
        *,
        store: TableStore | None = None,
        sink: OutcomeSink | None = None,
        timing: Timing | None = None,
        clock: Callable[[], float] = time.time,
        later: Later = call_later,
        seeds: Callable[[], int] | None = None,
        strategies: autoplay.StrategyFactory = get_strategy,
        movers: MovePool | None = None,
    ) -> None:
        self.store = store
        self.sink = sink
        self.timing = timing or Timing()
        self.clock = clock
        self.later = later
        self.seeds = seeds or (lambda: random.randrange(2**31))
        self.strategies = strategies
        self.movers = movers or MovePool(0)
        self.tables: dict[str, Table] = {}
        self.ended: dict[str, Table] = {}
        # Each running table's state as last stored: a change that cannot be stored is undone.
        # Kept as the stored JSON text, a fraction of the memory of its parsed form.
        self._stored: dict[str, str] = {}
        # Each running table's last published snapshot: a look (a menu choice changes
        # nothing) shows it again while the table's version is the one it was made at.
        self._shown: dict[str, Snapshot] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        # Each running table's armed timer, and the timers' work under way (the loop keeps
        # only weak references to tasks).
        self._timers: dict[str, _Timer] = {}
        self._firing: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ lookups

    def in_channel(self, channel_id: int) -> Table | None:
        """Return the open table of a channel."""
        for table in self.tables.values():
            if table.channel_id == channel_id and table.open:
                return table
        return None

    def get(self, table_id: str) -> Table:
        """Return an open table, or refuse: it has ended."""
        table = self.tables.get(table_id)
        if table is None or not table.open:
            raise TableError("table_ended")
        return table

    def find(self, table_id: str) -> Table | None:
        """Return a table, open or recently ended."""
        return self.tables.get(table_id) or self.ended.get(table_id)

    def channel_table(self, channel_id: int) -> Table:
        """Return the channel's open table, or refuse."""
        table = self.in_channel(channel_id)
        if table is None:
            raise TableError("no_table")
        return table

    def lock(self, table_id: str) -> asyncio.Lock:
        """Return the lock that serialises a table's requests."""
        lock = self._locks.get(table_id)
        if lock is None:  # made once, not at every request
            lock = self._locks[table_id] = asyncio.Lock()
        return lock

    # ------------------------------------------------------------------ requests

    async def create(
        self, guild_id: int, channel_id: int, host: Member, config: TableConfig
    ) -> Outcome:
        """Open a lobby in a channel, with the host seated."""
        # One table a channel without a lock across channels: the check and the registration
        # run with no await between them, so creates elsewhere never wait for this one's write.
        if self.in_channel(channel_id) is not None:
            raise TableError("channel_busy")
        table = self._new_table(guild_id, channel_id, host, config)
        async with self.lock(table.id):
            with _UndoOnFailure(self, table):
                await self._changed(table)
                return self._publish(table, actor=0)

    async def submit(
        self, table_id: str, member: Member, intent: Intent, version: int = 0
    ) -> Outcome:
        """Carry out a member's request, or refuse it with a `TableError`."""
        if isinstance(intent, Rematch):
            return await self._rematch(table_id, member)
        # A click on a table long gone is refused before a lock is made for it (kept forever).
        self.get(table_id)
        async with self.lock(table_id):
            table = self.get(table_id)
            if isinstance(intent, LOBBY_REQUESTS):
                with _UndoOnFailure(self, table):
                    events = await self._lobby(table, member, intent)
                return self._publish(table, events, actor=table.seat_of(member.user_id))
            seat = self._player_seat(table, member.user_id, version)
            if isinstance(intent, Look):
                return Outcome(self._snapshot(table), actor=seat)
            with _UndoOnFailure(self, table):
                events = await self._act(table, seat, intent)
            return self._publish(table, events, actor=seat)

    async def hint(self, table_id: str, member: Member, version: int) -> Hint:
        """Say the move the expert would make for a player, and why; the table never changes.

        The search sees the player's own view only and runs where computer moves think.
        """
        self.get(table_id)  # refused before a lock is made for a table long gone
        async with self.lock(table_id):
            table = self.get(table_id)
            if not table.hints:
                raise TableError("hints_off")
            seat = self._player_seat(table, member.user_id, version)
            if table.phase != "play":
                raise TableError("hint_not_now")
            view, seed = table.view(seat), table.seed + table.version
        found = await self.movers.hint(view, seed, table_id=table_id, factory=self.strategies)
        if table.seats[seat].version != version:  # the turn passed while the search ran
            raise TableError("stale_view")
        return found

    def _player_seat(self, table: Table, user_id: int, version: int) -> int:
        """Find the clicking player's seat: refuse non-players, other turns, old views."""
        seat = table.seat_of(user_id)
        game = table.game
        if seat is None or table.seats[seat].removed:
            raise TableError("not_playing")
        if game is None:
            raise TableError("not_started")
        if seat not in game.to_act():
            raise TableError("not_your_turn", seat=game.turn)
        if table.seats[seat].version != version:
            raise TableError("stale_view")
        return seat

    async def _act(self, table: Table, seat: int, intent: GameIntent) -> list[Event]:
        """Resolve a player's intent against their view and let the engine carry it out."""
        game = table.game
        assert game is not None
        # The member's view as last published (the one they clicked on), while it is current,
        # with its choices as its components were drawn from them.
        shown = self._snapshot(table)
        view = shown.private.get(seat) or table.view(seat)
        action = controls.resolve(view, intent, shown.choices(seat))
        if action is None:
            raise TableError("move_gone")
        try:
            events = game.apply(action)
        except IllegalAction as error:
            raise TableError("illegal", error=error.code, action=action, table=view.table) from None
        table.seats[seat].timeouts = 0
        await self._after(table, seat, events)
        return events

    async def abandon(self, table_id: str, reason: str = "abandoned") -> Outcome | None:
        """End a table quietly that cannot be shown (its message failed, its channel is gone)."""
        if table_id not in self.tables:
            return None  # no lock is made for a table that is not running
        async with self.lock(table_id):
            table = self.tables.get(table_id)
            if table is None or not table.open:
                return None
            with _UndoOnFailure(self, table):
                await self._close(table, reason)
            return self._publish(table)

    # ------------------------------------------------------------------ the lobby

    async def _lobby(self, table: Table, member: Member, intent: Intent) -> list[Event]:
        """Carry out a lobby or host request."""
        if isinstance(intent, Join):
            self._check_lobby(table)
            if table.seat_of(member.user_id) is not None:
                raise TableError("already_seated")
            self._check_room(table)
            table.seats.append(Seat(member.user_id, member.name))
            self._bump(table, None)
        elif isinstance(intent, AddComputer):
            self._check_lobby(table)
            if table.seat_of(member.user_id) is None and not member.moderator:
                raise TableError("add_computer_not_seated")
            if intent.level not in available_levels():
                raise TableError("no_such_level", level=intent.level)
            self._check_room(table)
            # A computer seat has no name of its own: the shell names it in the reader's words.
            table.seats.append(Seat(0, "", computer=intent.level))
            # Its thinking processes start now, while the lobby fills, not at its first move.
            self.movers.warm()
            self._bump(table, None)
        elif isinstance(intent, Leave):
            seat = table.seat_of(member.user_id)
            if seat is None or table.seats[seat].removed:
                raise TableError("not_seated")
            if table.phase == "lobby":
                self._unseat(table, seat)
            else:
                return await self._remove(table, seat, Note("left", {"seat": seat}))
        elif isinstance(intent, Kick):
            self._check_host(table, member)
            seat = table.seat_of(intent.user_id)
            if seat is None or table.seats[seat].removed:
                raise TableError("member_not_seated")
            name = table.seats[seat].name
            if table.phase == "lobby":
                self._unseat(table, seat)
                self._note(table, Note("kicked_lobby", {"name": name}))
            else:
                return await self._remove(table, seat, Note("kicked", {"seat": seat}))
        elif isinstance(intent, SetHints):
            self._check_lobby(table)
            if member.user_id != table.host_id:
                raise TableError("host_only_hints")
            table.hints = intent.on
            self._bump(table, None)
        elif isinstance(intent, End):
            self._check_host(table, member)
            self._note(table, Note("ended", {"name": member.name}))
            await self._close(table, "ended")
            return []
        elif isinstance(intent, Start):
            self._check_lobby(table)
            if member.user_id != table.host_id:
                raise TableError("host_only")
            count = len(table.seats)
            try:
                table.rules.check_players(count)
            except RulesError:
                raise TableError(
                    "player_count",
                    low=table.rules.min_players,
                    high=table.rules.max_players,
                    count=count,
                ) from None
            self._deal(table)
        await self._changed(table)
        return []

    async def _rematch(self, old_id: str, member: Member) -> Outcome:
        """Open a lobby with the players of a finished table and deal at once."""
        old = self.ended.get(old_id)
        if old is None:
            raise TableError("rematch_too_old")
        if old.seat_of(member.user_id) is None:
            raise TableError("rematch_not_player")
        kept = [i for i, seat in enumerate(old.seats) if not seat.removed]
        try:
            old.rules.check_players(len(kept))
        except RulesError:
            raise TableError(
                "rematch_too_few", low=old.rules.min_players, count=len(kept)
            ) from None
        config = TableConfig(
            old.rules,
            old.preset,
            old.turn_seconds,
            old.idle_turns,
            old.remind_seconds,
            old.language,
            old.pictures,
            old.hints,
        )
        # As in `create`: checked and registered with no await between.
        if self.in_channel(old.channel_id) is not None:
            raise TableError("channel_busy")
        table = self._new_table(old.guild_id, old.channel_id, member, config)
        table.seats = [
            Seat(old.seats[i].user_id, old.seats[i].name, old.seats[i].computer) for i in kept
        ]
        loser = old.game.loser if old.game is not None else None
        table.previous_loser = kept.index(loser) if loser in kept else None
        async with self.lock(table.id):
            with _UndoOnFailure(self, table):
                self._deal(table)
                await self._changed(table)
        self.ended.pop(old_id, None)
        return self._publish(table, actor=table.seat_of(member.user_id))

    def _new_table(
        self, guild_id: int, channel_id: int, host: Member, config: TableConfig
    ) -> Table:
        """Make a lobby with the host seated and register it."""
        now = self.clock()
        table = Table(
            id=self._new_id(),
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host.user_id,
            preset=config.preset,
            rules=config.rules,
            seed=self.seeds(),
            turn_seconds=self.timing.turn_seconds or config.turn_seconds,
            remind_seconds=self.timing.remind_seconds or config.remind_seconds,
            language=config.language,
            pictures=config.pictures,
            hints=config.hints,
            idle_turns=config.idle_turns,
            seats=[Seat(host.user_id, host.name)],
            created_at=now,
            deadline=now + self.timing.lobby_seconds,
        )
        self.tables[table.id] = table
        return table

    def _deal(self, table: Table) -> None:
        """Deal the cards: the game starts in its setup phase."""
        table.game = Game.deal(
            table.rules, len(table.seats), seed=table.seed, previous_loser=table.previous_loser
        )
        table.started_at = self.clock()
        table.deadline = table.started_at + self.timing.setup_seconds
        self._note(table, Note("dealt"))
        self._bump(table, None)

    def _check_lobby(self, table: Table) -> None:
        if table.phase != "lobby":
            raise TableError("already_started")

    def _check_room(self, table: Table) -> None:
        if len(table.seats) >= table.rules.max_players:
            raise TableError("table_full", count=table.rules.max_players)

    def _check_host(self, table: Table, member: Member) -> None:
        if member.user_id != table.host_id and not member.moderator:
            raise TableError("host_or_moderator")

    def _unseat(self, table: Table, seat: int) -> None:
        """Take a seat out of the lobby; a leaving host hands over to the next member."""
        gone = table.seats.pop(seat)
        if gone.user_id == table.host_id and gone.computer is None:
            humans = table.humans()
            if humans:
                table.host_id = table.seats[humans[0]].user_id
        table.deadline = self.clock() + self.timing.lobby_seconds
        self._bump(table, None)

    async def _remove(self, table: Table, seat: int, note: Note) -> list[Event]:
        """Take a seat out of a running game: the engine makes them the loser and ends it.

        A player who already went out is safe: they only stop watching, the game goes on.
        """
        game = table.game
        assert game is not None
        table.seats[seat].removed = True
        self._note(table, note)
        if game.out[seat]:
            self._bump(table, None)
            await self._changed(table)
            return []
        events = game.apply(Resign(seat))
        await self._after(table, seat, events)
        return events

    # ------------------------------------------------------------------ after a change

    async def _after(self, table: Table, seat: int | None, events: Sequence[Event]) -> None:
        """Record what an action did, start a turn's clock, end the game, persist."""
        for note in notes_of(events):
            self._note(table, note)
        self._bump(table, seat)
        if any(isinstance(e, TURN_STARTS) for e in events):
            table.deadline = self.clock() + table.turn_seconds
            table.reminded = False
        game = table.game
        if game is not None and game.over:
            table.deadline = None
            await self._finish(table, game.end_reason or "out")
            return
        await self._changed(table)

    def _note(self, table: Table, note: Note) -> None:
        table.log.append(note)
        del table.log[:-LOG_LINES]

    def _bump(self, table: Table, seat: int | None) -> None:
        """Count a change: the table's version, and the views it makes stale.

        In setup every player acts on their own cards, so one player's step leaves the
        others' views current; any other change makes every view stale.
        """
        table.version += 1
        in_setup = table.phase == "setup"
        for index, each in enumerate(table.seats):
            if not in_setup or seat is None or index == seat:
                each.version += 1

    async def _changed(self, table: Table) -> None:
        """Store a change, then start the timer for the new state."""
        if table.phase == "lobby" and not table.humans():
            await self._close(table, "abandoned")
            return
        await self._persist(table)
        self._schedule(table)

    def _publish(
        self,
        table: Table,
        events: Sequence[Event] = (),
        notices: Sequence[Note] = (),
        actor: int | None = None,
    ) -> Outcome:
        """Tell the sink what happened and return the same outcome."""
        outcome = Outcome(self._snapshot(table), tuple(events), tuple(notices), actor)
        if self.sink is not None:
            self.sink.published(outcome)
        return outcome

    def _snapshot(self, table: Table) -> Snapshot:
        """Freeze a running table, or give its last snapshot back if it has not changed since.

        Every change counts in the table's version (`_bump`), and an undone change drops
        the snapshot, so one made at the same version shows the table as it is.
        """
        shown = self._shown.get(table.id)
        if shown is not None and shown.version == table.version:
            return shown
        shown = snapshot(table)
        if table.id in self.tables:
            self._shown[table.id] = shown
        return shown

    # ------------------------------------------------------------------ endings

    async def _finish(self, table: Table, reason: str) -> None:
        """A game ended with a result: record it and keep the table for its rematch."""
        table.ended_reason = reason
        table.ended_at = self.clock()
        await self._end(table)

    async def _close(self, table: Table, reason: str) -> None:
        """A table ends without a result."""
        table.closed = True
        table.ended_reason = reason
        table.ended_at = self.clock()
        table.deadline = None
        self._bump(table, None)
        await self._end(table)

    async def _end(self, table: Table) -> None:
        """Store the ending (and the game's record) before the table leaves the running ones."""
        if self.store is not None:
            try:
                await self.store.end(table, state_text(table))
            except Exception:
                log.exception("table %s: its ending could not be stored", table.id)
                raise TableError("not_saved") from None
        self._forget(table)

    def _forget(self, table: Table) -> None:
        """Drop a table that ended from the running ones; keep it a while for rematches."""
        self.tables.pop(table.id, None)
        self._stored.pop(table.id, None)
        self._shown.pop(table.id, None)
        self.ended[table.id] = table
        self._cancel_timer(table.id)
        while len(self.ended) > ENDED_KEPT:
            self._locks.pop(self.ended.pop(next(iter(self.ended))).id, None)

    async def _persist(self, table: Table) -> None:
        """Store the table as it is now, or refuse: it could not be saved."""
        if self.store is None:
            return
        state = state_text(table)
        try:
            await self.store.save(table, state)
        except Exception:
            log.exception("table %s could not be saved", table.id)
            raise TableError("not_saved") from None
        self._stored[table.id] = state

    def _undo(self, table: Table) -> None:
        """Make the table in memory what the store holds (nothing, for one never stored)."""
        self._shown.pop(table.id, None)
        stored = self._stored.get(table.id)
        if stored is None:
            self.tables.pop(table.id, None)
            self._cancel_timer(table.id)
            return
        table.__dict__.update(table_from_text(stored).__dict__)
        self.ended.pop(table.id, None)
        self.tables[table.id] = table
        self._schedule(table)

    # ------------------------------------------------------------------ timers

    def _cancel_timer(self, table_id: str) -> None:
        timer = self._timers.pop(table_id, None)
        if timer is not None:
            timer.handle.cancel()

    def _schedule(self, table: Table, retry: Plan | None = None) -> None:
        """(Re)arm the table's timer for its current state.

        A timer armed for no later than the new moment is kept with the new plan: a move
        mostly puts the turn's reminder later, and the timer waits the rest when it is due.
        """
        now = self.clock()
        planned = retry or plan(table, now, self.timing)
        if planned is None:
            self._cancel_timer(table.id)
            return
        timer = self._timers.get(table.id)
        if timer is not None:
            if timer.at <= planned.when:
                timer.planned, timer.version = planned, table.version
                return
            timer.handle.cancel()
        self._timers[table.id] = self._arm(table.id, planned, table.version, now)

    def _arm(self, table_id: str, planned: Plan, version: int, now: float) -> _Timer:
        """Arm a table's timer for a plan made at a table version."""

        def due() -> None:
            """Start the timer's work, or wait the rest if its plan was put later since."""
            now = self.clock()
            if timer.planned.when > now:
                timer.at = timer.planned.when
                timer.handle = self.later(timer.at - now, due)
                return
            del self._timers[table_id]  # a timer replaced or cancelled is never due
            fire = self._fire(table_id, timer.version, timer.planned)
            task = asyncio.get_running_loop().create_task(fire)
            self._firing.add(task)
            task.add_done_callback(self._firing.discard)

        handle = self.later(max(0.0, planned.when - now), due)
        timer = _Timer(handle, planned.when, planned, version)
        return timer

    async def _fire(self, table_id: str, version: int, planned: Plan) -> None:
        """Carry out the planned moment if the table has not moved since it was planned."""
        table = self.tables.get(table_id)
        if table is None or not table.open or table.version != version:
            return
        try:
            move: Action | None = None
            if planned.kind == "auto" and planned.seat is not None:
                view = table.view(planned.seat)
                strategy = table.seats[planned.seat].computer or autoplay.TIMEOUT_STRATEGY
                move = await self.movers.choose(
                    view,
                    strategy,
                    table.seed + version,
                    table_id=table_id,
                    factory=self.strategies,
                )
            async with self.lock(table_id):
                if table.version != version or not table.open:
                    return
                with _UndoOnFailure(self, table):
                    outcome = await self._fired(table, planned, move)
            if outcome is not None and self.sink is not None:
                self.sink.published(outcome)
        except Exception:
            log.exception("table %s: the %s timer failed; trying again", table_id, planned.kind)
            if table.open and table.version == version:
                later = Plan(self.clock() + RETRY_SECONDS, planned.kind, planned.seat)
                self._schedule(table, retry=later)

    async def _fired(self, table: Table, planned: Plan, move: Action | None) -> Outcome | None:
        """Do what the timer was for; return the outcome to publish."""
        seat = planned.seat
        if planned.kind == "close":
            self._note(table, Note("lobby_closed"))
            await self._close(table, "abandoned")
            return Outcome(snapshot(table))
        if planned.kind == "remind" and seat is not None:
            table.reminded = True
            self._schedule(table)
            await self._persist(table)
            return Outcome(self._snapshot(table), notices=(Note("remind", {"seat": seat}),))
        if planned.kind == "auto" and seat is not None and move is not None:
            events = await self._apply_auto(table, seat, move)
        elif planned.kind == "setup_over":
            events = await self._finish_setup(table)
        elif planned.kind == "timeout" and seat is not None:
            events = await self._timeout(table, seat)
        else:
            return None
        return Outcome(self._snapshot(table), tuple(events))

    async def _apply_auto(self, table: Table, seat: int, move: Action) -> list[Event]:
        """Make a move the bot chose for a seat (checked legal against the same view)."""
        assert table.game is not None
        try:
            events = table.game.apply(move)
        except IllegalAction:
            log.exception("table %s: the move %r was refused; forcing one", table.id, move)
            events = table.game.apply(autoplay.forced(table.view(seat)))
        await self._after(table, seat, events)
        return events

    async def _timeout(self, table: Table, seat: int) -> list[Event]:
        """A member let their turn run out: play the basic move for them, maybe remove them."""
        player = table.seats[seat]
        player.timeouts += 1
        self._note(table, Note("timed_out", {"seat": seat}))
        if player.timeouts >= table.idle_turns:
            note = Note("idle_out", {"seat": seat, "count": player.timeouts})
            return await self._remove(table, seat, note)
        move = autoplay.choose(
            table.view(seat),
            autoplay.TIMEOUT_STRATEGY,
            table.seed + table.version,
            table_id=table.id,
            factory=self.strategies,
        )
        return await self._apply_auto(table, seat, move)

    async def _finish_setup(self, table: Table) -> list[Event]:
        """The setup time ran out: everyone not ready is made ready as they are."""
        game = table.game
        assert game is not None
        events: list[Event] = []
        for seat in list(game.to_act()):
            while game.phase == "setup" and not game.ready[seat]:
                step = autoplay.setup_step(game, seat)
                if step is None:
                    break
                events.extend(game.apply(step))
        await self._after(table, None, events)
        return events

    # ------------------------------------------------------------------ start and stop

    async def restore(self) -> list[Table]:
        """Load every running table and restart its timer, and the tables that ended lately.

        A table that cannot be read is logged and set aside; the others start.
        """
        if self.store is None:
            return []
        restored = []
        for stored in await self.store.load_ended():
            table = await self._read(stored)
            if table is not None:
                self.ended[table.id] = table
                restored.append(table)
        for stored in await self.store.load():
            table = await self._read(stored)
            if table is None:
                continue
            if not table.open:  # stored as running, but its end was stored too late
                self.ended[table.id] = table
            else:
                self.tables[table.id] = table
                self._stored[table.id] = stored.text
                self._schedule(table)
                if any(seat.automatic for seat in table.seats):
                    self.movers.warm()
            restored.append(table)
        return restored

    async def _read(self, stored: StoredState) -> Table | None:
        """Read a stored table, or set it aside as unreadable."""
        assert self.store is not None
        try:
            return stored.table
        except ValueError as exc:
            log.error("table %s cannot be read and is set aside: %s", stored.table_id, exc)
            await self.store.mark_unreadable(stored.table_id, str(exc)[:500])
            return None

    async def shutdown(self) -> None:
        """Stop every timer and the timers' work under way (the tables stay stored)."""
        for timer in self._timers.values():
            timer.handle.cancel()
        self._timers.clear()
        firing = list(self._firing)
        for task in firing:
            task.cancel()
        for task in firing:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _new_id(self) -> str:
        while True:
            table_id = secrets.token_hex(4)
            if table_id not in self.tables and table_id not in self.ended:
                return table_id
