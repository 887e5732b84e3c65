"""Process settings, read once from the environment and `.env`, then passed down."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

# Discord's rule for a chat-input command name.
_COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")


class Settings(BaseSettings):
    """Everything the bot reads from its environment."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        case_sensitive=False,
    )

    discord_token: SecretStr | None = None
    database_path: Path = Path("data/shithead.sqlite3")
    log_level: LogLevel = "INFO"
    dev_guild_id: int | None = Field(default=None, gt=0)
    command_name: str = "shithead"
    sandbox_host: str = "127.0.0.1"
    sandbox_port: int = Field(default=8765, ge=0, le=65535)

    @field_validator("discord_token", "dev_guild_id", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        """Treat `KEY=` in `.env` as not set."""
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_log_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("command_name")
    @classmethod
    def _valid_command_name(cls, value: str) -> str:
        if value != value.lower() or not _COMMAND_NAME.match(value):
            raise ValueError(
                "must be 1-32 lowercase letters, digits, '-' or '_' (a Discord command name)"
            )
        return value

    @property
    def has_token(self) -> bool:
        return self.discord_token is not None


class SettingsError(Exception):
    """A setting has a bad value; the message names the key."""


def get_settings(**overrides: object) -> Settings:
    """Build the settings once; a bad value raises `SettingsError` naming its key."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            key = ".".join(str(part) for part in error["loc"]).upper()
            lines.append(f"{key}: {error['msg']} (got {error.get('input')!r})")
        raise SettingsError("Bad configuration:\n  " + "\n  ".join(lines)) from None
