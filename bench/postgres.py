"""A throwaway PostgreSQL cluster for tests and benches: initdb and pg_ctl in a temp folder.

The server listens only on a Unix socket in its own folder, so clusters of parallel runs never
meet. initdb refuses to run as root, so as root the server runs as the `postgres` user that
Debian's `postgresql` package creates.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]

from bot.database import DatabaseUrl

MISSING = (
    "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: install the Debian "
    "package postgresql (apt-get install postgresql) to run the PostgreSQL tests"
)
_PORT = 5432


def server_binaries() -> Path | None:
    """Find the newest installed PostgreSQL's bin folder, if any."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda path: int(path.split("/")[4])
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_server_user() -> list[str]:
    """Say how to run a server command: as root, through `runuser` as `postgres`."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError(f"running as root needs the postgres user; {MISSING}") from None
    return ["runuser", "-u", "postgres", "--"]


class Cluster:
    """One PostgreSQL server in a temporary folder, trusting local connections."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="shithead-pg-"))
        self.data = self.folder / "data"
        self._prefix = _as_server_user()
        self._names = itertools.count(1)
        if self._prefix:
            shutil.chown(self.folder, user="postgres")

    def _run(self, *command: str) -> None:
        subprocess.run(
            [*self._prefix, *command], check=True, capture_output=True, text=True, timeout=120
        )

    def start(self) -> None:
        """Create the cluster and start its server (fsync off: nothing here must survive)."""
        self._run(
            str(self.binaries / "initdb"), "-D", str(self.data), "-U", "postgres",
            "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
        )  # fmt: skip
        options = (
            f"-k {self.folder} -p {_PORT} -c listen_addresses= -c fsync=off "
            "-c full_page_writes=off -c synchronous_commit=off -c max_connections=200"
        )
        self._run(
            str(self.binaries / "pg_ctl"), "-D", str(self.data), "-l",
            str(self.folder / "server.log"), "-w", "-o", options, "start",
        )  # fmt: skip

    def stop(self) -> None:
        """Stop the server and remove its folder."""
        try:
            self._run(
                str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"
            )
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str) -> DatabaseUrl:
        """Name one database of the cluster."""
        return DatabaseUrl.parse(
            f"postgresql://postgres@/{database}?host={self.folder}&port={_PORT}"
        )

    async def new_database(self) -> DatabaseUrl:
        """Create an empty database of its own for one test."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        admin = await asyncpg.connect(self.url("postgres").target)
        try:
            await admin.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        finally:
            await admin.close()
        return self.url(name)
