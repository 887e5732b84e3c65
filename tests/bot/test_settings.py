"""Settings come from the environment, and a bad value names its key and what to change."""

from __future__ import annotations

import os
import socket
import sqlite3
from pathlib import Path

import pytest

from bot.instance import check_database_path
from bot.lifecycle import start_sandbox
from bot.settings import (
    KNOWN_KEYS,
    SettingsError,
    get_settings,
    load_settings,
    missing_token,
    unknown_keys,
)

# The shape of a bot token (made up): base64 of an id, a timestamp, an HMAC.
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789AB"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no stray .env
    for key in (
        "DISCORD_TOKEN",
        "DATABASE_PATH",
        "LOG_LEVEL",
        "DEV_GUILD_ID",
        "COMMAND_NAME",
        "SANDBOX_HOST",
        "SANDBOX_PORT",
        "SANDBOX_DATABASE_PATH",
    ):
        monkeypatch.delenv(key, raising=False)
    for key in os.environ:
        if key.upper().startswith("DISCORD"):
            monkeypatch.delenv(key)


def test_defaults() -> None:
    settings = get_settings()
    assert settings.discord_token is None
    assert not settings.has_token
    assert settings.command_name == "shithead"
    assert str(settings.database_path).startswith("data")
    assert settings.log_level == "INFO"


def test_env_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("COMMAND_NAME", "palace")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    monkeypatch.setenv("DEV_GUILD_ID", "1234")
    settings = get_settings()
    assert settings.has_token
    assert settings.command_name == "palace"
    assert settings.log_level == "DEBUG"
    assert settings.dev_guild_id == 1234


def test_token_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    settings = get_settings()
    assert TOKEN not in repr(settings)
    assert TOKEN not in str(settings.model_dump())


def test_blank_token_in_dotenv_means_sandbox(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=\nCOMMAND_NAME=karma\n")
    settings = get_settings()
    assert not settings.has_token
    assert settings.command_name == "karma"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("SANDBOX_PORT", "70000"),
        ("SANDBOX_PORT", "eighty"),
        ("COMMAND_NAME", "Shit Head"),
        ("LOG_LEVEL", "LOUD"),
        ("DEV_GUILD_ID", "-3"),
    ],
)
def test_bad_value_names_the_key(monkeypatch: pytest.MonkeyPatch, key: str, value: str) -> None:
    monkeypatch.setenv(key, value)
    with pytest.raises(SettingsError) as info:
        get_settings()
    assert key in str(info.value)


# ---------------------------------------------------------------------- the token's shape


