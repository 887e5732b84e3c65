"""No token, interaction token or private view reaches the log, at any level."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from bot.logs import setup_logging

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456"
INTERACTION = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OmFiY2RlZmdoaWprbG1ub3A"


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    setup_logging("DEBUG")
    yield stream
    root.handlers[:] = handlers
    root.setLevel(level)


def test_tokens_never_reach_the_log_even_at_debug(captured: io.StringIO) -> None:
    log = logging.getLogger("bot.test")
    log.debug(
        "PATCH https://discord.com/api/v10/webhooks/123456/%s/messages/@original", INTERACTION
    )
    log.info("POST /interactions/99/%s/callback", INTERACTION)
    log.warning("logging in with %s", TOKEN)
    text = captured.getvalue()
    assert INTERACTION not in text and TOKEN not in text
    assert "/webhooks/123456/<token>/messages/@original" in text
    assert "<bot-token>" in text and "/interactions/99/<token>/callback" in text


def test_discords_chatty_loggers_stay_quiet_at_debug(captured: io.StringIO) -> None:
    logging.getLogger("discord.gateway").debug("For Shard ID None: WebSocket Event: hand 7H 8S")
    logging.getLogger("discord.webhook.async_").debug("Webhook ID 1 with POST /webhooks/1/x")
    logging.getLogger("bot.presenter").debug("the bot's own decision")
    text = captured.getvalue()
    assert "WebSocket Event" not in text and "Webhook ID" not in text
    assert "the bot's own decision" in text
