"""The version of the bot, read by `python -m bot --version` and by the build."""

__version__ = "0.1.0"
