"""The table service: lobbies, seats, games, timers and computer players, without Discord.

Every change to a table happens under that table's lock, bumps its version (so stale
clicks are detected), is persisted, and is announced to a listener (the Discord layer).
Timers run as one task per table and resume from stored deadlines after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from bot import controls, render
from bot.i18n import t
from engine.actions import Action, Choose, PickUp, Play, Ready, Resign
from engine.errors import IllegalAction
from engine.events import Event, GameOver, PlayStarted, TurnPassed
from engine.game import Game
from engine.rules import RulesError, RuleSet, rules_from_json, rules_to_json
from engine.serialize import game_from_json, game_to_json
from engine.strategies import get_strategy, strategy_names
from engine.views import PlayerView, player_view

log = logging.getLogger(__name__)

Phase = Literal["lobby", "setup", "play", "over", "closed"]
OPEN_PHASES: tuple[Phase, ...] = ("lobby", "setup", "play")
COMPUTER_LEVELS = ("basic", "expert")
AUTO_STRATEGY = "basic"
LOG_LINES = 6
MAX_SETUP_STEPS = 40


class TableError(Exception):
    """A request refused, with the words to show the person who made it."""


@dataclass
class Seat:
    """One player at a table: a member, or a computer player (`computer` names its level)."""

    user_id: int
    name: str
    computer: str | None = None
    timeouts: int = 0
    removed: bool = False
    version: int = 0
    dm_channel_id: int | None = None
    dm_message_id: int | None = None
    dm_closed: bool = False

    @property
    def automatic(self) -> bool:
        """Say whether this seat's moves are made by the bot."""
        return self.computer is not None

    def to_json(self) -> dict[str, Any]:
        """Write the seat."""
        return dict(vars(self))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        """Read a seat written by `to_json`."""
        return cls(**data)


