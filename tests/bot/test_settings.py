"""Settings come from the environment, and a bad value names its key."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import SettingsError, get_settings


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
    ):
        monkeypatch.delenv(key, raising=False)


def test_defaults() -> None:
    settings = get_settings()
    assert settings.discord_token is None
    assert not settings.has_token
    assert settings.command_name == "shithead"
    assert str(settings.database_path).startswith("data")
    assert settings.log_level == "INFO"


def test_env_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "abc.def")
    monkeypatch.setenv("COMMAND_NAME", "palace")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    monkeypatch.setenv("DEV_GUILD_ID", "1234")
    settings = get_settings()
    assert settings.has_token
    assert settings.command_name == "palace"
    assert settings.log_level == "DEBUG"
    assert settings.dev_guild_id == 1234


def test_token_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "very-secret-token")
    settings = get_settings()
    assert "very-secret-token" not in repr(settings)
    assert "very-secret-token" not in str(settings.model_dump())


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
