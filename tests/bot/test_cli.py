"""`python -m bot` has a real command line, and a person's mistake gets one plain sentence.

Each mistake exits with status 2 and no traceback, before anything is bound, connected or
created. The command runs as a process from an empty directory, as a person runs it.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import discord
import pytest

from bot.client import use_discord_at
from bot.lifecycle import Patience, StartupError, run_production
from bot.settings import get_settings
from bot.version import __version__
from sandbox.testing import running_sandbox
from tests.bot.test_settings import TOKEN

ROOT = Path(__file__).resolve().parents[2]


def python_m_bot(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m bot ARGS` in `cwd` with only the given settings; it must end soon."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.upper().startswith(("DISCORD", "DATABASE_", "SANDBOX_", "LOG_LEVEL"))
    }
    environment.update(env, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )


def plain_error(done: subprocess.CompletedProcess[str]) -> str:
    """Check a run ended on a person's mistake: status 2, no traceback; give what it said."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    assert "Sandbox Discord listening" not in done.stdout
    return done.stderr


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_starts_nothing(tmp_path: Path, flag: str) -> None:
    done = python_m_bot(tmp_path, flag)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m bot")
    for option in ("--production", "--database PATH", "--sandbox-port N", "--log-level"):
        assert option in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_version_starts_nothing(tmp_path: Path) -> None:
    done = python_m_bot(tmp_path, "--version")
    assert (done.returncode, done.stdout) == (0, f"shithead-bot {__version__}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["run"], "unrecognized arguments: run"),
        (["--sandbox-port", "70000"], "70000 is not a port number"),
        (["--log-level", "loud"], "invalid choice: 'LOUD'"),
        (["--production", "--sandbox"], "not allowed with argument"),
        (["--production", "--sandbox-port", "9000"], "--production never starts it"),
    ],
)
def test_a_wrong_command_line_is_refused(tmp_path: Path, args: list[str], said: str) -> None:
    assert said in plain_error(python_m_bot(tmp_path, *args))
    assert list(tmp_path.iterdir()) == []


def test_production_without_a_token_refuses_to_start_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"DISCORD_TOKN={TOKEN}\n")
    said = plain_error(python_m_bot(tmp_path, "--production"))
    env_file = tmp_path.resolve() / ".env"
    assert (
        f"{env_file}: DISCORD_TOKN is not a setting of the bot and is ignored; "
        "did you mean DISCORD_TOKEN?"
    ) in said
    assert "DISCORD_TOKEN is not set" in said and "never starts the sandbox" in said
    assert TOKEN not in said
    assert sorted(p.name for p in tmp_path.iterdir()) == [".env"]


def test_a_malformed_token_stops_the_bot_before_it_connects(tmp_path: Path) -> None:
    said = plain_error(python_m_bot(tmp_path, DISCORD_TOKEN="my-token-here"))
    assert said.strip() == (
        "DISCORD_TOKEN (in the environment) is not a bot token (three parts joined by dots): "
        "copy it again from the developer portal (Bot → Reset Token) into .env as "
        "DISCORD_TOKEN=…."
    )
    assert list(tmp_path.iterdir()) == []


def test_an_unusable_database_path_is_named_and_nothing_is_touched(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("not a folder")
    database = tmp_path / "data" / "bot.sqlite3"
    said = plain_error(python_m_bot(tmp_path, DISCORD_TOKEN=TOKEN, DATABASE_PATH=str(database)))
    assert f"DATABASE_PATH is {database}, but {tmp_path / 'data'} is a file" in said
    assert (tmp_path / "data").read_text() == "not a folder"

    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    said = plain_error(python_m_bot(tmp_path, "--database", str(notes)))
    assert f"--database is {notes}, which is not an SQLite database" in said
    assert notes.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "notes.txt"]


def test_a_busy_sandbox_port_says_which_and_what_to_change(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        said = plain_error(python_m_bot(tmp_path, SANDBOX_PORT=str(port), TMPDIR=str(temp)))
    assert f"Port {port} on 127.0.0.1 is already in use, perhaps by another bot's" in said
    assert "SANDBOX_PORT" in said
    assert list(temp.iterdir()) == []  # no sandbox database left behind


# ---------------------------------------------------------------------- Discord says no


@pytest.fixture
def discord_urls() -> Iterator[None]:
    """Put discord.py's REST base and gateway back as they were after the test."""
    base, gateway = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    yield
    discord.http.Route.BASE = base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway


async def test_a_token_discord_refuses_names_the_setting(
    tmp_path: Path, discord_urls: None
) -> None:
    settings = get_settings(discord_token=TOKEN, database_path=tmp_path / "bot.sqlite3")
    async with running_sandbox():  # it accepts only its own token
        with pytest.raises(StartupError) as info:
            await run_production(settings)
    assert str(info.value) == (
        "Discord refused DISCORD_TOKEN: reset the token in the developer portal "
        "(Bot → Reset Token) and put the new one in .env as DISCORD_TOKEN=…."
    )


async def test_no_network_is_tried_again_then_said_plainly(
    tmp_path: Path, discord_urls: None, caplog: pytest.LogCaptureFixture
) -> None:
    with socket.socket() as closed:  # a port where nothing listens
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    use_discord_at(f"http://127.0.0.1:{port}/api/v10", f"ws://127.0.0.1:{port}/gateway")
    settings = get_settings(discord_token=TOKEN, database_path=tmp_path / "bot.sqlite3")
    patience = Patience(connect_tries=3, first_retry=0.01)
    with caplog.at_level(logging.WARNING, logger="bot"), pytest.raises(StartupError) as info:
        await run_production(settings, patience=patience)
    message = str(info.value)
    assert message.startswith("Discord could not be reached after 3 tries (Cannot connect to")
    assert message.endswith("check this machine's network connection, then start the bot again.")
    retries = [r.getMessage() for r in caplog.records if "trying again" in r.getMessage()]
    assert len(retries) == 2 and "try 2 of 3" in retries[0], retries
    assert not (tmp_path / "bot.sqlite3").exists()