@dataclass
class Table:
    """One table in one channel: its lobby, then its game, then its result."""

    id: str
    guild_id: int
    channel_id: int
    host_id: int
    preset: str
    rules: RuleSet
    seed: int
    turn_seconds: float
    idle_turns: int
    seats: list[Seat] = field(default_factory=list)
    phase: Phase = "lobby"
    game: Game | None = None
    version: int = 0
    message_id: int | None = None
    log: list[str] = field(default_factory=list)
    deadline: float | None = None
    reminded: bool = False
    created_at: float = 0.0
    started_at: float | None = None
    ended_at: float | None = None
    ended_reason: str | None = None
    previous_loser: int | None = None

    @property
    def names(self) -> list[str]:
        """Name every seat, in seat order."""
        return [seat.name for seat in self.seats]

    @property
    def open(self) -> bool:
        """Say whether the table is still in its lobby or game."""
        return self.phase in OPEN_PHASES

    def seat_of(self, user_id: int) -> int | None:
        """Return the seat of a member, if they sit here."""
        for index, seat in enumerate(self.seats):
            if seat.computer is None and seat.user_id == user_id:
                return index
        return None

    def humans(self) -> list[int]:
        """Return the seats of members, removed ones included."""
        return [i for i, seat in enumerate(self.seats) if seat.computer is None]

    def view(self, seat: int) -> PlayerView:
        """Return what `seat` may see now."""
        assert self.game is not None
        return player_view(self.game, seat)

    def to_json(self) -> dict[str, Any]:
        """Write everything needed to resume the table after a restart."""
        return {
            "id": self.id,
            "guild_id": self.guild_id,
            "channel_id": self.channel_id,
            "host_id": self.host_id,
            "preset": self.preset,
            "rules": rules_to_json(self.rules),
            "seed": self.seed,
            "turn_seconds": self.turn_seconds,
            "idle_turns": self.idle_turns,
            "seats": [seat.to_json() for seat in self.seats],
            "phase": self.phase,
            "game": game_to_json(self.game) if self.game else None,
            "version": self.version,
            "message_id": self.message_id,
            "log": list(self.log),
            "deadline": self.deadline,
            "reminded": self.reminded,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "ended_reason": self.ended_reason,
            "previous_loser": self.previous_loser,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Table:
        """Read a table written by `to_json`."""
        fields = dict(data)
        fields["rules"] = rules_from_json(data["rules"])
        fields["seats"] = [Seat.from_json(seat) for seat in data["seats"]]
        fields["game"] = game_from_json(data["game"]) if data["game"] else None
        return cls(**fields)


@dataclass(frozen=True)
class Player:
    """Who is asking: a member's id and display name, and whether they moderate."""

    user_id: int
    name: str
    moderator: bool = False


@dataclass(frozen=True)
class TableConfig:
    """A server's settings as the table service needs them."""

    rules: RuleSet
    preset: str
    turn_seconds: float
    idle_turns: int


class TableStore(Protocol):
    """Where tables are kept between actions and recorded at the end."""

    async def save(self, table: Table) -> None:
        """Write a running table."""

    async def finish(self, table: Table) -> None:
        """Record a finished game and forget the running table."""

    async def delete(self, table_id: str) -> None:
        """Forget a table that ended without a result."""

    async def load(self) -> list[Table]:
        """Read every running table."""


class TableListener(Protocol):
    """The Discord layer: told about every change so it can redraw and notify."""

    def changed(self, table: Table) -> None:
        """Redraw the table and its players' views (soon, coalesced)."""

    async def remind(self, table: Table, seat: int) -> None:
        """Tell the player to act that their time runs out."""


@dataclass(frozen=True)
class Timing:
    """How long things take: lobbies, setup, computer players, reminders."""

    lobby_seconds: float = 900.0
    setup_seconds: float = 120.0
    computer_delay: float = 1.2
    remind_before: float = 30.0
    # Replaces the server's turn time when set (tests use a short one).
    turn_seconds: float | None = None


Sleeper = Callable[[float], Awaitable[None]]
Chooser = Callable[[str, PlayerView, int], Action]


def choose_action(strategy: str, view: PlayerView, seed: int) -> Action:
    """Ask a strategy for its move (slow for `expert`: call it in a worker thread)."""
    return get_strategy(strategy, seed).choose(view)


def available_levels() -> list[str]:
    """Name the computer-player levels the engine offers now."""
    return [level for level in COMPUTER_LEVELS if level in strategy_names()]


class TableService:
    """Every table of the bot, keyed by id and by channel."""

    def __init__(
        self,
        *,
        store: TableStore | None = None,
        listener: TableListener | None = None,
        timing: Timing | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Sleeper = asyncio.sleep,
        seeds: Callable[[], int] | None = None,
        chooser: Chooser = choose_action,
    ) -> None:
        self.store = store
        self.listener = listener
        self.timing = timing or Timing()
        self.clock = clock
        self.sleep = sleep
        self.seeds = seeds or (lambda: random.randrange(2**31))
        self.chooser = chooser
        self.tables: dict[str, Table] = {}
        self.ended: dict[str, Table] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._create_lock = asyncio.Lock()

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
            raise TableError(t("This table has ended."))
        return table

    def channel_table(self, channel_id: int) -> Table:
        """Return the channel's open table, or refuse."""
        table = self.in_channel(channel_id)
        if table is None:
            raise TableError(t("There is no table in this channel. Open one with `create`."))
        return table

    def lock(self, table_id: str) -> asyncio.Lock:
        """Return the lock that serialises a table's actions."""
        return self._locks.setdefault(table_id, asyncio.Lock())

    # ------------------------------------------------------------------ lobby

    async def create(
        self, guild_id: int, channel_id: int, host: Player, config: TableConfig
    ) -> Table:
        """Open a lobby in a channel, with the host seated."""
        async with self._create_lock:
            if self.in_channel(channel_id) is not None:
                raise TableError(
                    t("This channel already has a table. Use another channel for another game.")
                )
            table = Table(
                id=self._new_id(),
                guild_id=guild_id,
                channel_id=channel_id,
                host_id=host.user_id,
                preset=config.preset,
                rules=config.rules,
                seed=self.seeds(),
                turn_seconds=self.timing.turn_seconds or config.turn_seconds,
                idle_turns=config.idle_turns,
                seats=[Seat(host.user_id, host.name)],
                created_at=self.clock(),
            )
            table.deadline = table.created_at + self.timing.lobby_seconds
            self.tables[table.id] = table
            async with self.lock(table.id):
                await self._changed(table)
            return table

    async def rematch(self, old_id: str, player: Player) -> Table:
        """Open a lobby with the same players as a finished table and start it."""
        old = self.ended.get(old_id)
        if old is None:
            raise TableError(t("That game is too old for a rematch. Open a new table."))
        if old.seat_of(player.user_id) is None:
            raise TableError(t("Only the players of that game can ask for a rematch."))
        config = TableConfig(old.rules, old.preset, old.turn_seconds, old.idle_turns)
        table = await self.create(old.guild_id, old.channel_id, player, config)
        async with self.lock(table.id):
            kept = [i for i, seat in enumerate(old.seats) if not seat.removed]
            table.seats = [
                Seat(old.seats[i].user_id, old.seats[i].name, old.seats[i].computer) for i in kept
            ]
            loser = old.game.loser if old.game else None
            table.previous_loser = kept.index(loser) if loser in kept else None
            self.ended.pop(old_id, None)
            self._start(table)
            await self._changed(table)
        return table

    async def join(self, table_id: str, player: Player) -> Table:
        """Seat a member in a lobby."""
        async with self.lock(table_id):
            table = self._lobby(table_id)
            if table.seat_of(player.user_id) is not None:
                raise TableError(t("You already sit at this table."))
            if len(table.seats) >= table.rules.max_players:
                raise TableError(
                    t("The table is full ({count} players).", count=table.rules.max_players)
                )
            table.seats.append(Seat(player.user_id, player.name))
            await self._changed(table)
            return table

    async def add_computer(self, table_id: str, player: Player, level: str) -> Table:
        """Seat a computer player of a level; any seated member may do it."""
        async with self.lock(table_id):
            table = self._lobby(table_id)
            if table.seat_of(player.user_id) is None and not player.moderator:
                raise TableError(t("Only players at this table can add computer players."))
            if level not in available_levels():
                raise TableError(t("There is no {level} computer player yet.", level=level))
            if len(table.seats) >= table.rules.max_players:
                raise TableError(
                    t("The table is full ({count} players).", count=table.rules.max_players)
                )
            number = sum(1 for seat in table.seats if seat.computer) + 1
            name = t("Computer {number} ({level})", number=number, level=level)
            table.seats.append(Seat(0, name, computer=level))
            await self._changed(table)
            return table

    async def leave(self, table_id: str, player: Player) -> Table:
        """Unseat a member from a lobby, or take them out of a running game."""
        async with self.lock(table_id):
            table = self.get(table_id)
            seat = table.seat_of(player.user_id)
            if seat is None or table.seats[seat].removed:
                raise TableError(t("You don't sit at this table."))
            if table.phase == "lobby":
                self._unseat(table, seat)
                await self._changed(table)
            else:
                line = t("{name} left the game", name=table.seats[seat].name)
                await self._remove(table, seat, line)
            return table

    async def kick(self, table_id: str, actor: Player, user_id: int) -> Table:
        """Unseat or remove a member; the host or a moderator may."""
        async with self.lock(table_id):
            table = self.get(table_id)
            self._check_host(table, actor)
            seat = table.seat_of(user_id)
            if seat is None or table.seats[seat].removed:
                raise TableError(t("That member doesn't sit at this table."))
            name = table.seats[seat].name
            if table.phase == "lobby":
                self._unseat(table, seat)
                table.log.append(t("{name} was removed from the table", name=name))
                await self._changed(table)
            else:
                await self._remove(table, seat, t("{name} was removed from the game", name=name))
            return table

    async def end(self, table_id: str, actor: Player) -> Table:
        """Close a table without a result; the host or a moderator may."""
        async with self.lock(table_id):
            table = self.get(table_id)
            self._check_host(table, actor)
            table.log.append(t("{name} ended the table", name=actor.name))
            await self._close(table, "ended")
            return table

    async def start(self, table_id: str, actor: Player) -> Table:
        """Deal: the host starts a lobby of enough players."""
        async with self.lock(table_id):
            table = self._lobby(table_id)
            if actor.user_id != table.host_id:
                raise TableError(t("Only the host can start the game."))
            count = len(table.seats)
            try:
                table.rules.check_players(count)
            except RulesError:
                raise TableError(
                    t(
                        "These rules need {low} to {high} players; the table has {count}.",
                        low=table.rules.min_players,
                        high=table.rules.max_players,
                        count=count,
                    )
                ) from None
            self._start(table)
            await self._changed(table)
            return table

    def _start(self, table: Table) -> None:
        table.game = Game.deal(
            table.rules,
            len(table.seats),
            seed=table.seed,
            previous_loser=table.previous_loser,
        )
        table.phase = "setup"
        table.started_at = self.clock()
        table.deadline = table.started_at + self.timing.setup_seconds
        table.log.append(t("The cards are dealt. Get ready!"))
        self._bump(table, None)

    def _lobby(self, table_id: str) -> Table:
        table = self.get(table_id)
        if table.phase != "lobby":
            raise TableError(t("The game has already started."))
        return table

    def _check_host(self, table: Table, actor: Player) -> None:
        if actor.user_id != table.host_id and not actor.moderator:
            raise TableError(t("Only the host or a moderator can do that."))

    def _unseat(self, table: Table, seat: int) -> None:
        gone = table.seats.pop(seat)
        if gone.user_id == table.host_id:
            humans = table.humans()
            if humans:
                table.host_id = table.seats[humans[0]].user_id
        table.deadline = self.clock() + self.timing.lobby_seconds

    async def _remove(self, table: Table, seat: int, line: str) -> None:
        """Take a seat out of a running game: the engine makes them the loser and ends it."""
        assert table.game is not None
        table.seats[seat].removed = True
        table.log.append(line)
        await self._after(table, seat, table.game.apply(Resign(seat)))

    # ------------------------------------------------------------------ playing

    async def viewer(self, table_id: str, user_id: int, version: int) -> tuple[Table, int]:
        """Check that a player's view is current (for menu choices that change nothing)."""
        async with self.lock(table_id):
            table = self.get(table_id)
            seat = self._player_seat(table, user_id, version)
            return table, seat

    def _player_seat(self, table: Table, user_id: int, version: int) -> int:
        """Find the clicking player's seat, refusing non-players, other turns, old views."""
        seat = table.seat_of(user_id)
        game = table.game
        if seat is None or game is None or table.seats[seat].removed:
            raise TableError(t("You're not playing at this table."))
        if game.phase == "play" and game.turn != seat:
            raise TableError(
                t("It isn't your turn: {name} is playing.", name=table.names[game.turn or 0])
            )
        if table.seats[seat].version != version:
            raise TableError(t("That was an old view. Use your latest one."))
        return seat

    async def act(
        self, table_id: str, user_id: int, version: int, verb: str, numbers: tuple[int, ...]
    ) -> Table:
        """Carry out a player's click from their private view, or refuse with words."""
        async with self.lock(table_id):
            table = self.get(table_id)
            seat = self._player_seat(table, user_id, version)
            game = table.game
            assert game is not None
            view = table.view(seat)
            action = controls.resolve(view, verb, numbers)
            if action is None:
                raise TableError(t("That move isn't available any more."))
            try:
                events = game.apply(action)
            except IllegalAction as error:
                raise TableError(render.refusal(error, action, view.table)) from None
            table.seats[seat].timeouts = 0
            await self._after(table, seat, events)
            return table

    async def _after(self, table: Table, seat: int, events: list[Event]) -> None:
        """Record what an action did, move the phase on, and announce it."""
        table.log.extend(render.describe(events, table.names))
        del table.log[:-LOG_LINES]
        self._bump(table, seat)
        for event in events:
            if isinstance(event, PlayStarted):
                table.phase = "play"
                self._new_turn(table)
            elif isinstance(event, GameOver):
                table.phase = "over"
                table.deadline = None
        if table.phase == "play" and any(isinstance(e, TurnPassed) for e in events):
            self._new_turn(table)
        if table.phase == "over":
            assert table.game is not None
            await self._finish(table, table.game.end_reason or "out")
            return
        await self._changed(table)

    def _new_turn(self, table: Table) -> None:
        table.deadline = self.clock() + table.turn_seconds
        table.reminded = False

    def _bump(self, table: Table, seat: int | None) -> None:
        """Count a change: the table's version, and the views it invalidates."""
        table.version += 1
        in_setup = table.game is not None and table.game.phase == "setup"
        for index, each in enumerate(table.seats):
            if not in_setup or seat is None or index == seat:
                each.version += 1

    # ------------------------------------------------------------------ timers

    def _plan(self, table: Table) -> tuple[float, str, int | None] | None:
        """Say when the table's timer fires next, for what and which seat."""
        now = self.clock()
        game = table.game
        if table.phase == "lobby" and table.deadline is not None:
            return table.deadline, "close", None
        if game is None or table.phase not in ("setup", "play"):
            return None
        delay = self.timing.computer_delay
        if table.phase == "setup":
            waiting = [s for s in game.to_act() if table.seats[s].automatic]
            if waiting:
                return now + delay, "auto", waiting[0]
            return (table.deadline or now), "setup_over", None
        turn = game.turn
        assert turn is not None
        if table.seats[turn].automatic:
            return now + delay, "auto", turn
        deadline = table.deadline or now
        remind_at = deadline - min(self.timing.remind_before, table.turn_seconds / 2)
        if not table.reminded and remind_at > now:
            return remind_at, "remind", turn
        return deadline, "timeout", turn

    def _schedule(self, table: Table) -> None:
        """(Re)start the table's timer task for its current state."""
        current = asyncio.current_task()
        old = self._timers.pop(table.id, None)
        if old is not None and old is not current:
            old.cancel()
        plan = self._plan(table)
        if plan is None:
            return
        self._timers[table.id] = asyncio.create_task(
            self._fire(table.id, table.version, plan), name=f"table-{table.id}-timer"
        )

    async def _fire(self, table_id: str, version: int, plan: tuple[float, str, int | None]) -> None:
        """Wait for the planned moment and carry it out if the table has not moved since."""
        when, kind, seat = plan
        await self.sleep(max(0.0, when - self.clock()))
        table = self.tables.get(table_id)
        if table is None or not table.open:
            return
        move: Action | None = None
        if kind == "auto" and seat is not None:
            view = table.view(seat)
            strategy = table.seats[seat].computer or AUTO_STRATEGY
            move = await asyncio.to_thread(self.chooser, strategy, view, table.seed + version)
        try:
            async with self.lock(table_id):
                if table.version != version or not table.open:
                    return
                await self._fired(table, kind, seat, move)
        except Exception:
            log.exception("table %s: the %s timer failed", table_id, kind)

    async def _fired(self, table: Table, kind: str, seat: int | None, move: Action | None) -> None:
        if kind == "close":
            table.log.append(t("The lobby closed: nobody started a game."))
            await self._close(table, "abandoned")
        elif kind == "remind" and seat is not None:
            table.reminded = True
            self._schedule(table)
            await self._persist(table)
            if self.listener is not None:
                await self.listener.remind(table, seat)
        elif kind == "auto" and seat is not None and move is not None:
            await self._apply_auto(table, seat, move)
        elif kind == "setup_over":
            await self._finish_setup(table)
        elif kind == "timeout" and seat is not None:
            await self._timeout(table, seat)

    async def _apply_auto(self, table: Table, seat: int, move: Action) -> None:
        assert table.game is not None
        try:
            events = table.game.apply(move)
        except IllegalAction:
            log.exception("table %s: the computer's move %r was refused", table.id, move)
            events = table.game.apply(_fallback(table.view(seat)))
        await self._after(table, seat, events)

    async def _timeout(self, table: Table, seat: int) -> None:
        """A member let their turn run out: play the basic move for them, maybe remove them."""
        assert table.game is not None
        player = table.seats[seat]
        player.timeouts += 1
        table.log.append(t("{name} ran out of time; the bot played for them", name=player.name))
        if player.timeouts >= table.idle_turns:
            line = t(
                "{name} missed {count} turns in a row and is out",
                name=player.name,
                count=player.timeouts,
            )
            await self._remove(table, seat, line)
            return
        move = self.chooser(AUTO_STRATEGY, table.view(seat), table.seed + table.version)
        await self._apply_auto(table, seat, move)

    async def _finish_setup(self, table: Table) -> None:
        """The setup timer ran out: everyone not ready is made ready as they are."""
        game = table.game
        assert game is not None
        events: list[Event] = []
        for seat in list(game.to_act()):
            for _ in range(MAX_SETUP_STEPS):
                if game.phase != "setup" or game.ready[seat]:
                    break
                legal = game.legal_actions(seat)
                ready = next((a for a in legal if isinstance(a, Ready)), None)
                choose = next((a for a in legal if isinstance(a, Choose)), None)
                step = ready or choose
                if step is None:
                    break
                events.extend(game.apply(step))
        await self._after(table, 0, events)

    # ------------------------------------------------------------------ endings

    async def _finish(self, table: Table, reason: str) -> None:
        table.ended_reason = reason
        table.ended_at = self.clock()
        self.ended[table.id] = table
        self._forget(table)
        if self.store is not None:
            await self.store.finish(table)
        self._announce(table)

    async def _close(self, table: Table, reason: str) -> None:
        table.phase = "closed"
        table.ended_reason = reason
        table.ended_at = self.clock()
        table.deadline = None
        self._bump(table, None)
        self._forget(table)
        if self.store is not None:
            await self.store.delete(table.id)
        self._announce(table)

    def _forget(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        timer = self._timers.pop(table.id, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
        while len(self.ended) > 200:
            self.ended.pop(next(iter(self.ended)))

    # ------------------------------------------------------------------ persistence

    async def _changed(self, table: Table) -> None:
        """Keep the timer, the store and the listener up to date after a change."""
        if table.phase == "lobby" and not table.humans():
            await self._close(table, "abandoned")
            return
        self._schedule(table)
        await self._persist(table)
        self._announce(table)

    async def _persist(self, table: Table) -> None:
        if self.store is not None:
            await self.store.save(table)

    def _announce(self, table: Table) -> None:
        if self.listener is not None:
            self.listener.changed(table)

    async def restore(self) -> list[Table]:
        """Load every running table from the store and restart its timers."""
        if self.store is None:
            return []
        restored = await self.store.load()
        for table in restored:
            self.tables[table.id] = table
            self._schedule(table)
        return restored

    async def persist_message(self, table: Table, message_id: int) -> None:
        """Remember the table message's id."""
        async with self.lock(table.id):
            table.message_id = message_id
            if table.open:
                await self._persist(table)

    async def persist(self, table: Table) -> None:
        """Save a table after the Discord layer changed its message bookkeeping."""
        async with self.lock(table.id):
            if table.open:
                await self._persist(table)

    async def shutdown(self) -> None:
        """Stop every timer (the tables stay stored)."""
        for task in self._timers.values():
            task.cancel()
        for task in list(self._timers.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._timers.clear()

    def _new_id(self) -> str:
        while True:
            table_id = secrets.token_hex(4)
            if table_id not in self.tables and table_id not in self.ended:
                return table_id


def _fallback(view: PlayerView) -> Action:
    """Pick the simplest legal move: a single lowest card, else pick up, else the first."""
    plays = [a for a in view.legal if isinstance(a, Play) and len(a.cards) == 1]
    if plays:
        return plays[0]
    return next((a for a in view.legal if isinstance(a, PickUp)), view.legal[0])


def record_time(moment: float) -> datetime:
    """Turn a stored clock reading into an aware datetime for the game record."""
    return datetime.fromtimestamp(moment, UTC)
