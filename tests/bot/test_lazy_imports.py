"""Libraries the bot may not need load only when used (Pillow, asyncpg for PostgreSQL, the
process pool for computer moves), and Babel not at all: the bot reads its catalogs and writes
its numbers itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Imports what `python -m bot` starts with, starts a move pool, renders a table message, a
# member's view and a rating change with pictures off (with an argument: draws a table picture
# too), then says whether Pillow, asyncpg, Babel and multiprocessing are loaded.
SCRIPT = """
import dataclasses, sys
import bot.__main__, bot.client, bot.database, bot.presenter, bot.storage
from bot.bench_pictures import classic_three
from bot.pictures import table_picture
from bot.ratings import NEWCOMER, Change, Rating
from bot.rendering import render_private, render_table
from bot.words import rating_line
from tables.movers import MovePool

MovePool(1).start()
off = dataclasses.replace(classic_three(), pictures=False)
render_table(off, "en")
render_private(off, 0, "en", "#table")
rating_line("Ana", Change(NEWCOMER, Rating(26.0, 8.0)), "de")
if len(sys.argv) > 1:
    table_picture(classic_three(), "en").data
names = ("PIL", "asyncpg", "babel", "multiprocessing", "concurrent.futures.process")
print(*(name in sys.modules for name in names))
"""


def loaded(*argv: str) -> dict[str, bool]:
    """Run SCRIPT in a fresh interpreter and read which of the libraries it imported."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    names = ("PIL", "asyncpg", "babel", "multiprocessing", "process pool")
    return dict(zip(names, (word == "True" for word in done.stdout.split()[-5:]), strict=True))


def test_the_bot_with_pictures_off_never_imports_pillow() -> None:
    assert not loaded()["PIL"]


def test_drawing_a_picture_imports_pillow() -> None:
    assert loaded("draw")["PIL"]


def test_the_bot_imports_asyncpg_only_to_use_postgresql() -> None:
    assert not loaded()["asyncpg"]


def test_the_bot_reads_its_catalogs_and_writes_its_numbers_without_babel() -> None:
    assert not loaded()["babel"]


def test_a_move_pool_no_computer_seat_used_never_imports_multiprocessing() -> None:
    imported = loaded()
    assert not imported["multiprocessing"] and not imported["process pool"]
