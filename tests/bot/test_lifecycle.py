"""SIGTERM stops the bot cleanly, one bot holds a database, the sandbox keeps its own world.

The real run is tested as a process of its own (this module run as
`python -m tests.bot.test_lifecycle API_BASE GATEWAY_URL TOKEN DATABASE SETTLE`, the path
`python -m bot --production` takes, pointed at a sandbox in the test's process); the sandbox
run as `python -m bot` itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import uvloop

from bot.client import use_discord_at
from bot.i18n import DEFAULT_LOCALE
from bot.lifecycle import YOUNG_OBJECTS, Patience, run_until_stopped
from bot.logs import setup_logging
from bot.rendering import render_table
from sandbox.driver import Driver
from sandbox.server import Sandbox
from sandbox.testing import running_sandbox
from tables.model import Table
from tables.outcome import snapshot
from tests.bot.restart_bot import make_bot
from tests.bot.test_play_e2e import ROOMY, footer, open_table
from tests.bot.test_restart_e2e import JSON, NAMES, mark, move, stored, tail

ROOT = Path(__file__).resolve().parents[2]
# Redraws of the other players' views wait this long, so a SIGTERM right after a move
# surely finds writes still pending: the bot must flush them before it exits.
SETTLE = 0.3


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a bot process: the sources importable, no stray settings."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DISCORD_", "DATABASE_", "SANDBOX_", "LOG_LEVEL"))
    }
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


# ---------------------------------------------------------------------- the real run


def shown(driver: Driver, message_id: str) -> JSON:
    """The table message's embed as the channel shows it."""
    channel = driver.messages("general", limit=10_000)
    embed: JSON = next(m for m in channel if m["id"] == message_id)["embeds"][0]
    return embed


def drawn(table: Table) -> JSON:
    """The table message's embed as the bot draws a stored table."""
    return render_table(snapshot(table), DEFAULT_LOCALE).embeds[0].to_dict()  # type: ignore[return-value]


