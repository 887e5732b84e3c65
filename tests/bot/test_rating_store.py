"""Ratings on SQLite and PostgreSQL: games rated in order, read back, recomputed exactly."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bench.postgres import Cluster
from bot.database import DatabaseUrl, migrations_for
from bot.rating_store import RatingStore
from bot.ratings import NEWCOMER, Change, Seat, main, replay
from bot.storage import GameRecord, PlayerRecord, Storage, _timestamp, load_migrations
from bot.table_store import StorageTableStore
from tables.intents import Leave
from tests.bot.test_table_store import Services, clock, playing, services
from tests.tables.test_service import ANA, BEN, CID

__all__ = ["clock", "services"]

START = datetime(2024, 5, 1, 12, tzinfo=UTC)
ANN, BO, CY = (10, "ann"), (11, "bo"), (12, "cy")


def human(who: tuple[int, str], place: int | None, loser: bool = False) -> PlayerRecord:
    return PlayerRecord(who[0], who[1], False, place, loser)


def computer(number: int, level: str, place: int | None, loser: bool = False) -> PlayerRecord:
    return PlayerRecord(0, f"Computer {number} ({level})", True, place, loser, level)


async def record_before_levels(storage: Storage, record: GameRecord) -> int:
    """Record a game as the bot did before 0009, with the columns of 0001 (no computer level)."""
    async with storage.database.transaction() as db:
        [(game_id,)] = await db.fetch(
            "INSERT INTO games (guild_id, channel_id, preset, rules, started_at, ended_at, "
            "moves, end_reason) VALUES (?, ?, ?, '{}', ?, ?, ?, ?) RETURNING id",
            (
                record.guild_id,
                record.channel_id,
                record.preset,
                _timestamp(record.started_at),
                _timestamp(record.ended_at),
                record.moves,
                record.end_reason,
            ),
        )
        await db.executemany(
            "INSERT INTO game_players (game_id, seat, user_id, name, is_bot, place, loser) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (game_id, seat, p.user_id, p.name, int(p.is_bot), p.place, int(p.loser))
                for seat, p in enumerate(record.players)
            ],
        )
    return int(game_id)


def game(guild: int, minutes: int, *players: PlayerRecord, reason: str = "out") -> GameRecord:
    ended = START + timedelta(minutes=minutes)
    return GameRecord(guild, 2, "classic", {}, ended, ended, 30, reason, list(players))


# A series as the table store records it: places in loser mode, a winner-mode game (only the
# winner placed: the others tie), a leaver (the Shithead, the rest placed by fewest cards), two
# computers of one level at one table, and another server.
SERIES = [
    game(1, 1, human(ANN, 1), human(BO, 2), human(CY, None, True)),
    game(1, 2, human(BO, 1), human(ANN, None), human(CY, None)),
    game(1, 3, human(CY, 1), human(ANN, None, True), human(BO, 2), reason="resigned"),
    game(1, 4, computer(1, "basic", 1), human(ANN, 2), computer(2, "basic", None, True)),
    game(9, 5, human(ANN, None, True), human(BO, 1)),
    game(1, 6, human(ANN, 1), computer(1, "expert", 2), human(BO, None, True)),
]


@pytest.fixture
async def storage(database_url: DatabaseUrl) -> AsyncIterator[Storage]:
    opened = await Storage.open(database_url)
    yield opened
    await opened.close()


async def play(storage: Storage, *games: GameRecord) -> None:
    """Record games one by one and rate each as the bot does when a game ends."""
    ratings = RatingStore(storage)
    for each in games:
        await storage.record_game(each)
        assert await ratings.rate_unrated() == 1


async def test_stored_ratings_are_the_recomputed_ones_after_a_series(storage: Storage) -> None:
    await play(storage, *SERIES)
    ratings = RatingStore(storage)
    found = await ratings.recompute(write=False)
    assert (found.games, found.seats, found.differing, found.unrated) == (6, 17, 0, 0)
    assert (found.largest, found.players, found.agrees) == (0.0, 0, True)

    # The same games through the maths alone, server 1 only.
    alone = rated(
        [Seat("ann", 1), Seat("bo", 2), Seat("cy", 3)],
        [Seat("bo", 1), Seat("ann", 2), Seat("cy", 2)],
        [Seat("cy", 1), Seat("ann", 3), Seat("bo", 2)],
        [Seat("basic", 1), Seat("ann", 2), Seat("basic", 3)],
        [Seat("ann", 1), Seat("expert", 2), Seat("bo", 3)],
    )
    rows = {row.identity: row for row in await ratings.standings(1)}
    assert rows["member:10"].rating == alone[4][0].after
    assert rows["member:10"].games == 5
    assert rows["member:11"].rating == alone[4][2].after
    assert rows["member:12"].rating == alone[2][0].after
    assert rows["computer:basic"].rating == alone[3][0].after == alone[3][2].after
    assert rows["computer:basic"].games == 1  # two seats of one game
    assert rows["computer:expert"].last_change.before == NEWCOMER
    ann_seats = [(0, 0), (1, 1), (2, 1), (3, 1), (4, 0)]
    history = await ratings.member_history(1, ANN[0])
    assert history == [alone[game][seat] for game, seat in ann_seats]
    # Another server rates its members apart.
    elsewhere = await ratings.member_history(9, ANN[0])
    assert len(elsewhere) == 1 and elsewhere[0].before == NEWCOMER


def rated(*games: list[Seat]) -> list[list[Change]]:
    return replay(games)


async def test_only_unrated_games_are_rated_and_a_game_is_found_by_its_end(
    storage: Storage,
) -> None:
    ratings = RatingStore(storage)
    assert await ratings.rate_unrated() == 0
    first = await storage.record_game(SERIES[0])
    second = await storage.record_game(SERIES[1])
    assert await ratings.game_changes(first) == []
    assert await ratings.rate_unrated() == 2
    assert await ratings.rate_unrated() == 0
    changes = await ratings.game_changes(second)
    assert (
        changes
        == rated(
            [Seat("ann", 1), Seat("bo", 2), Seat("cy", 3)],
            [Seat("bo", 1), Seat("ann", 2), Seat("cy", 2)],
        )[1]
    )
    assert await ratings.game_at(1, 2, START + timedelta(minutes=2)) == second
    assert await ratings.game_at(1, 2, START + timedelta(minutes=3)) is None
    assert await ratings.game_at(1, 3, START + timedelta(minutes=2)) is None


async def test_a_game_end_rates_after_the_last_rated_game_and_a_start_catches_up(
    storage: Storage,
) -> None:
    await play(storage, *SERIES[:3])
    ratings = RatingStore(storage)
    # The first game unrated behind rated ones (as if another process had recorded it late).
    async with storage.database.transaction() as db:
        await db.execute("DELETE FROM seat_ratings WHERE game_id = 1")
    await play(storage, SERIES[3])  # a game's end rates its own game only
    assert await ratings.game_changes(1) == []
    assert not (await ratings.recompute(write=False)).agrees
    # At start, the older game is rated and every later one again, in order.
    assert await ratings.catch_up() == 1
    assert (await ratings.recompute(write=False)).agrees
    assert await ratings.catch_up() == 0
    # Unrated games only after the last rated one are rated on from their players' ratings.
    await storage.record_game(SERIES[4])
    await storage.record_game(SERIES[5])
    assert await ratings.catch_up() == 2
    assert (await ratings.recompute(write=False)).agrees


async def test_a_computer_is_rated_by_its_recorded_level_not_its_name(storage: Storage) -> None:
    renamed = PlayerRecord(0, "Robo", True, 2, False, "expert")
    await play(storage, game(1, 1, human(ANN, 1), renamed, computer(2, "basic", None, True)))
    rows = {row.identity: row.name for row in await RatingStore(storage).standings(1)}
    assert rows == {
        "member:10": "ann",
        "computer:expert": "Robo",
        "computer:basic": "Computer 2 (basic)",
    }


async def test_the_period_keeps_players_who_played_in_it(storage: Storage) -> None:
    await play(storage, *SERIES)
    recent = await RatingStore(storage).standings(1, since=START + timedelta(minutes=4))
    assert sorted(row.identity for row in recent) == [
        "computer:basic",
        "computer:expert",
        "member:10",
        "member:11",
    ]


async def test_a_forgotten_member_has_no_rating_left(storage: Storage) -> None:
    await play(storage, *SERIES[:2])
    await storage.forget_member(ANN[0])
    ratings = RatingStore(storage)
    assert "member:10" not in {row.identity for row in await ratings.standings(1)}
    assert await ratings.member_history(1, ANN[0]) == []
    # The forgotten seats stay in the games; a new game is rated on.
    await play(storage, game(1, 10, human(BO, 1), human(CY, None, True)))
    assert (await ratings.standings(1))[0].games == 3


async def test_recompute_finds_and_repairs_a_wrong_rating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bot.sqlite3"  # the command names an SQLite file
    storage = await Storage.open(path)
    try:
        await recompute_repairs(storage, path, capsys)
    finally:
        await storage.close()


async def recompute_repairs(
    storage: Storage, path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Spoil two stored ratings; the command finds them, repairs them, then finds none."""
    await play(storage, *SERIES)
    before = await RatingStore(storage).standings(1)
    async with storage.database.transaction() as db:
        await db.execute("UPDATE seat_ratings SET mu = mu + 0.5 WHERE game_id = 2 AND seat = 0")
        await db.execute("DELETE FROM player_ratings WHERE who = 'member:12'")

    assert await asyncio.to_thread(main, ["recompute", "--database", str(path), "--check"]) == 1
    assert capsys.readouterr().out == (
        "6 games, 17 seats rated again from nothing; stored ratings that differed: 1 "
        "(largest difference 0.5), seats not rated yet: 0, players' latest ratings that "
        "differed: 1.\n"
    )
    assert await asyncio.to_thread(main, ["recompute", "--database", str(path)]) == 0
    assert capsys.readouterr().out.endswith("; stored the derived ratings.\n")
    assert await asyncio.to_thread(main, ["recompute", "--database", str(path), "--check"]) == 0
    found = await RatingStore(storage).recompute(write=False)
    assert found.agrees
    assert sorted(await RatingStore(storage).standings(1), key=str) == sorted(before, key=str)


