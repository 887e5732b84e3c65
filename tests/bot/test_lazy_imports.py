"""Libraries the bot may not need load only when used (Pillow, asyncpg for PostgreSQL), and
Babel not at all: the bot reads its catalogs and writes its numbers itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Imports what `python -m bot` starts with, renders a table message, a member's view and a
# rating change with pictures off (with an argument: draws a table picture too), then says
# whether Pillow, asyncpg and Babel are loaded.
SCRIPT = """
import dataclasses, sys
import bot.__main__, bot.client, bot.database, bot.presenter, bot.storage
from bot.bench_pictures import classic_three
from bot.pictures import table_picture
from bot.ratings import NEWCOMER, Change, Rating
from bot.rendering import render_private, render_table
from bot.words import rating_line

off = dataclasses.replace(classic_three(), pictures=False)
render_table(off, "en")
render_private(off, 0, "en", "#table")
rating_line("Ana", Change(NEWCOMER, Rating(26.0, 8.0)), "de")
if len(sys.argv) > 1:
    table_picture(classic_three(), "en").data
print(*(name in sys.modules for name in ("PIL", "asyncpg", "babel")))
"""


def loaded(*argv: str) -> dict[str, bool]:
    """Run SCRIPT in a fresh interpreter and read which of the libraries it imported."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    pillow, asyncpg, babel = done.stdout.split()[-3:]
    return {"PIL": pillow == "True", "asyncpg": asyncpg == "True", "babel": babel == "True"}


def test_the_bot_with_pictures_off_never_imports_pillow() -> None:
    assert not loaded()["PIL"]


def test_drawing_a_picture_imports_pillow() -> None:
    assert loaded("draw")["PIL"]


def test_the_bot_imports_asyncpg_only_to_use_postgresql() -> None:
    assert not loaded()["asyncpg"]


def test_the_bot_reads_its_catalogs_and_writes_its_numbers_without_babel() -> None:
    assert not loaded()["babel"]
