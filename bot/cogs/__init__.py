"""Slash-command modules; each exposes `setup(bot, storage)`."""
