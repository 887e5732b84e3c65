"""Slash commands in each member's language: discord.py asks, `t()` answers."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.i18n import t


def language_of(locale: discord.Locale) -> str:
    """Name a Discord locale's language as the catalogs do ("de" for de, "en" for en-US)."""
    return locale.value.split("-")[0]


class CatalogTranslator(app_commands.Translator):
    """Translate command names, descriptions and choices at sync time through `t()`."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        """Give the catalog's text for `locale`, or None so Discord keeps the English."""
        text = t(string.message, locale=language_of(locale))
        return None if text == string.message else text
