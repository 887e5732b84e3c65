"""Logging, configured once at start."""

from __future__ import annotations

import logging


def setup_logging(level: str) -> None:
    """Send every log line to stderr with a timestamp and the logger's name."""
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)-8s %(name)s: %(message)s",
        force=True,
    )
    # discord.py's HTTP layer is chatty at DEBUG and may echo request bodies.
    logging.getLogger("discord.http").setLevel(max(logging.INFO, logging.getLevelName(level)))
