"""Libraries the bot may not need load only when used: Pillow, and asyncpg for PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Imports what `python -m bot` starts with, renders a table message and a member's view
# with pictures off (with an argument: draws a table picture too), then says whether
# Pillow is loaded.
SCRIPT = """
import dataclasses, sys
import bot.__main__, bot.client, bot.database, bot.presenter, bot.storage
from bot.bench_pictures import classic_three
from bot.pictures import table_picture
from bot.rendering import render_private, render_table

off = dataclasses.replace(classic_three(), pictures=False)
render_table(off, "en")
render_private(off, 0, "en", "#table")
if len(sys.argv) > 1:
    table_picture(classic_three(), "en").data
print("PIL" in sys.modules, "asyncpg" in sys.modules)
"""


def loaded(*argv: str) -> dict[str, bool]:
    """Run SCRIPT in a fresh interpreter and read whether it imported Pillow and asyncpg."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    pillow, asyncpg = done.stdout.split()[-2:]
    return {"PIL": pillow == "True", "asyncpg": asyncpg == "True"}


def test_the_bot_with_pictures_off_never_imports_pillow() -> None:
    assert not loaded()["PIL"]


def test_drawing_a_picture_imports_pillow() -> None:
    assert loaded("draw")["PIL"]


def test_the_bot_imports_asyncpg_only_to_use_postgresql() -> None:
    assert not loaded()["asyncpg"]
