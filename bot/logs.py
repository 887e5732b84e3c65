"""Logging, configured once at start: the bot's own decisions, never a secret or a hand."""

from __future__ import annotations

import logging
import re

# discord.py's loggers that, at DEBUG, print interaction tokens (webhook URLs), request
# bodies and every gateway event with its players' private data: never below INFO.
QUIET_BELOW_INFO = ("discord.http", "discord.gateway", "discord.webhook", "discord.state")

# What a secret looks like in a line: an interaction webhook URL (the token is a credential
# for 15 minutes), a bot token, an interaction token.
_SECRETS = (
    (re.compile(r"(/webhooks/\d+/)[\w.\-]+"), r"\1<token>"),
    (re.compile(r"(/interactions/\d+/)[\w.\-]+"), r"\1<token>"),
    (re.compile(r"\b[\w\-]{23,28}\.[\w\-]{6}\.[\w\-]{27,38}\b"), "<bot-token>"),
    (re.compile(r"\baW50ZXJhY3Rpb246[\w\-]{20,}\b"), "<interaction-token>"),
)


class RedactSecrets(logging.Filter):
    """Replace tokens in a log line by placeholders, whichever logger wrote it."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message without secrets; keep the record."""
        text = record.getMessage()
        clean = redact(text)
        if clean != text:
            record.msg, record.args = clean, None
        return True


def redact(text: str) -> str:
    """Say a text with every token replaced by a placeholder."""
    for pattern, placeholder in _SECRETS:
        text = pattern.sub(placeholder, text)
    return text


def setup_logging(level: str) -> None:
    """Send every log line to stderr with a timestamp and the logger's name, secrets hidden."""
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)-8s %(name)s: %(message)s",
        force=True,
    )
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactSecrets())
    floor = max(logging.INFO, logging.getLevelName(level))
    for name in QUIET_BELOW_INFO:
        logging.getLogger(name).setLevel(floor)
