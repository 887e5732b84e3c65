"""Databases for the storage tests: an SQLite file, or a database on a throwaway PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.postgres import MISSING, Cluster, server_binaries
from bot.database import DatabaseUrl


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """Start one PostgreSQL server for the session (skip, naming the package, without one)."""
    binaries = server_binaries()
    if binaries is None:
        pytest.skip(MISSING)
    cluster = Cluster(binaries)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> DatabaseUrl:
    """An empty database of each dialect, one per test."""
    if request.param == "sqlite":
        return DatabaseUrl.sqlite(tmp_path / "bot.sqlite3")
    cluster: Cluster = request.getfixturevalue("postgres")
    return await cluster.new_database()
