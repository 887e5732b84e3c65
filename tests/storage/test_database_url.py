"""DATABASE_URL chooses SQLite or PostgreSQL; DATABASE_PATH stays the SQLite default."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.database import DatabaseUrl
from bot.settings import SettingsError, get_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no stray .env
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("DATABASE_PATH", raising=False)


def test_without_database_url_the_database_path_file_is_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert get_settings().database == DatabaseUrl("sqlite", "data/shithead.sqlite3")
    monkeypatch.setenv("DATABASE_PATH", "/srv/bot.sqlite3")
    settings = get_settings()
    assert settings.database == DatabaseUrl("sqlite", "/srv/bot.sqlite3")
    assert settings.database_setting == "DATABASE_PATH"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sqlite:///data/other.sqlite3", DatabaseUrl("sqlite", "data/other.sqlite3")),
        ("sqlite:////srv/bot.sqlite3", DatabaseUrl("sqlite", "/srv/bot.sqlite3")),
        ("postgresql://bot:pw@db:5432/shithead", DatabaseUrl("postgresql", "postgresql://bot:pw@db:5432/shithead")),
        ("postgres://db/shithead", DatabaseUrl("postgresql", "postgres://db/shithead")),
        ("postgresql:///shithead?host=/run/postgresql", DatabaseUrl("postgresql", "postgresql:///shithead?host=/run/postgresql")),
    ],
)  # fmt: skip
def test_database_url_overrides_the_path(
    monkeypatch: pytest.MonkeyPatch, url: str, expected: DatabaseUrl
) -> None:
    monkeypatch.setenv("DATABASE_PATH", "/srv/ignored.sqlite3")
    monkeypatch.setenv("DATABASE_URL", url)
    settings = get_settings()
    assert settings.database == expected
    assert settings.database_setting == "DATABASE_URL"


def test_a_blank_database_url_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "  ")
    assert get_settings().database.dialect == "sqlite"


@pytest.mark.parametrize(
    "url",
    [
        "mysql://bot:hunter2@db/shithead",
        "data/shithead.sqlite3",
        "sqlite://",
        "sqlite:///",
        "postgresql://bot:hunter2@db:port/shithead",
        "postgresql:",
    ],
)
def test_a_bad_database_url_is_one_sentence_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.setenv("DATABASE_URL", url)
    with pytest.raises(SettingsError) as refused:
        get_settings()
    message = str(refused.value)
    assert message.startswith("DATABASE_URL (in the environment) is not usable: ")
    assert "sqlite:///" in message and "postgresql://" in message
    assert message.endswith("change it.") and "\n" not in message
    assert "hunter2" not in message  # a password is never shown


def test_a_url_is_shown_without_its_password() -> None:
    url = DatabaseUrl.parse("postgresql://bot:hunter2@db.example:5432/shithead")
    assert url.shown() == "postgresql://bot:***@db.example:5432/shithead"
    assert "hunter2" not in repr(url)
    assert DatabaseUrl.parse("postgresql://db/x").shown() == "postgresql://db/x"