# The version that stores the computers' levels: the versions before it wrote none.
LEVELS = next(m.version for m in load_migrations() if m.name == "computer_level")


@pytest.mark.parametrize("start", range(1, LEVELS))
async def test_games_recorded_before_ratings_are_all_rated_after_the_upgrade(
    tmp_path: Path, start: int
) -> None:
    path = tmp_path / "old.sqlite3"
    old = await Storage.open(path, migrations=load_migrations()[:start])
    for each in SERIES:
        await record_before_levels(old, each)
    await old.close()

    storage = await Storage.open(path)
    try:
        ratings = RatingStore(storage)
        assert await ratings.standings(1) == []
        assert await ratings.catch_up() == 6
        found = await ratings.recompute(write=False)
        assert (found.games, found.agrees) == (6, True)
        # The computers' levels were read out of their recorded names.
        identities = {row.identity for row in await ratings.standings(1)}
        assert {"computer:basic", "computer:expert"} <= identities
        assert [
            tuple(row) for row in await storage.database.fetch("SELECT COUNT(*) FROM games")
        ] == [(6,)]
    finally:
        await storage.close()


async def test_the_upgrade_reads_the_computers_levels_out_of_their_names(
    database_url: DatabaseUrl,
) -> None:
    old = await Storage.open(
        database_url, migrations=migrations_for(database_url.dialect)[: LEVELS - 1]
    )
    assert await old.database.schema_version() == LEVELS - 1
    odd = PlayerRecord(0, "Robo", True, 2, False)
    await record_before_levels(old, game(1, 1, human(ANN, 1), computer(2, "expert", 3), odd))
    await old.close()

    storage = await Storage.open(database_url)
    try:
        rows = await storage.database.fetch("SELECT seat, level FROM game_players ORDER BY seat")
        # A name without a level in brackets (none was ever recorded so) is taken whole.
        assert [tuple(row) for row in rows] == [(0, None), (1, "expert"), (2, "Robo")]
    finally:
        await storage.close()


