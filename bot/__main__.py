"""Run the bot: `python -m bot` (`python -m bot --help` lists the options)."""

from __future__ import annotations

import sys

from bot.cli import main

if __name__ == "__main__":
    sys.exit(main())