@contextlib.asynccontextmanager
async def real_bot(
    sandbox: Sandbox, database: Path, log: Path
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Run the bot's real run path in a process of its own, connected to the sandbox."""
    with log.open("ab") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.bot.test_lifecycle",
            sandbox.api_base,
            sandbox.gateway_url,
            sandbox.token,
            str(database),
            str(SETTLE),
            cwd=ROOT,
            env=child_env(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        try:
            await sandbox.driver.wait_ready(timeout=20)
            # on_ready (and its log line) comes a moment after the gateway connection.
            await sandbox.driver.wait_until(lambda: "connected as" in tail(log), timeout=20)
        except TimeoutError:
            raise AssertionError(f"the bot did not connect:\n{tail(log)}") from None
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_sigterm_flushes_the_writes_closes_the_database_and_exits_0(tmp_path: Path) -> None:
    database, log = tmp_path / "bot.sqlite3", tmp_path / "bot.log"
    async with running_sandbox(rate_limits=ROOMY) as sandbox:
        driver = sandbox.driver
        for name in NAMES.values():
            await driver.create_user(name)
        async with real_bot(sandbox, database, log) as process:
            table_id, lobby = await open_table(driver, "ana", "general", "ben", "cid")
            started = await driver.click("ana", lobby["id"], f"sh:{table_id}:0:start")
            assert started["status"] == "answered", tail(log)
            for _ in range(len(NAMES) + 2):  # everyone ready, then two moves
                assert await move(driver, database, table_id) is not None
            before = stored(database, table_id)
            assert before is not None and before.game is not None and before.phase == "play"
            # The table message is redrawn after every move, SETTLE later: not yet.
            assert shown(driver, lobby["id"]) != drawn(before), "no write was pending"
            logged = log.stat().st_size

            process.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(process.wait(), 30) == 0, tail(log)

        lines = log.read_bytes()[logged:].decode().splitlines()
        assert len(lines) == 1, lines
        assert "stopped on SIGTERM: 1 running table saved, every message up to date" in lines[0]
        # The database was closed: the last connection to close removes the WAL file.
        assert not Path(f"{database}-wal").exists()
        after = stored(database, table_id)
        assert after is not None and after.to_json() == before.to_json()
        # The writes pending at the signal were made before the bot left: the table message
        # shows the last move, and the player whose turn came sees it in their DM.
        assert shown(driver, lobby["id"]) == drawn(after)
        assert after.game is not None
        (seat,) = after.game.to_act()
        assert footer(driver.dms(NAMES[seat])[-1]) == mark(after, seat)
        await driver.wait_until(lambda: not driver.state()["bot"]["connected"])
        assert not any(e["status"] >= 400 for e in driver.log()), driver.log()


def main(argv: list[str]) -> None:
    """Run the bot as `--production` does, against a running sandbox, until stopped."""
    api_base, gateway_url, token, database, settle = argv
    setup_logging("INFO")
    use_discord_at(api_base, gateway_url)
    line = asyncio.run(
        run_until_stopped(
            lambda: make_bot(Path(database), float(settle)),
            token,
            Path(database),
            patience=Patience(flush_grace=10),
        )
    )
    logging.getLogger("bot").info("%s", line)


# ---------------------------------------------------------------------- the sandbox run


@contextlib.contextmanager
def sandbox_bot(cwd: Path, *args: str, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """Start `python -m bot ARGS` (the sandbox run) in `cwd`; yield it once it is connected."""
    log = cwd / "bot.log"
    with log.open("ab") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", "--sandbox-port", "0", *args],
            cwd=cwd,
            env=child_env(**env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 20
        while "connected as" not in log.read_text():
            assert process.poll() is None, f"the bot stopped:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"the bot did not connect:\n{log.read_text()}"
            time.sleep(0.05)
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def stop(process: subprocess.Popen[bytes], log: Path, number: int = signal.SIGTERM) -> list[str]:
    """Send a signal, check the bot exits 0, and give the lines it logged after the signal."""
    logged = log.stat().st_size
    process.send_signal(number)
    assert process.wait(timeout=30) == 0, log.read_text()
    return log.read_bytes()[logged:].decode().splitlines()


def test_the_sandbox_run_uses_a_temporary_database_and_stops_on_sigterm(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    production = tmp_path / "production.sqlite3"
    with sandbox_bot(tmp_path, TMPDIR=str(temp), DATABASE_PATH=str(production)) as process:
        (world,) = temp.glob("shithead-sandbox-*/sandbox.sqlite3")
        lines = stop(process, tmp_path / "bot.log")
    assert len(lines) == 1 and "stopped on SIGTERM: 0 running tables saved" in lines[0], lines
    assert not world.exists() and list(temp.iterdir()) == []
    assert not production.exists()


def test_a_sandbox_world_is_kept_where_asked_and_sigint_stops_it_too(tmp_path: Path) -> None:
    production = tmp_path / "production.sqlite3"
    world = tmp_path / "world.sqlite3"
    env = {"SANDBOX_DATABASE_PATH": str(world), "DATABASE_PATH": str(production)}
    with sandbox_bot(tmp_path, **env) as process:
        lines = stop(process, tmp_path / "bot.log", signal.SIGINT)
    assert len(lines) == 1 and "stopped on SIGINT" in lines[0], lines
    assert world.exists() and not production.exists()


def test_the_sandbox_never_uses_the_real_database(tmp_path: Path) -> None:
    production = tmp_path / "production.sqlite3"
    done = subprocess.run(
        [sys.executable, "-m", "bot", "--sandbox-port", "0", "--database", str(production)],
        cwd=tmp_path,
        env=child_env(DATABASE_PATH=str(production)),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "the real bot's DATABASE_PATH" in done.stderr and "Traceback" not in done.stderr
    assert not production.exists()


# ---------------------------------------------------------------------- one bot per database


def test_a_second_bot_on_the_database_is_refused_until_the_first_is_gone(tmp_path: Path) -> None:
    first_dir, second_dir = tmp_path / "first", tmp_path / "second"
    first_dir.mkdir()
    second_dir.mkdir()
    database = str(tmp_path / "shared.sqlite3")
    with sandbox_bot(first_dir, "--database", database) as first:
        second = subprocess.run(
            [sys.executable, "-m", "bot", "--sandbox-port", "0", "--database", database],
            cwd=second_dir,
            env=child_env(),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert second.returncode == 2, second.stderr
        assert f"Another bot (pid {first.pid} on " in second.stderr, second.stderr
        assert "Traceback" not in second.stderr
        assert "listening" not in second.stdout  # it started no sandbox
        first.kill()  # SIGKILL: no chance to let the lock go; the kernel does
        first.wait()
    with sandbox_bot(second_dir, "--database", database) as third:
        lines = stop(third, second_dir / "bot.log")
    assert "stopped on SIGTERM" in lines[-1]


if __name__ == "__main__":
    main(sys.argv[1:])


def test_python_m_bot_tunes_the_collector_before_it_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import bot.cli

    seen: list[tuple[int, int, int]] = []

    async def run_sandbox(*args: object, **kwargs: object) -> str:
        seen.append(gc.get_threshold())
        return "stopped"

    monkeypatch.setattr(bot.cli, "run_sandbox", run_sandbox)
    monkeypatch.setattr(bot.cli, "setup_logging", lambda level: None)
    threshold = gc.get_threshold()
    try:
        assert bot.cli.main(["--sandbox", "--database", str(tmp_path / "x.sqlite3")]) == 0
        # What was alive was set aside, and new objects are looked at less often.
        assert seen == [(YOUNG_OBJECTS, *threshold[1:])]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_python_m_bot_runs_on_uvloop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import bot.cli

    loops: list[type[asyncio.AbstractEventLoop]] = []

    async def run_sandbox(*args: object, **kwargs: object) -> str:
        loops.append(type(asyncio.get_running_loop()))
        return "stopped"

    monkeypatch.setattr(bot.cli, "run_sandbox", run_sandbox)
    monkeypatch.setattr(bot.cli, "setup_logging", lambda level: None)
    monkeypatch.setattr(bot.cli, "tune_collector", lambda: None)
    assert bot.cli.main(["--sandbox", "--database", str(tmp_path / "x.sqlite3")]) == 0
    assert loops == [uvloop.Loop]
