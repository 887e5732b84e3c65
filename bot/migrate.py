"""`python -m bot.migrate`: bring a database to the newest schema, or copy one into another.

    python -m bot.migrate                      # the database of DATABASE_URL / DATABASE_PATH
    python -m bot.migrate postgresql://…       # a database named on the command line
    python -m bot.migrate --from sqlite:///data/shithead.sqlite3 --to postgresql://…

The bot migrates its database at start too (one process at a time); this runs it ahead of a
deploy. A copy moves every table (servers' settings, finished games and their players,
running and recently ended tables, message references) into an empty database, all or
nothing; the source is brought to the newest schema first and is otherwise left as it is.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Iterator, Sequence

from bot.database import DatabaseUrl, StorageError
from bot.instance import InstanceError, InstanceLock
from bot.settings import SettingsError, get_settings
from bot.storage import Storage

# The exit status for a mistake a person can fix.
USAGE = 2

# What each table holds, in words, for the copy's report.
_WHAT = {
    "games": "finished games",
    "game_players": "players of finished games",
    "guild_settings": "servers' settings",
    "running_tables": "running or recently ended tables",
    "message_refs": "message references",
    "seat_ratings": "rated seats of finished games",
    "player_ratings": "players' latest ratings",
}


def _url(text: str) -> DatabaseUrl:
    """Read a database URL for argparse, which names the option in its error."""
    try:
        return DatabaseUrl.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not usable: {exc}") from None


def build_parser() -> argparse.ArgumentParser:
    """Describe the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.migrate",
        description=(
            "Bring the bot's database to the newest schema, or copy everything from one "
            "database into another, empty one (say from SQLite to PostgreSQL)."
        ),
    )
    parser.add_argument(
        "url",
        nargs="?",
        type=_url,
        help="the database to migrate (default: DATABASE_URL, else the DATABASE_PATH file)",
    )
    parser.add_argument(
        "--from",
        dest="source",
        metavar="URL",
        type=_url,
        help="copy from this database (sqlite:///path or postgresql://…); no bot may run on it",
    )
    parser.add_argument(
        "--to",
        dest="target",
        metavar="URL",
        type=_url,
        help="copy into this database, which must hold no data yet",
    )
    return parser


@contextlib.contextmanager
def _held(url: DatabaseUrl, option: str) -> Iterator[None]:
    """Refuse a missing SQLite source, and hold its file so no bot writes during the copy."""
    if url.dialect != "sqlite":
        yield
        return
    if not url.path.is_file():
        raise StorageError(f"{option} names {url.shown()}, which is not a file: check the path.")
    with InstanceLock(url.path, option):
        yield


async def migrate_one(url: DatabaseUrl) -> str:
    """Migrate one database; say its version."""
    storage = await Storage.open(url)
    try:
        version = await storage.database.schema_version()
    finally:
        await storage.close()
    return f"{url.shown()} is at schema version {version}, the newest."


async def copy(source: DatabaseUrl, target: DatabaseUrl) -> str:
    """Copy every row from one database into another, empty one; say what was copied."""
    if source == target:
        raise StorageError("--from and --to name the same database: give two databases.")
    with _held(source, "--from"):
        origin = await Storage.open(source)
        try:
            destination = await Storage.open(target)
            try:
                counts = await destination.copy_from(origin)
            finally:
                await destination.close()
        finally:
            await origin.close()
    what = ", ".join(f"{counts[table]} {words}" for table, words in _WHAT.items())
    return f"Copied {what} from {source.shown()} to {target.shown()}."


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.source is None) != (args.target is None):
        parser.error("--from and --to go together: a copy needs both databases")
    if args.source is not None and args.url is not None:
        parser.error("give either a database to migrate or --from and --to, not both")
    try:
        if args.source is not None:
            line = asyncio.run(copy(args.source, args.target))
        else:
            line = asyncio.run(migrate_one(args.url or get_settings().database))
    except (SettingsError, StorageError, InstanceError) as exc:
        print(exc, file=sys.stderr)
        return USAGE
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
