"""One bot per database: check the database path before use, and hold a lock while running.

The lock is an `fcntl.flock` on `<database>.lock`, a file that also says who holds it (pid
and host). The kernel releases it when the holder's process ends, however it ends (kill -9
included), so a crashed bot never blocks the next one.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from bot.settings import SettingsError

# The first 16 bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"


class InstanceError(Exception):
    """Another bot process holds the database; the message names it."""


def _can_create_in(folder: Path) -> bool:
    """Say whether this process can create a file in a folder (a real try, then removed)."""
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=".shithead-probe-")
    except OSError:
        return False
    os.close(handle)
    os.unlink(name)
    return True


def check_database_path(path: Path, setting: str) -> None:
    """Refuse a database path the bot could not use, naming the setting; change nothing."""
    if str(path) == ":memory:":
        return
    shown = f"{setting} is {path}"
    if path.is_dir():
        raise SettingsError(
            f"{shown}, which is a folder: point {setting} at a file, "
            f"such as {path / 'shithead.sqlite3'}."
        )
    if path.exists():
        if not path.is_file():
            raise SettingsError(f"{shown}, which is not a regular file: point it at a file.")
        try:
            with path.open("r+b") as file:
                header = file.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise SettingsError(
                f"{shown}, which this user cannot open for writing ({exc.strerror}): "
                f"make it writable, or point {setting} at another file."
            ) from None
        if header and header != SQLITE_HEADER:
            raise SettingsError(
                f"{shown}, which is not an SQLite database (it was left as it is): "
                f"point {setting} at another file."
            )
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise SettingsError(
            f"{shown}, but {folder} is a file, not a folder: point {setting} at a path "
            "whose folders are folders."
        )
    if not _can_create_in(folder):
        raise SettingsError(
            f"{shown}, but this user cannot create files in {folder}: make that folder "
            f"writable, or point {setting} at another place."
        )


def lock_path(database: Path) -> Path:
    """Name the lock file of a database: `<database>.lock`."""
    return database.with_name(f"{database.name}.lock")


def _holder(text: str) -> str:
    """Describe the process a lock file names (or say it is unknown)."""
    try:
        data = json.loads(text)
        return f"pid {int(data['pid'])} on {data['host']}, since {data['since']}"
    except (ValueError, KeyError, TypeError):
        return "a process that did not say its pid"


class InstanceLock:
    """Hold `<database>.lock` while the bot runs; a second holder is refused at once."""

    def __init__(self, database: Path, setting: str = "DATABASE_PATH") -> None:
        self.database = database
        self.setting = setting
        self.path = lock_path(database)
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise `InstanceError` naming the process that has it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, 4096, 0).decode("utf-8", "replace")
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            raise InstanceError(
                f"Another bot ({_holder(holder)}) is running on {self.database}: stop it "
                f"first, or point {self.setting} at another file."
            ) from None
        me = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(me) + "\n").encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Let the lock go (the file stays, emptied, so no other process's lock is lost)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # closing the last descriptor releases the flock

    def __enter__(self) -> InstanceLock:
        """Take the lock for the block."""
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Let the lock go."""
        self.release()