async def test_a_game_that_ends_is_rated_and_its_changes_kept_for_its_end_message(
    storage: Storage, services: Services
) -> None:
    service = services(storage, None)
    table = await playing(service)
    await service.submit(table.id, BEN, Leave())
    assert isinstance(service.store, StorageTableStore)
    # Ana and Cid placed by fewest cards, Ben (who left) the Shithead.
    places = [(await storage.played_games(10, p.user_id))[0].place for p in (ANA, BEN, CID)]
    order = {1: 1, None: 3, 2: 2}
    expected = rated(
        [Seat(p.name, order[place]) for p, place in zip((ANA, BEN, CID), places, strict=True)]
    )[0]
    assert service.store.rating_changes == {table.id: tuple(expected)}

    # A restarted bot finds them again for the ended table it redraws.
    fresh = services(storage, None)
    await fresh.restore()
    assert isinstance(fresh.store, StorageTableStore)
    assert fresh.store.rating_changes == {table.id: tuple(expected)}


async def test_two_processes_rating_at_once_rate_each_game_once(postgres: Cluster) -> None:
    url = await postgres.new_database()
    first, second = await Storage.open(url), await Storage.open(url)
    try:
        for each in SERIES:
            await first.record_game(each)
        # Two bots starting at once both rate what is unrated: one waits for the other.
        counts = await asyncio.gather(
            RatingStore(first).rate_unrated(), RatingStore(second).rate_unrated()
        )
        assert sorted(counts) == [0, len(SERIES)]
        assert (await RatingStore(second).recompute(write=False)).agrees
    finally:
        await first.close()
        await second.close()
