"""Process settings, read once from the environment and `.env`, then passed down."""

from __future__ import annotations

import difflib
import os
import re
import typing
from pathlib import Path
from typing import Literal

from dotenv import dotenv_values
from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.database import DatabaseUrl

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
LOG_LEVELS: tuple[LogLevel, ...] = typing.get_args(LogLevel)

# The file the settings are read from, in the directory the bot is started in.
ENV_FILE = Path(".env")

# Discord's rule for a chat-input command name.
_COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")
# A bot token: three base64url parts joined by dots (the user id, a timestamp, an HMAC).
_TOKEN = re.compile(r"[A-Za-z0-9_-]{18,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}")
_NOT_A_TOKEN = "not a bot token"
_BOT_PREFIX = "starts with the word Bot"


class Settings(BaseSettings):
    """Everything the bot reads from its environment."""

    model_config = SettingsConfigDict(
        env_file=ENV_FILE,
        env_file_encoding="utf-8",
        extra="ignore",
        case_sensitive=False,
    )

    discord_token: SecretStr | None = None
    database_path: Path = Path("data/shithead.sqlite3")
    # sqlite:///path or postgresql://…; set, it is used instead of DATABASE_PATH.
    database_url: str | None = None
    # The sandbox's own world; unset, each sandbox run gets a temporary file.
    sandbox_database_path: Path | None = None
    log_level: LogLevel = "INFO"
    dev_guild_id: int | None = Field(default=None, gt=0)
    command_name: str = "shithead"
    sandbox_host: str = "127.0.0.1"
    sandbox_port: int = Field(default=8765, ge=0, le=65535)
    # Discord shards: how many the bot has in all, and which of them this process runs
    # (unset: all of them).
    shard_count: int = Field(default=1, ge=1, le=10_000)
    shard_ids: str | None = None

    @field_validator(
        "discord_token",
        "dev_guild_id",
        "sandbox_database_path",
        "database_url",
        "shard_ids",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        """Treat `KEY=` in `.env` as not set."""
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("discord_token")
    @classmethod
    def _token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        """Refuse a token that cannot be one, before anything connects with it."""
        if value is None:
            return None
        token = value.get_secret_value().strip()
        if token.lower().startswith("bot "):
            raise ValueError(_BOT_PREFIX)
        if not _TOKEN.fullmatch(token):
            raise ValueError(_NOT_A_TOKEN)
        return SecretStr(token)

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        """Refuse a URL that names no database the bot can use."""
        if value is None:
            return None
        DatabaseUrl.parse(value)
        return value.strip()

    @field_validator("shard_ids")
    @classmethod
    def _shard_ids(cls, value: str | None) -> str | None:
        """Refuse a list of shards that is not numbers and ranges."""
        if value is not None:
            parse_shard_ids(value)
        return value

    @model_validator(mode="after")
    def _shards_exist(self) -> Settings:
        """Refuse shards past SHARD_COUNT, and a part of the shards on an SQLite file."""
        if self.shard_ids is None:
            return self
        ids = parse_shard_ids(self.shard_ids)
        if ids[-1] >= self.shard_count:
            raise ValueError(
                f"SHARD_IDS names shard {ids[-1]}, but the shards are 0 to "
                f"{self.shard_count - 1} (SHARD_COUNT is {self.shard_count}): change one of them."
            )
        if len(ids) < self.shard_count and self.database.dialect == "sqlite":
            raise ValueError(
                "SHARD_IDS names a part of the shards, so other processes run the rest, and "
                "processes cannot share an SQLite file: set DATABASE_URL to a PostgreSQL "
                "database, or leave SHARD_IDS unset."
            )
        return self

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_log_level(cls, value: object) -> object:
        """Accept a log level in any case."""
        return value.upper() if isinstance(value, str) else value

    @field_validator("command_name")
    @classmethod
    def _valid_command_name(cls, value: str) -> str:
        """Refuse a name Discord would refuse as a slash command."""
        if value != value.lower() or not _COMMAND_NAME.match(value):
            raise ValueError(
                "must be 1-32 lowercase letters, digits, '-' or '_' (a Discord command name)"
            )
        return value

    @property
    def database(self) -> DatabaseUrl:
        """The database the bot keeps its state in: DATABASE_URL, else the DATABASE_PATH file."""
        if self.database_url is None:
            return DatabaseUrl.sqlite(self.database_path)
        return DatabaseUrl.parse(self.database_url)

    @property
    def database_setting(self) -> str:
        """Name the setting that chose the database, for messages about it."""
        return "DATABASE_PATH" if self.database_url is None else "DATABASE_URL"

    @property
    def shards(self) -> tuple[int, ...]:
        """The shards this process runs: SHARD_IDS, else every shard."""
        if self.shard_ids is None:
            return tuple(range(self.shard_count))
        return parse_shard_ids(self.shard_ids)

    @property
    def has_token(self) -> bool:
        """Say whether a bot token is set (else the bot runs against the sandbox)."""
        return self.discord_token is not None


def parse_shard_ids(text: str) -> tuple[int, ...]:
    """Read shard ids like `0-3` or `0,2,5-7` into sorted distinct ids; `ValueError` if not."""
    ids: set[int] = set()
    for part in text.replace(" ", "").split(","):
        first, dash, last = part.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ValueError("must be shard numbers and ranges, such as 0-3 or 0,2,5-7")
        low, high = int(first), int(last or first)
        if high < low:
            raise ValueError(f"the range {part} goes down: write it low to high, as {high}-{low}")
        ids.update(range(low, high + 1))
    return tuple(sorted(ids))


# Every key the bot reads, as written in `.env` or the environment.
KNOWN_KEYS = tuple(name.upper() for name in Settings.model_fields)


class SettingsError(Exception):
    """A setting has a bad value; the message names the key and what to change."""


def _source(key: str) -> str:
    """Say where a key's value came from: the environment, else the env file."""
    if any(name.upper() == key for name in os.environ):
        return "the environment"
    return str(ENV_FILE)


def _explain(key: str, message: str, value: object) -> str:
    """Put one refused value into a sentence naming its key and where to change it."""
    message = message.removeprefix("Value error, ")
    if not key:
        # A refusal of two settings together is a whole sentence that names them.
        return message
    where = _source(key)
    if key == "DISCORD_TOKEN":
        # Never show the token, not even a wrong one.
        if message == _BOT_PREFIX:
            return (
                f"DISCORD_TOKEN (in {where}) starts with the word Bot: put only the token "
                "itself in .env as DISCORD_TOKEN=…, without that word."
            )
        return (
            f"DISCORD_TOKEN (in {where}) is not a bot token (three parts joined by dots): copy "
            "it again from the developer portal (Bot → Reset Token) into .env as DISCORD_TOKEN=…."
        )
    if key == "DATABASE_URL":
        # The URL may carry a password: say what is wrong without showing it.
        return f"DATABASE_URL (in {where}) is not usable: {message}; change it."
    return f"{key} (in {where}) is {value!r}, which is refused ({message}): change it."


def get_settings(**overrides: object) -> Settings:
    """Build the settings once; a bad value raises `SettingsError` naming its key."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines = [
            _explain(
                ".".join(str(part) for part in error["loc"]).upper(),
                error["msg"],
                error.get("input"),
            )
            for error in exc.errors()
        ]
        raise SettingsError("\n".join(lines)) from None


def closest_key(name: str, keys: tuple[str, ...] = KNOWN_KEYS, cutoff: float = 0.6) -> str | None:
    """Name the known key a misspelt one most likely meant, if any is close."""
    found = difflib.get_close_matches(name.upper(), keys, n=1, cutoff=cutoff)
    return found[0] if found else None


def unknown_keys(env_file: Path = ENV_FILE) -> list[str]:
    """Say, one sentence each, which keys of an env file the bot does not know (and ignores)."""
    if not env_file.is_file():
        return []
    where = env_file.resolve()
    warnings = []
    for key in dotenv_values(env_file, encoding="utf-8"):
        if key.upper() in KNOWN_KEYS:
            continue
        close = closest_key(key)
        hint = f"did you mean {close}?" if close else f"the keys are {', '.join(KNOWN_KEYS)}."
        warnings.append(f"{where}: {key} is not a setting of the bot and is ignored; {hint}")
    return warnings


def load_settings(**overrides: object) -> tuple[Settings, list[str]]:
    """Build the settings, and the warnings about keys of `.env` that they ignored."""
    return get_settings(**overrides), unknown_keys()


def missing_token() -> str:
    """Say that a token is needed, naming a misspelt key in the environment if there is one."""
    near = sorted(
        name
        for name in os.environ
        if name.upper() != "DISCORD_TOKEN" and closest_key(name, ("DISCORD_TOKEN",), cutoff=0.8)
    )
    hint = f" ({', '.join(near)} is set instead: is it misspelt?)" if near else ""
    return (
        f"DISCORD_TOKEN is not set{hint}: --production needs the bot token, in the "
        "environment or in .env as DISCORD_TOKEN=…, and never starts the sandbox."
    )
