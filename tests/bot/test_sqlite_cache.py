"""The bot's SQLite connection keeps a small page cache: its memory is counted."""

from __future__ import annotations

from pathlib import Path

from bot.database import SQLITE_CACHE_KIB, SqliteDatabase, migrations_for


async def test_the_sqlite_page_cache_is_kept_small(tmp_path: Path) -> None:
    database = await SqliteDatabase.open(tmp_path / "bot.db", migrations_for("sqlite"))
    try:
        [row] = await database.fetch("PRAGMA cache_size")
    finally:
        await database.close()
    assert row[0] == -SQLITE_CACHE_KIB