@pytest.mark.parametrize(
    "token",
    [
        "abc.def",
        "paste-your-token-here",
        TOKEN.replace(".", ""),
        TOKEN + ".more",
        TOKEN[:-10] + "!!!!!!!!!!",
        f"Bot {TOKEN}",
    ],
)
def test_a_malformed_token_is_refused_before_connecting(
    monkeypatch: pytest.MonkeyPatch, token: str
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", token)
    with pytest.raises(SettingsError) as info:
        get_settings()
    message = str(info.value)
    assert "DISCORD_TOKEN" in message and ".env" in message
    assert "the environment" in message
    assert token not in message and TOKEN not in message
    assert "\n" not in message


def test_a_malformed_token_in_dotenv_says_so(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=Bot " + TOKEN + "\n")
    with pytest.raises(SettingsError, match=r"DISCORD_TOKEN \(in \.env\) starts with the word Bot"):
        get_settings()


def test_a_token_with_spaces_around_it_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", f"  {TOKEN} ")
    token = get_settings().discord_token
    assert token is not None and token.get_secret_value() == TOKEN


def test_missing_token_names_a_misspelt_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKN", TOKEN)
    message = missing_token()
    assert "DISCORD_TOKEN is not set (DISCORD_TOKN is set instead" in message
    assert ".env" in message and TOKEN not in message


# ---------------------------------------------------------------------- unknown keys in .env


def test_unknown_keys_in_dotenv_are_named_with_the_closest_known_key(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        f"DISCORD_TOKN={TOKEN}\ndatabse_path=x.sqlite3\nCOMMAND_NAME=karma\nFOO=1\n"
    )
    settings, warnings = load_settings()
    assert not settings.has_token and settings.command_name == "karma"
    where = str((tmp_path / ".env").resolve())
    assert warnings == [
        f"{where}: DISCORD_TOKN is not a setting of the bot and is ignored; "
        "did you mean DISCORD_TOKEN?",
        f"{where}: databse_path is not a setting of the bot and is ignored; "
        "did you mean DATABASE_PATH?",
        f"{where}: FOO is not a setting of the bot and is ignored; "
        f"the keys are {', '.join(KNOWN_KEYS)}.",
    ]


def test_a_dotenv_of_known_keys_or_none_warns_of_nothing(tmp_path: Path) -> None:
    assert unknown_keys(tmp_path / ".env") == []
    (tmp_path / ".env").write_text("SANDBOX_DATABASE_PATH=\nlog_level=debug\n")
    assert load_settings()[1] == []


# ---------------------------------------------------------------------- the database path


def files(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def test_a_database_whose_folder_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("notes")
    path = tmp_path / "data" / "deeper" / "bot.sqlite3"
    with pytest.raises(SettingsError) as info:
        check_database_path(path, "DATABASE_PATH")
    assert str(info.value) == (
        f"DATABASE_PATH is {path}, but {tmp_path / 'data'} is a file, not a folder: point "
        "DATABASE_PATH at a path whose folders are folders."
    )
    assert files(tmp_path) == ["data"]


def test_a_database_that_is_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"DATABASE_PATH is .*, which is a folder: point"):
        check_database_path(tmp_path, "DATABASE_PATH")


def test_a_database_in_a_folder_no_one_may_write_is_refused() -> None:
    if not Path("/sys/kernel").is_dir():
        pytest.skip("needs Linux's /sys, where no one creates files")
    path = Path("/sys/kernel/shithead/bot.sqlite3")
    with pytest.raises(SettingsError) as info:
        check_database_path(path, "DATABASE_PATH")
    assert str(info.value).startswith(
        f"DATABASE_PATH is {path}, but this user cannot create files in /sys/kernel"
    )


def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my shopping list")
    before = path.stat()
    with pytest.raises(SettingsError) as info:
        check_database_path(path, "SANDBOX_DATABASE_PATH")
    assert str(info.value) == (
        f"SANDBOX_DATABASE_PATH is {path}, which is not an SQLite database (it was left as "
        "it is): point SANDBOX_DATABASE_PATH at another file."
    )
    assert path.read_text() == "my shopping list"
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert files(tmp_path) == ["notes.txt"]


def test_usable_database_paths_pass_and_nothing_is_created(tmp_path: Path) -> None:
    check_database_path(tmp_path / "new" / "folders" / "bot.sqlite3", "DATABASE_PATH")
    (tmp_path / "empty.sqlite3").touch()
    check_database_path(tmp_path / "empty.sqlite3", "DATABASE_PATH")
    sqlite3.connect(tmp_path / "real.sqlite3").execute("CREATE TABLE t (x)").connection.close()
    check_database_path(tmp_path / "real.sqlite3", "DATABASE_PATH")
    check_database_path(Path(":memory:"), "DATABASE_PATH")
    assert files(tmp_path) == ["empty.sqlite3", "real.sqlite3"]


# ---------------------------------------------------------------------- the sandbox's port


async def test_a_busy_sandbox_port_names_the_port_and_the_setting() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = get_settings(sandbox_port=port)
        with pytest.raises(SettingsError) as info:
            await start_sandbox(settings)
    assert str(info.value) == (
        f"Port {port} on 127.0.0.1 is already in use, perhaps by another bot's sandbox (is "
        "one running?): stop it, or set SANDBOX_PORT (or --sandbox-port) to another port."
    )


def test_the_example_env_file_names_only_known_keys(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / ".env.example"
    (tmp_path / ".env").write_text(example.read_text())
    settings, warnings = load_settings()
    assert warnings == []
    assert not settings.has_token and settings.sandbox_database_path is None
